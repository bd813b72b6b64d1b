package findings

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
)

// Realistic-looking (but fake) secrets of every vendor shape, plus one
// high-entropy token no vendor pattern matches.
const (
	fakeOpenAI  = "sk-proj4Xq9LmZ2vB7nK1wR8tY3"                              // 27 code points
	fakeGitHub  = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"                 // 40
	fakeAWS     = "AKIAIOSFODNN7EXAMPLE"                                     // 20
	fakeSlack   = "xoxb-123456789012-abcdefghijkl"                           // 30
	fakePrivKey = "-----BEGIN RSA PRIVATE KEY-----"                          // 31
	fakeJWT     = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.dBjftJeZ4CVP" // 56
	fakeEntropy = "Zq8Xr2Vt6Wn0Lp4Ks9Hj3Gf7Dm1Cb5Ny"                         // 32, entropy 5 bits
)

func secretFinding(rule, severity, snippet string) lock.Finding {
	msg := rule + ": possible secret in field"
	if rule == RuleSecEntropy {
		msg = RuleSecEntropy + ": high-entropy token (possible secret)"
	}
	return lock.Finding{RuleID: rule, Severity: severity, Target: "tools/t", Message: msg, Snippet: snippet}
}

func TestScanField(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  []lock.Finding
	}{
		{"empty", "", nil},
		{"plain prose", "Reads a file from the workspace and returns its contents.", nil},
		{"openai", "key " + fakeOpenAI + " here", []lock.Finding{secretFinding(RuleSecOpenAI, Critical, "sk-p…(len=27)")}},
		{"github", fakeGitHub, []lock.Finding{secretFinding(RuleSecGitHub, Critical, "ghp_…(len=40)")}},
		{"aws", "id=" + fakeAWS, []lock.Finding{secretFinding(RuleSecAWS, Critical, "AKIA…(len=20)")}},
		{"slack", fakeSlack + "!", []lock.Finding{secretFinding(RuleSecSlack, Critical, "xoxb…(len=30)")}},
		{"private key", "x\n" + fakePrivKey + "\nMIIE", []lock.Finding{secretFinding(RuleSecPrivKey, Critical, "----…(len=31)")}},
		{"private key without kind", "-----BEGIN PRIVATE KEY-----", []lock.Finding{secretFinding(RuleSecPrivKey, Critical, "----…(len=27)")}},
		{"private key unknown kind", "-----BEGIN FOO PRIVATE KEY-----", nil},
		{"jwt", "Bearer " + fakeJWT, []lock.Finding{secretFinding(RuleSecJWT, High, "eyJh…(len=56)")}},
		{"entropy", "token: " + fakeEntropy, []lock.Finding{secretFinding(RuleSecEntropy, High, "Zq8X…(len=32)")}},
		// Every match of a pattern is reported, vendor rules first in
		// catalogue order, entropy last.
		{"two openai keys and an aws id", fakeAWS + " sk-aaaaaaaaaaaaaaaaaaaa1 sk-bbbbbbbbbbbbbbbbbbbb2", []lock.Finding{
			secretFinding(RuleSecOpenAI, Critical, "sk-a…(len=24)"),
			secretFinding(RuleSecOpenAI, Critical, "sk-b…(len=24)"),
			secretFinding(RuleSecAWS, Critical, "AKIA…(len=20)"),
		}},
		// Python's \b is Unicode-aware: a letter such as é or a digit such
		// as Arabic-Indic ٣ is a word character, so no boundary follows.
		{"openai followed by a Unicode letter", "sk-aaaaaaaaaaaaaaaaaaaa1é", nil},
		{"openai followed by a Unicode digit", "sk-aaaaaaaaaaaaaaaaaaaa1٣", nil},
		{"openai preceded by a Unicode letter", "ésk-aaaaaaaaaaaaaaaaaaaa1", nil},
		// A combining mark is not a word character in Python.
		{"openai followed by a combining mark", "sk-aaaaaaaaaaaaaaaaaaaa1\u0301", []lock.Finding{secretFinding(RuleSecOpenAI, Critical, "sk-a…(len=24)")}},
		{"openai preceded by underscore", "_sk-aaaaaaaaaaaaaaaaaaaa1", nil},
		{"openai too short", "sk-aaaaaaaaaaaaaaaaaaa", nil},
		// One character too many for the GitHub pattern; the entropy pass
		// still catches it.
		{"github one char too long", fakeGitHub + "x", []lock.Finding{secretFinding(RuleSecEntropy, High, "ghp_…(len=41)")}},
		{"github wrong letter", "ghx_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", []lock.Finding{secretFinding(RuleSecEntropy, High, "ghx_…(len=40)")}},
		{"aws followed by a Unicode letter", fakeAWS + "ß", nil},
		{"aws lower case", "AKIAiosfodnn7example", nil},
		// Slack's class includes '-', a non-word character, so the
		// repetition backs off to the last boundary: between "-" and "k",
		// since "kλ" is all word characters.
		{"slack backs off to a boundary", "xoxp-abcdefghij-kλ", []lock.Finding{secretFinding(RuleSecSlack, Critical, "xoxp…(len=16)")}},
		{"slack dash then a Unicode letter", "xoxp-abcdefghij-é", []lock.Finding{secretFinding(RuleSecSlack, Critical, "xoxp…(len=16)")}},
		{"slack with no boundary", "xoxp-abcdefghijé", nil},
		{"slack ending in a dash", "xoxa-abcdefghij-", []lock.Finding{secretFinding(RuleSecSlack, Critical, "xoxa…(len=15)")}},
		{"jwt followed by a Unicode letter backs off", "eyJabcdefghij.abcdefghij.abcdefghij-kλ", []lock.Finding{secretFinding(RuleSecJWT, High, "eyJa…(len=36)")}},
		{"jwt short segment", "eyJabcdefghij.abcdefghi.abcdefghij", nil},
		// A token holding a vendor match is not reported again by the
		// entropy pass (the match is a substring of it).
		{"entropy skips a vendor superstring", "A=" + fakeOpenAI, []lock.Finding{secretFinding(RuleSecOpenAI, Critical, "sk-p…(len=27)")}},
		// A repeated token is reported once: the repeat is a substring of
		// the first hit.
		{"repeated token", fakeEntropy + " " + fakeEntropy, []lock.Finding{secretFinding(RuleSecEntropy, High, "Zq8X…(len=32)")}},
		// A later token contained in an earlier hit is skipped, and so is a
		// later token containing one.
		{"substring of an earlier hit", fakeEntropy + " " + fakeEntropy[3:], []lock.Finding{secretFinding(RuleSecEntropy, High, "Zq8X…(len=32)")}},
		{"superstring of an earlier hit", fakeEntropy + " xx" + fakeEntropy, []lock.Finding{secretFinding(RuleSecEntropy, High, "Zq8X…(len=32)")}},
		// Containment compares contents, not positions: the match inside
		// the JWT makes an equal text elsewhere a non-hit.
		{"substring of a jwt segment", "eyJ" + fakeEntropy + ".abcdefghij.abcdefghij " + fakeEntropy, []lock.Finding{secretFinding(RuleSecJWT, High, "eyJZ…(len=57)")}},
		// Entropy pass boundaries.
		{"entropy exactly 4.0 bits", "0123456789abcdef0123456789abcdef", []lock.Finding{secretFinding(RuleSecEntropy, High, "0123…(len=32)")}},
		{"entropy just under 4.0 bits", "0123456789abcdef0123456789abcde0", nil},
		{"23 characters", "0123456789abcdefghijklm", nil},
		{"24 characters", "0123456789abcdefghijklmn", []lock.Finding{secretFinding(RuleSecEntropy, High, "0123…(len=24)")}},
		{"token with a dot", "0123456789abcdefghijklm.", nil},
		{"alnum share 0.83", "ABCDEFGHIJKLMNOPQRST++//", []lock.Finding{secretFinding(RuleSecEntropy, High, "ABCD…(len=24)")}},
		{"alnum share 0.79", "ABCDEFGHIJKLMNOPQRS+++//", nil},
		{"split on characters outside the alphabet", "0123456789abcdef:ghijklmnopqrstuv", nil},
		{"low entropy", strings.Repeat("ab", 20), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ScanField(tc.value, "tools/t")
			if !slices.Equal(got, tc.want) {
				t.Errorf("ScanField(%q)\n got  %v\n want %v", tc.value, got, tc.want)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "…(len<=3)"},
		{"a", "…(len<=3)"},
		{"ab", "a…(len<=3)"},
		{"abc", "a…(len<=3)"},
		{"sk-a", "sk…(len=4)"},
		{"abcdefg", "abc…(len=7)"},
		{"abcdefgh", "abcd…(len=8)"},
		{"sk-abcdefghij1234567890", "sk-a…(len=23)"},
		// Code points, not bytes.
		{"ééééé", "éé…(len=5)"},
		{"🔑🔑🔑🔑🔑🔑🔑🔑🔑", "🔑🔑🔑🔑…(len=9)"},
	}
	for _, tc := range tests {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMaskVendorSecrets(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"npx @scope/pkg", "npx @scope/pkg"},
		// Entropy-only tokens are left alone (ordinary package names trip
		// the heuristic).
		{fakeEntropy, fakeEntropy},
		{"--key=" + fakeOpenAI, "--key=sk-p…(len=27)"},
		{fakeAWS + " and " + fakeGitHub, "AKIA…(len=20) and ghp_…(len=40)"},
		// Overlapping matches are merged before redaction: an OpenAI key
		// inside a JWT segment.
		{"eyJabcdefghij.abcdefghij.x-sk-aaaaaaaaaaaaaaaaaaaa1", "eyJa…(len=51)"},
	}
	for _, tc := range tests {
		if got := maskVendorSecrets(tc.in); got != tc.want {
			t.Errorf("maskVendorSecrets(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLog2Exact(t *testing.T) {
	tests := []struct {
		x    float64
		want float64
	}{
		{1, 0},
		{0.5, -1},
		{0.0625, -4},
		{0.75, -0.4150374992788438},
		// Correctly rounded: glibc's log2 (and so Python) gives
		// -0.14684138832927113 here, half an ulp on the wrong side.
		{56.0 / 62.0, -0.14684138832927116},
	}
	for _, tc := range tests {
		if got := log2Exact(tc.x); got != tc.want {
			t.Errorf("log2Exact(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		x := r.Float64()
		if x == 0 {
			continue
		}
		if got, fast := log2Exact(x), math.Log2(x); math.Abs(got-fast) > 4*math.Abs(math.Nextafter(fast, 0)-fast) {
			t.Fatalf("log2Exact(%v) = %v, far from math.Log2 = %v", x, got, fast)
		}
	}
}

// TestHighEntropyNearThreshold forces the exact path and checks it agrees
// with the fast path away from the threshold's last bits.
func TestHighEntropyNearThreshold(t *testing.T) {
	var e entropyScorer
	for _, tok := range []string{
		"0123456789abcdef0123456789abcdef", // exactly 4.0: dyadic, fast path
		"0123456789abcdef0123456789abcde0",
		fakeEntropy,
	} {
		fast := e.highEntropy(tok)
		// Recompute with every logarithm exact.
		sum := 0.0
		counts := map[byte]int{}
		var order []byte
		for i := 0; i < len(tok); i++ {
			if counts[tok[i]] == 0 {
				order = append(order, tok[i])
			}
			counts[tok[i]]++
		}
		for _, c := range order {
			p := float64(counts[c]) / float64(len(tok))
			sum += p * e.log2(counts[c], len(tok), p)
		}
		if exact := -sum >= entropyThreshold; exact != fast {
			t.Errorf("highEntropy(%q) = %v, exact recomputation says %v", tok, fast, exact)
		}
	}
}

// naiveEntropyHits is the reference's entropy pass written the obvious,
// quadratic way: every token against every matched text.
func naiveEntropyHits(value string, spans []span) []string {
	var matched []string
	for _, sp := range spans {
		matched = append(matched, value[sp.start:sp.end])
	}
	var e entropyScorer
	var hits []string
	tokens(value, func(tok string) {
		if !entropyCandidate(tok, &e) {
			return
		}
		for _, m := range matched {
			if strings.Contains(m, tok) || strings.Contains(tok, m) {
				return
			}
		}
		hits = append(hits, tok)
		matched = append(matched, tok)
	})
	return hits
}

// TestEntropyHitsMatchNaive compares the containment index with the
// pairwise definition on inputs built to be full of substring and
// superstring relations.
func TestEntropyHitsMatchNaive(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_=-"
	randTok := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		return string(b)
	}
	related := 0
	for i := 0; i < 3000; i++ {
		var pool []string
		var b strings.Builder
		for n := 1 + r.Intn(12); n > 0; n-- {
			switch k := r.Intn(8); {
			case k < 3 || len(pool) == 0:
				tok := randTok(20 + r.Intn(40))
				pool = append(pool, tok)
				b.WriteString(tok)
			case k < 5:
				p := pool[r.Intn(len(pool))]
				a := r.Intn(len(p))
				b.WriteString(p[a:])
			case k < 6:
				p := pool[r.Intn(len(pool))]
				b.WriteString(randTok(r.Intn(6)) + p + randTok(r.Intn(6)))
			case k < 7:
				b.WriteString("sk-" + randTok(22))
			default:
				b.WriteString(pool[r.Intn(len(pool))])
			}
			b.WriteString([]string{" ", ".", ":", "\n", "é"}[r.Intn(5)])
		}
		value := b.String()
		spans := vendorSpans(value)
		got, want := entropyHits(value, spans), naiveEntropyHits(value, spans)
		if !slices.Equal(got, want) {
			t.Fatalf("entropyHits(%q)\n got  %q\n want %q", value, got, want)
		}
		var cands int
		tokens(value, func(tok string) {
			if entropyCandidate(tok, &entropyScorer{}) {
				cands++
			}
		})
		if cands > len(want) {
			related++
		}
	}
	// The comparison only means something if containment actually
	// suppressed candidates in a good share of the cases.
	if related < 500 {
		t.Fatalf("only %d of 3000 inputs exercised containment", related)
	}
}

// TestSecretMessagesLiteral pins every secret rule's message and severity as
// the literal bytes the reference writes.
func TestSecretMessagesLiteral(t *testing.T) {
	tests := []struct {
		value, rule, severity, message, snippet string
	}{
		{fakeOpenAI, "WRD-SEC-OPENAI", "critical", "WRD-SEC-OPENAI: possible secret in field", "sk-p…(len=27)"},
		{fakeGitHub, "WRD-SEC-GITHUB", "critical", "WRD-SEC-GITHUB: possible secret in field", "ghp_…(len=40)"},
		{fakeAWS, "WRD-SEC-AWS-AKID", "critical", "WRD-SEC-AWS-AKID: possible secret in field", "AKIA…(len=20)"},
		{fakeSlack, "WRD-SEC-SLACK", "critical", "WRD-SEC-SLACK: possible secret in field", "xoxb…(len=30)"},
		{fakePrivKey, "WRD-SEC-PRIVKEY", "critical", "WRD-SEC-PRIVKEY: possible secret in field", "----…(len=31)"},
		{fakeJWT, "WRD-SEC-JWT", "high", "WRD-SEC-JWT: possible secret in field", "eyJh…(len=56)"},
		{fakeEntropy, "WRD-SEC-ENTROPY", "high", "WRD-SEC-ENTROPY: high-entropy token (possible secret)", "Zq8X…(len=32)"},
	}
	for _, tc := range tests {
		got := ScanField(tc.value, "prompts/p")
		want := []lock.Finding{{RuleID: tc.rule, Severity: tc.severity, Target: "prompts/p", Message: tc.message, Snippet: tc.snippet}}
		if !slices.Equal(got, want) {
			t.Errorf("ScanField(%q)\n got  %v\n want %v", tc.value, got, want)
		}
	}
}

// checkLongTokens holds longTokens to tokens without the short runs.
func checkLongTokens(t *testing.T, s string) {
	t.Helper()
	for _, n := range []int{1, 2, 5, entropyMinLen} {
		var want, got []string
		tokens(s, func(tok string) {
			if len(tok) >= n {
				want = append(want, tok)
			}
		})
		longTokens(s, n, func(tok string) { got = append(got, tok) })
		if !slices.Equal(got, want) {
			t.Fatalf("longTokens(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
}

func TestLongTokens(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	pieces := []string{" ", ".", "é", ":", "a", "Z9", "+/=-_", strings.Repeat("x", 22), strings.Repeat("y", 23),
		strings.Repeat("k", 24), strings.Repeat("q", 25), strings.Repeat("w", 60)}
	checkLongTokens(t, "")
	for range 5000 {
		var b strings.Builder
		for n := r.Intn(10); n >= 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		checkLongTokens(t, b.String())
	}
}

func FuzzLongTokens(f *testing.F) {
	f.Add("the tool " + strings.Repeat("ab", 20) + " x")
	f.Fuzz(func(t *testing.T, s string) { checkLongTokens(t, s) })
}

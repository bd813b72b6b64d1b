package findings

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

var mayHoldSeeds = []string{
	"", "through the night", "ghp_" + strings.Repeat("a", 36), "x ghp_" + strings.Repeat("A1", 18) + " y",
	"sk-" + strings.Repeat("b", 24), "AKIA" + strings.Repeat("Z", 16), "xoxb-" + strings.Repeat("1", 12),
	"-----BEGIN RSA PRIVATE KEY-----", "eyJ" + strings.Repeat("a", 12) + "." + strings.Repeat("b", 12) + "." + strings.Repeat("c", 12),
	`{"enum":["ghs_` + strings.Repeat("q", 36) + `"]}`, "xoxo-nothing", "ghx_" + strings.Repeat("a", 36),
}

// mayHoldByPrefix is MayHoldVendorSecret as first written: a search for
// each rule's prefix, then its anchor. The key-byte search must agree with
// it on every input.
func mayHoldByPrefix(s string) bool {
	for _, r := range vendorRules {
		for i := 0; ; {
			j := strings.Index(s[i:], r.prefix)
			if j < 0 {
				break
			}
			at := i + j
			if r.anchor == nil || r.anchor(s, at) {
				return true
			}
			i = at + 1
		}
	}
	return false
}

// mayHoldKeyed is MayHoldVendorSecret as it was before the screen was
// grouped by key byte: one IndexByte pass a rule, for the rule's key byte,
// and the rule's prefix and anchor checked around each occurrence.
// MayHoldVendorSecret must agree with it on every input.
func mayHoldKeyed(s string) bool {
	if len(s) < 64 && !keyedHasKey(s) {
		return false
	}
	for _, r := range vendorRules {
		for i := r.keyAt; i < len(s); i++ {
			j := strings.IndexByte(s[i:], r.key)
			if j < 0 {
				break
			}
			i += j
			at := i - r.keyAt
			if strings.HasPrefix(s[at:], r.prefix) && (r.anchor == nil || r.anchor(s, at)) {
				return true
			}
		}
	}
	return false
}

// mayHoldKeyedBytes is MayHoldVendorSecretBytes as it was alongside
// mayHoldKeyed.
func mayHoldKeyedBytes(b []byte) bool {
	if len(b) < 64 && !keyedHasKey(string(b)) {
		return false
	}
	for _, r := range vendorRules {
		for i := r.keyAt; i < len(b); i++ {
			j := bytes.IndexByte(b[i:], r.key)
			if j < 0 {
				break
			}
			i += j
			at := i - r.keyAt
			if len(b)-at < len(r.prefix) || string(b[at:at+len(r.prefix)]) != r.prefix {
				continue
			}
			if r.anchor == nil || r.anchor(string(b[at:min(len(b), at+len(r.prefix)+2)]), 0) {
				return true
			}
		}
	}
	return false
}

// keyedHasKey reports whether s holds any vendor rule's key byte.
func keyedHasKey(s string) bool {
	for i := 0; i < len(s); i++ {
		for _, r := range vendorRules {
			if s[i] == r.key {
				return true
			}
		}
	}
	return false
}

// vendorSpansByPrefix is vendorSpans as first written: no screen, and every
// occurrence of each rule's prefix tried. vendorSpans must find the same.
func vendorSpansByPrefix(s string) []span {
	if s == "" {
		return nil
	}
	m := newMatcher(s)
	var spans []span
	for _, rule := range vendorRules {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], rule.prefix)
			if j < 0 {
				break
			}
			pos := i + j
			if !rule.wordStart || !wordBefore(s, pos) {
				if end := rule.match(m, pos); end >= 0 {
					spans = append(spans, span{rule: rule, start: pos, end: end})
					i = end
					continue
				}
			}
			i = pos + 1
		}
	}
	return spans
}

// checkMayHold: whenever the vendor patterns match in s, MayHoldVendorSecret
// says they may; and so it does for s embedded in compact JSON.
func checkMayHold(t *testing.T, s string) {
	t.Helper()
	if got, want := MayHoldVendorSecret(s), mayHoldByPrefix(s); got != want {
		t.Fatalf("MayHoldVendorSecret(%q) = %v, the prefix search says %v", s, got, want)
	}
	if got, want := MayHoldVendorSecret(s), mayHoldKeyed(s); got != want {
		t.Fatalf("MayHoldVendorSecret(%q) = %v, the keyed screen says %v", s, got, want)
	}
	if got, want := MayHoldVendorSecretBytes([]byte(s)), mayHoldKeyedBytes([]byte(s)); got != want {
		t.Fatalf("MayHoldVendorSecretBytes(%q) = %v, the keyed screen says %v", s, got, want)
	}
	if got, want := MayHoldVendorSecretBytes([]byte(s)), MayHoldVendorSecret(s); got != want {
		t.Fatalf("MayHoldVendorSecretBytes(%q) = %v, MayHoldVendorSecret says %v", s, got, want)
	}
	if got, want := vendorSpans(s), vendorSpansByPrefix(s); !slices.Equal(got, want) {
		t.Fatalf("vendorSpans(%q) = %v, the prefix search finds %v", s, got, want)
	}
	vendor := false
	for _, f := range ScanField(s, "t") {
		if f.RuleID != RuleSecEntropy {
			vendor = true
		}
	}
	if vendor && !MayHoldVendorSecret(s) {
		t.Fatalf("%q matches a vendor pattern, but MayHoldVendorSecret says no", s)
	}
	if maskVendorSecrets(s) != s && !MayHoldVendorSecret(s) {
		t.Fatalf("%q is masked, but MayHoldVendorSecret says no", s)
	}
	if vendor && !MayHoldVendorSecret(`{"k":["x",`+s+`]}`) {
		t.Fatalf("%q embedded: MayHoldVendorSecret says no", s)
	}
}

func TestMayHoldVendorSecret(t *testing.T) {
	for _, s := range mayHoldSeeds {
		checkMayHold(t, s)
	}
	for _, s := range []string{"through the night", "thorough", "xoxo", "ghx_" + strings.Repeat("a", 36), `{"type":["string"]}`} {
		if MayHoldVendorSecret(s) {
			t.Errorf("%q: MayHoldVendorSecret says yes", s)
		}
	}
}

// TestVendorRuleKeys: every text a rule's prefix and anchor accept has the
// rule's key byte at keyAt, which MayHoldVendorSecret relies on.
func TestVendorRuleKeys(t *testing.T) {
	for _, r := range vendorRules {
		if r.anchor == nil {
			if r.keyAt >= len(r.prefix) || r.prefix[r.keyAt] != r.key {
				t.Errorf("%s: key %q is not at %d of %q", r.id, r.key, r.keyAt, r.prefix)
			}
			continue
		}
		// The anchored rules fix the byte after the prefix to a set and
		// the next one to key: try every pair.
		accepted := 0
		for c := range 256 {
			for k := range 256 {
				s := r.prefix + string([]byte{byte(c), byte(k)})
				if !r.anchor(s, 0) {
					continue
				}
				accepted++
				if r.keyAt != len(r.prefix)+1 || byte(k) != r.key {
					t.Errorf("%s: the anchor accepts %q without key %q at %d", r.id, s, r.key, r.keyAt)
				}
			}
		}
		if accepted == 0 {
			t.Errorf("%s: the anchor accepts nothing", r.id)
		}
	}
}

func TestMayHoldAgreesWithPrefixSearch(t *testing.T) {
	// Every fixed text of every rule, cut short, at the ends and inside
	// other text.
	var pieces []string
	for _, r := range vendorRules {
		for _, fixed := range []string{r.prefix, r.prefix + "p_", r.prefix + "b-", r.prefix + "x_", r.prefix + "a-"} {
			for n := 0; n <= len(fixed); n++ {
				pieces = append(pieces, fixed[:n])
			}
		}
	}
	for _, p := range pieces {
		// Short strings are screened byte by byte, long ones rule by
		// rule: both lengths.
		pad := strings.Repeat("a", 64)
		for _, s := range []string{p, "a" + p, p + "z", "x-_KBJ" + p + "-_", `{"k":"` + p + `"}`, pad + p, p + pad, pad + "_-" + p + pad} {
			checkMayHold(t, s)
		}
	}
}

func FuzzMayHoldVendorSecret(f *testing.F) {
	for _, s := range mayHoldSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkMayHold(t, s)
	})
}

// checkMayHoldKeyed: both forms of the screen agree with the keyed screen
// on s.
func checkMayHoldKeyed(t *testing.T, s string) {
	t.Helper()
	want := mayHoldKeyed(s)
	if got := MayHoldVendorSecret(s); got != want {
		t.Fatalf("MayHoldVendorSecret(%q) = %v, the keyed screen says %v", s, got, want)
	}
	if got := MayHoldVendorSecretBytes([]byte(s)); got != want {
		t.Fatalf("MayHoldVendorSecretBytes(%q) = %v, the keyed screen says %v", s, got, want)
	}
	if got := mayHoldKeyedBytes([]byte(s)); got != want {
		t.Fatalf("mayHoldKeyedBytes(%q) = %v, mayHoldKeyed says %v", s, got, want)
	}
}

func TestMayHoldEdges(t *testing.T) {
	short := "through the night"                 // no key byte
	long := strings.Repeat("snake_case-ish ", 8) // 120 bytes, keys everywhere
	tests := []struct {
		s    string
		want bool
	}{
		{"", false},
		{"-", false}, {"_", false}, {"K", false}, {"J", false}, {"B", false},
		// Every prefix alone, cut short by one byte and missing a byte.
		{"sk-", true}, {"sk", false}, {"s-", false}, {"k-", false},
		{"ghp_", true}, {"gho_", true}, {"ghu_", true}, {"ghs_", true}, {"ghr_", true},
		{"ghx_", false}, {"ghp", false}, {"gp_", false}, {"hp_", false}, {"gh_", false}, {"ghpp_", false},
		{"AKIA", true}, {"AKI", false}, {"KIA", false}, {"AKIB", false},
		{"xoxb-", true}, {"xoxa-", true}, {"xoxp-", true}, {"xoxr-", true}, {"xoxs-", true},
		{"xoxo-", false}, {"xox-", false}, {"oxb-", false}, {"xoxb", false},
		{"-----BEGIN ", true}, {"-----BEGIN", false}, {"----BEGIN ", false}, {"------BEGIN ", true},
		{"eyJ", true}, {"ey", false}, {"yJ", false}, {"eJ", false},
		// The key byte at the first and the last position.
		{"-sk", false}, {"_gh", false}, {"KAIA", false}, {"Jey", false},
		// Overlaps the leapfrog must not skip.
		{"gghp_", true}, {"hghs_", true}, {"h_ghs_", true}, {"ghh_", false}, {"g_hp_", false},
		{"ghp__", true}, {"_ghp_", true}, {"gh_ghp_", true}, {"hhhh_ghr_", true}, {"h_h_h_", false},
		{"ssk-", true}, {"xxoxb-", true}, {"xox--", false}, {"AAKIA", true}, {"eeyJ", true}, {"eyeyJ", true},
	}
	for _, tc := range tests {
		// Neither padding makes or breaks a prefix next to these texts.
		for _, s := range []string{tc.s, short + tc.s, tc.s + short, short + tc.s + short, long + tc.s, tc.s + long, long + tc.s + long} {
			if got := MayHoldVendorSecret(s); got != tc.want {
				t.Errorf("MayHoldVendorSecret(%q) = %v, want %v", s, got, tc.want)
			}
			if got := MayHoldVendorSecretBytes([]byte(s)); got != tc.want {
				t.Errorf("MayHoldVendorSecretBytes(%q) = %v, want %v", s, got, tc.want)
			}
			checkMayHoldKeyed(t, s)
		}
		// These may: only agreement is checked.
		for _, pad := range []string{"h", "_", "g", "-", "x"} {
			pad = strings.Repeat(pad, 64)
			checkMayHoldKeyed(t, pad+tc.s)
			checkMayHoldKeyed(t, tc.s+pad)
		}
	}
	// Lengths around the short-string path.
	for n := 0; n <= 70; n++ {
		for _, p := range []string{"sk-", "ghp_", "AKIA", "xoxb-", "-----BEGIN ", "eyJ", "gh_", "xo-", "KJ"} {
			if n >= len(p) {
				pad := strings.Repeat("a", n-len(p))
				checkMayHoldKeyed(t, pad+p)
				checkMayHoldKeyed(t, p+pad)
			}
		}
	}
}

// TestMayHoldExhaustive: every short text over the bytes the prefixes are
// made of, alone and inside text long enough for the vectorised passes.
func TestMayHoldExhaustive(t *testing.T) {
	const alphabet = "-_ghpsxobKAIJey"
	const maxLen = 4
	pad := strings.Repeat("h_", 32)
	buf := make([]byte, 0, maxLen)
	var walk func()
	walk = func() {
		s := string(buf)
		checkMayHoldKeyed(t, s)
		checkMayHoldKeyed(t, pad+s)
		checkMayHoldKeyed(t, s+pad)
		if len(buf) == maxLen {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			buf = append(buf, alphabet[i])
			walk()
			buf = buf[:len(buf)-1]
		}
	}
	walk()
}

// FuzzMayHoldKeyed compares the screen with the keyed screen it replaced,
// on the fuzzed text alone and between paddings that make it long.
func FuzzMayHoldKeyed(f *testing.F) {
	for _, s := range mayHoldSeeds {
		f.Add(s, uint8(0), uint8(0))
	}
	f.Add("h_ghs_", uint8(70), uint8(3))
	f.Add("snake_case-ish", uint8(64), uint8(64))
	f.Fuzz(func(t *testing.T, s string, before, after uint8) {
		checkMayHoldKeyed(t, s)
		const fill = "a_h-g_Jx-K"
		var b strings.Builder
		for i := range int(before) {
			b.WriteByte(fill[i%len(fill)])
		}
		b.WriteString(s)
		for i := range int(after) {
			b.WriteByte(fill[(i+3)%len(fill)])
		}
		checkMayHoldKeyed(t, b.String())
	})
}

package findings

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/lock"
)

// Entropy-pass parameters (reference-behaviour §6.3).
const (
	entropyMinLen    = 24
	entropyThreshold = 4.0
	alnumDominance   = 0.80
)

// Redact renders a secret so that a finding can point at it without storing
// it: the first min(4, n/2) code points, an ellipsis (U+2026), then
// "(len=<n>)", where n is the length in code points; "(len<=3)" replaces the
// length when n <= 3. For example "sk-a…(len=23)", "sk…(len=4)", "a…(len<=3)".
// At most half of the value, and never more than four characters, is shown.
func Redact(s string) string {
	n := utf8.RuneCountInString(s)
	keep := min(4, n/2)
	cut := 0
	for i := 0; i < keep; i++ {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	if n <= 3 {
		return s[:cut] + "…(len<=3)"
	}
	return s[:cut] + "…(len=" + strconv.Itoa(n) + ")"
}

// ScanField runs the secret scanner over one string field and returns its
// findings for target, in the reference's order: every match of each vendor
// pattern in turn, then the high-entropy tokens. Snippets are always
// redacted. An empty value yields nothing.
func ScanField(value, target string) []lock.Finding {
	if value == "" {
		return nil
	}
	spans := vendorSpans(value)
	return appendFieldFindings(make([]lock.Finding, 0, len(spans)), value, target, spans)
}

// appendField appends ScanField(value, target) to out: a tool's many
// fields (enum members, defaults) are scanned into the Scanner's list
// without a slice of their own each.
func appendField(out []lock.Finding, value, target string) []lock.Finding {
	if value == "" {
		return out
	}
	return appendFieldFindings(out, value, target, vendorSpans(value))
}

// appendFieldFindings appends the findings of value, given its vendor
// matches, to out.
func appendFieldFindings(out []lock.Finding, value, target string, spans []span) []lock.Finding {
	for _, sp := range spans {
		out = append(out, lock.Finding{
			RuleID:   sp.rule.id,
			Severity: sp.rule.severity,
			Target:   target,
			Message:  sp.rule.message,
			Snippet:  Redact(value[sp.start:sp.end]),
		})
	}
	// A value shorter than a candidate token has no entropy hit: most
	// enum members and defaults are.
	if len(value) < entropyMinLen {
		return out
	}
	for _, tok := range entropyHits(value, spans) {
		out = append(out, lock.Finding{
			RuleID:   RuleSecEntropy,
			Severity: High,
			Target:   target,
			Message:  RuleSecEntropy + ": high-entropy token (possible secret)",
			Snippet:  Redact(tok),
		})
	}
	return out
}

// MayHoldVendorSecret reports whether s could hold a match of a vendor
// secret pattern: false when s contains none of the patterns' fixed
// prefixes, with which every match begins (for the GitHub and Slack
// patterns, the prefix and the characters the pattern fixes after it:
// "ghp_", "xoxb-" and so on). Text that embeds strings with their printable
// ASCII unchanged — compact JSON, for one — can be tested as a whole:
// without a prefix in it, no string in it can match.
func MayHoldVendorSecret(s string) bool { return mayHold(s, strings.IndexByte) }

// MayHoldVendorSecretBytes is MayHoldVendorSecret for text held as bytes
// (a lock entry just written, say), which it screens in place: converting
// kilobytes of text to a string only to screen it would copy them all.
func MayHoldVendorSecretBytes(b []byte) bool { return mayHold(b, bytes.IndexByte) }

// mayHold is MayHoldVendorSecret for either form of text, given the
// form's IndexByte.
//
// The prefixes are "sk-", "gh?_", "AKIA", "xox?-", "-----BEGIN " and
// "eyJ". Every one holds one of four key bytes, rarer than the prefixes'
// first bytes ("s", "g", "e" are everywhere): '-' (sk-, xox?-, -----BEGIN),
// '_' (gh?_), 'K' (AKIA) and 'J' (eyJ). Each key is found by a vectorised
// IndexByte pass, and the bytes around each occurrence are checked: four
// passes, one a key. (Four is the least: "sk-", "gh?_", "AKIA" and "eyJ"
// share no byte.)
func mayHold[T string | []byte](s T, indexByte func(T, byte) int) bool {
	// A short string (a name, an enum member) is read once for any key
	// byte rather than once a key.
	if len(s) < 64 && !hasScreenKey(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		j := indexByte(s[i:], '-')
		if j < 0 {
			break
		}
		i += j
		if i >= 2 && s[i-1] == 'k' && s[i-2] == 's' ||
			i >= 4 && s[i-4] == 'x' && s[i-3] == 'o' && s[i-2] == 'x' && slackKinds[s[i-1]] ||
			hasPrivKeyHeader(s, i) {
			return true
		}
	}
	if mayHoldGitHub(s, indexByte) {
		return true
	}
	for i := 1; i < len(s); i++ {
		j := indexByte(s[i:], 'K')
		if j < 0 {
			break
		}
		i += j
		if i+2 < len(s) && s[i-1] == 'A' && s[i+1] == 'I' && s[i+2] == 'A' {
			return true
		}
	}
	for i := 2; i < len(s); i++ {
		j := indexByte(s[i:], 'J')
		if j < 0 {
			break
		}
		i += j
		if s[i-1] == 'y' && s[i-2] == 'e' {
			return true
		}
	}
	return false
}

// mayHoldGitHub reports whether s holds "gh", one of p o u s r, then "_".
//
// '_' is everywhere in snake_case keys and names, and so are 'g' and 'h':
// stopping at every '_' costs more than the pass itself. So the search
// leapfrogs between the '_' at q and the 'h' at q-2 that a match needs:
// where q-2 holds no 'h', the next candidate '_' is two past the next 'h',
// and the '_' before it are passed over in the same IndexByte call.
func mayHoldGitHub[T string | []byte](s T, indexByte func(T, byte) int) bool {
	// No match has its '_' before q.
	for q := 3; q < len(s); {
		if s[q] != '_' {
			j := indexByte(s[q:], '_')
			if j < 0 {
				return false
			}
			q += j
		}
		if s[q-2] != 'h' {
			// A match's 'h' is at q-1 or later.
			j := indexByte(s[q-1:], 'h')
			if j < 0 {
				return false
			}
			q += j + 1
			continue
		}
		if s[q-3] == 'g' && gitHubKinds[s[q-1]] {
			return true
		}
		q++
	}
	return false
}

// privKeyHeader is the fixed start of the private-key pattern.
const privKeyHeader = "-----BEGIN "

// hasPrivKeyHeader reports whether s holds privKeyHeader at i.
func hasPrivKeyHeader[T string | []byte](s T, i int) bool {
	if len(s)-i < len(privKeyHeader) {
		return false
	}
	for k := 0; k < len(privKeyHeader); k++ {
		if s[i+k] != privKeyHeader[k] {
			return false
		}
	}
	return true
}

// byteSet returns the table of the bytes of set.
func byteSet(set string) (t [256]bool) {
	for i := 0; i < len(set); i++ {
		t[set[i]] = true
	}
	return t
}

// gitHubKinds, slackKinds and screenKeys are the bytes of "pousr" (after
// "gh"), of "baprs" (after "xox") and mayHold's key bytes, as tables.
var (
	gitHubKinds = byteSet("pousr")
	slackKinds  = byteSet("baprs")
	screenKeys  = byteSet("-_KJ")
)

// hasScreenKey reports whether s holds any of mayHold's key bytes.
func hasScreenKey[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if screenKeys[s[i]] {
			return true
		}
	}
	return false
}

// isTokenByte is the entropy pass's token alphabet [A-Za-z0-9+/_=.-]; the
// value is split on runs of anything else.
func isTokenByte(c byte) bool { return tokenBytes[c] }

// tokenBytes is isTokenByte as a table: descriptions are long, and one
// load a byte beats seven comparisons.
var tokenBytes = func() (t [256]bool) {
	for c := range 256 {
		b := byte(c)
		t[c] = isAlnum(b) || b == '+' || b == '/' || b == '_' || b == '=' || b == '.' || b == '-'
	}
	return t
}()

// tokens calls f with every maximal run of token bytes in s, in order.
func tokens(s string, f func(tok string)) {
	for i := 0; i < len(s); {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		// The run is scanned here rather than by runEnd, so that the byte
		// test is inlined: descriptions are long.
		j := i + 1
		for j < len(s) && isTokenByte(s[j]) {
			j++
		}
		f(s[i:j])
		i = j
	}
}

// longTokens calls f with every maximal run of token bytes in s at least
// n bytes long (n > 0), in order: tokens without the short ones, which
// are most of prose. Such a run that starts at or after i covers i+n-1, so
// the byte there is tested first: when it is not a token byte, nothing
// before it needs a look; when it is, its run is found from there.
func longTokens(s string, n int, f func(tok string)) {
	// Before i, every run has been reported or ruled out, and s[i-1] is
	// not a token byte (or i is 0).
	for i := 0; i+n <= len(s); {
		j := i + n - 1
		if !isTokenByte(s[j]) {
			i = j + 1
			continue
		}
		start := j
		for start > i && isTokenByte(s[start-1]) {
			start--
		}
		end := j + 1
		for end < len(s) && isTokenByte(s[end]) {
			end++
		}
		if end-start >= n {
			f(s[start:end])
		}
		i = end + 1
	}
}

// entropyCandidate applies the entropy pass's per-token tests, the ones that
// do not depend on earlier matches: at least 24 characters, none of them '.'
// (the token must fully match [A-Za-z0-9+/_=-]{20,}), an ASCII alphanumeric
// share of at least 0.80 and a Shannon entropy of at least 4.0 bits.
func entropyCandidate(tok string, e *entropyScorer) bool {
	if len(tok) < entropyMinLen || strings.IndexByte(tok, '.') >= 0 {
		return false
	}
	alnum := 0
	for i := 0; i < len(tok); i++ {
		if isAlnum(tok[i]) {
			alnum++
		}
	}
	if float64(alnum)/float64(len(tok)) < alnumDominance {
		return false
	}
	return e.highEntropy(tok)
}

// entropyHits returns the tokens of value the entropy pass reports, in
// order, given the vendor matches already found in it.
//
// The reference skips a token that is a substring or a superstring of any
// earlier matched text (vendor matches and earlier entropy hits), comparing
// contents, not positions. Checked pairwise that is quadratic; here the
// candidates and the matched texts go into one containment index (see
// containIndex), which answers each question in time proportional to the
// token's length times a logarithm.
func entropyHits(value string, spans []span) []string {
	var cands []string
	var scorer entropyScorer
	var seen map[string]bool // made for the first long token: most values have none
	longTokens(value, entropyMinLen, func(tok string) {
		// A repeated token never becomes a new hit: if its first
		// occurrence was a hit, it is a substring of that hit; if not,
		// whatever stopped the first occurrence stops it too.
		if seen[tok] {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[tok] = true
		if entropyCandidate(tok, &scorer) {
			cands = append(cands, tok)
		}
	})
	if len(cands) == 0 {
		return nil
	}
	idx := newContainIndex(cands, matchedTexts(value, spans))
	var hits []string
	for i, c := range cands {
		if idx.related(i) {
			continue
		}
		hits = append(hits, c)
		idx.register(i)
	}
	return hits
}

// matchedTexts returns the distinct vendor-matched texts of value.
func matchedTexts(value string, spans []span) []string {
	var out []string
	seen := map[string]bool{}
	for _, sp := range spans {
		t := value[sp.start:sp.end]
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// maskVendorSecrets replaces every vendor-pattern match in s (overlapping
// matches merged) by its redaction. It is applied to the finding fields that
// echo raw input — targets, supply-chain snippets, capability evidence — so
// that no finding carries a recognisable credential (SPEC §9). Tokens only
// the entropy heuristic flags are left alone: that heuristic also fires on
// ordinary package and tool names, and masking those would change findings
// the reference emits for perfectly normal servers.
func maskVendorSecrets(s string) string {
	return maskSpans(s, vendorSpans(s))
}

// vendorSpans are the vendor-pattern matches in s.
func vendorSpans(s string) []span {
	// Every match passes the screen, and most strings (enum members,
	// defaults, prose) do not: they cost no matcher.
	if !MayHoldVendorSecret(s) {
		return nil
	}
	m := newMatcher(s)
	var spans []span
	for _, r := range vendorRules {
		spans = m.find(r, spans)
	}
	return spans
}

// maskSpans replaces the spans of s (overlapping ones merged) by their
// redaction.
func maskSpans(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start < end; i++ {
			end = max(end, spans[i].end)
		}
		b.WriteString(s[last:start])
		b.WriteString(Redact(s[start:end]))
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

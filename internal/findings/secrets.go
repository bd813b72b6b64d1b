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
	out := make([]lock.Finding, 0, len(spans))
	for _, sp := range spans {
		out = append(out, lock.Finding{
			RuleID:   sp.rule.id,
			Severity: sp.rule.severity,
			Target:   target,
			Message:  sp.rule.message,
			Snippet:  Redact(value[sp.start:sp.end]),
		})
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
func MayHoldVendorSecret(s string) bool {
	// A short string (a name, an enum member) is read once for any key
	// byte rather than once a rule.
	if len(s) < 64 && !hasKeyByte(s) {
		return false
	}
	// Each rule's key byte is rare where its prefix's first byte ("s",
	// "g", "e") is everywhere, so finding the key and checking around it
	// costs one vectorised IndexByte pass a rule and few checks.
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

// MayHoldVendorSecretBytes is MayHoldVendorSecret for text held as bytes
// (a lock entry just written, say), which it screens in place: converting
// kilobytes of text to a string only to screen it would copy them all.
func MayHoldVendorSecretBytes(b []byte) bool {
	if len(b) < 64 && !hasKeyByteBytes(b) {
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
			// The anchor reads the bytes just past the prefix, and a
			// prefix occurrence with a key byte in place is rare: copying
			// those few costs nothing worth avoiding.
			if r.anchor == nil || r.anchor(string(b[at:min(len(b), at+len(r.prefix)+2)]), 0) {
				return true
			}
		}
	}
	return false
}

// hasKeyByteBytes is hasKeyByte for bytes.
func hasKeyByteBytes(b []byte) bool {
	for _, c := range b {
		if keyBytes[c] {
			return true
		}
	}
	return false
}

// keyBytes marks the vendor rules' key bytes.
var keyBytes = func() (t [256]bool) {
	for _, r := range vendorRules {
		t[r.key] = true
	}
	return t
}()

// hasKeyByte reports whether s holds any vendor rule's key byte.
func hasKeyByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if keyBytes[s[i]] {
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

package findings

import (
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

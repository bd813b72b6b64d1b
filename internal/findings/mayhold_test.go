package findings

import (
	"strings"
	"testing"
)

var mayHoldSeeds = []string{
	"", "through the night", "ghp_" + strings.Repeat("a", 36), "x ghp_" + strings.Repeat("A1", 18) + " y",
	"sk-" + strings.Repeat("b", 24), "AKIA" + strings.Repeat("Z", 16), "xoxb-" + strings.Repeat("1", 12),
	"-----BEGIN RSA PRIVATE KEY-----", "eyJ" + strings.Repeat("a", 12) + "." + strings.Repeat("b", 12) + "." + strings.Repeat("c", 12),
	`{"enum":["ghs_` + strings.Repeat("q", 36) + `"]}`, "xoxo-nothing", "ghx_" + strings.Repeat("a", 36),
}

// checkMayHold: whenever the vendor patterns match in s, MayHoldVendorSecret
// says they may; and so it does for s embedded in compact JSON.
func checkMayHold(t *testing.T, s string) {
	t.Helper()
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

func FuzzMayHoldVendorSecret(f *testing.F) {
	for _, s := range mayHoldSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkMayHold(t, s)
	})
}

package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	sampleDir      = "locks/npm/@modelcontextprotocol__server-memory/2026.8.31"
	sampleCoord    = "npm:@modelcontextprotocol/server-memory@2026.8.31"
	sampleIdentity = "https://github.com/DataScience-EngineeringExperts/mcp-warden-locks/.github/workflows/attest.yml@refs/heads/main"
	sampleIssuer   = "https://token.actions.githubusercontent.com"
)

func TestParseSigstoreInputs(t *testing.T) {
	base := map[string]string{"server-cmd": "srv"}
	for _, c := range []struct {
		in   map[string]string
		want string
	}{
		{map[string]string{"sign": "true", "coordinate": "npm:a@1.0.0"}, "only used with mode: pin"},
		{map[string]string{"mode": "pin", "verify": "true", "coordinate": "npm:a@1.0.0"}, "only used with mode: check"},
		{map[string]string{"mode": "pin", "sign": "true"}, "input coordinate: required"},
		{map[string]string{"mode": "pin", "sign": "yes"}, "not true or false"},
		{map[string]string{"mode": "pin", "sign": "true", "coordinate": "npm:a@latest-1 x"}, "input coordinate"},
		{map[string]string{"verify": "true", "coordinate": "npm:a@1.0.0"}, "needs certificate-identity"},
		{map[string]string{"coordinate": "npm:a@1.0.0"}, "only used with sign: true or verify: true"},
		{map[string]string{"mode": "pin", "sign": "true", "coordinate": "npm:a@1.0.0", "certificate-identity": "x"}, "only used with verify"},
	} {
		get := func(k string) string {
			if v, ok := c.in[k]; ok {
				return v
			}
			return base[k]
		}
		if _, err := ParseInputs(get); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.in, err, c.want)
		}
	}
	in, err := ParseInputs(func(k string) string {
		return map[string]string{"server-cmd": "srv", "verify": "true", "coordinate": sampleCoord,
			"certificate-identity": sampleIdentity, "certificate-oidc-issuer": sampleIssuer}[k]
	})
	if err != nil || !in.Sigstore.Verify || in.Sigstore.Coordinate != sampleCoord {
		t.Fatalf("ParseInputs = %+v, %v", in.Sigstore, err)
	}
}

// TestActionVerifyBeforeCapture: with verify: true a check verifies the
// lock's bundle first; a wrong identity fails the run without spawning the
// server, the right one lets the check go on.
func TestActionVerifyBeforeCapture(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "community-sample", sampleDir)
	lockText, err := os.ReadFile(filepath.Join(src, "dse-nightly.lock"))
	if err != nil {
		t.Skipf("community sample absent: %v", err)
	}
	bundle, err := os.ReadFile(filepath.Join(src, "dse-nightly.lock.sigstore"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	for name, b := range map[string][]byte{"warden.lock": lockText, "warden.lock.sigstore": bundle} {
		if err := os.WriteFile(filepath.Join(h.ws, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(h.ws, "spawned")
	setup := func(identity string) {
		h.reset()
		h.input("server-cmd", "touch "+marker)
		h.input("verify", "true")
		h.input("coordinate", sampleCoord)
		h.input("certificate-identity", identity)
		h.input("certificate-oidc-issuer", sampleIssuer)
	}
	setup(sampleIdentity + "x")
	r := h.run()
	assertFailed(t, h, r, "wrong identity")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server was spawned although verification failed")
	}
	setup(sampleIdentity)
	r = h.run()
	if !strings.Contains(r.stderr, "verified: warden.lock is signed by "+sampleIdentity) {
		t.Fatalf("no verified line: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("after verification the check did not go on to spawn the server: %v", err)
	}
}

func TestActionSignNeedsToken(t *testing.T) {
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "surface.json"), []byte(`{"command": "node", "args": ["s.js"], "tools": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h.input("mode", "pin")
	h.input("surface", "surface.json")
	h.input("sign", "true")
	h.input("coordinate", "npm:@acme/demo@1.0.0")
	r := h.run()
	assertFailed(t, h, r, "id-token: write")
	if _, err := os.Stat(filepath.Join(h.ws, "warden.lock")); err == nil {
		t.Error("a lock was written although signing could not happen")
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/attest/attesttest"
)

const signSurface = `{"command": "node", "args": ["s.js"], "tools": [{"name": "read_file", "description": "reads", "inputSchema": {"type": "object"}}]}`

// TestPinSignCheckVerify runs pin --sign against a local Fulcio and Rekor,
// then check --verify --offline-bundle with the local trusted root: the
// signed lock verifies; an edited lock, another coordinate, another
// identity and a missing bundle exit 2.
func TestPinSignCheckVerify(t *testing.T) {
	ts := attesttest.New(t)
	dir := t.TempDir()
	surface := filepath.Join(dir, "surface.json")
	rootPath := filepath.Join(dir, "trusted_root.json")
	lockPath := filepath.Join(dir, "warden.lock")
	for p, b := range map[string][]byte{surface: []byte(signSurface), rootPath: ts.TrustedRootJSON()} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"SIGSTORE_ID_TOKEN": ts.Token()}
	const coord = "npm:@acme/demo@1.0.0"
	code, out, errs := runEnv(t, env, "pin", "--surface", surface, "--lock", lockPath, "--sign", "--coordinate", coord,
		"--fulcio-url", ts.FulcioURL(), "--rekor-url", ts.RekorURL())
	if code != ExitClean || !strings.Contains(out, "signed: "+lockPath+" for "+coord) {
		t.Fatalf("pin --sign: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out+errs, ts.Token()) {
		t.Fatal("the output shows the token")
	}
	verify := func(lock, coordinate, identity string) (int, string, string) {
		return runEnv(t, nil, "check", "--lock", lock, "--verify", "--offline-bundle", "--coordinate", coordinate,
			"--certificate-identity", identity, "--certificate-oidc-issuer", ts.Issuer(), "--trusted-root", rootPath)
	}
	code, out, errs = verify(lockPath, coord, ts.Subject())
	if code != ExitClean || !strings.Contains(out, "verified: "+lockPath+" is signed by "+ts.Subject()) || !strings.Contains(out, "Rekor log index 7001") {
		t.Fatalf("check --verify: exit %d\n%s%s", code, out, errs)
	}
	// The embedded public-good root does not trust the local Sigstore.
	if code, _, errs := runEnv(t, nil, "check", "--lock", lockPath, "--verify", "--offline-bundle", "--coordinate", coord,
		"--certificate-identity", ts.Subject(), "--certificate-oidc-issuer", ts.Issuer()); code != ExitError {
		t.Errorf("public-good root: exit %d, %s", code, errs)
	}
	if code, _, errs := verify(lockPath, "npm:@acme/other@1.0.0", ts.Subject()); code != ExitError || !strings.Contains(errs, "signs another statement") {
		t.Errorf("other coordinate: exit %d, %s", code, errs)
	}
	if code, _, errs := verify(lockPath, coord, ts.Subject()+"x"); code != ExitError || !strings.Contains(errs, "wrong identity") {
		t.Errorf("other identity: exit %d, %s", code, errs)
	}
	// Re-pin another surface without signing: the lock's digest changes,
	// the old bundle no longer verifies for it.
	edited := strings.Replace(signSurface, "read_file", "write_file", 1)
	if err := os.WriteFile(surface, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runEnv(t, nil, "pin", "--surface", surface, "--lock", lockPath); code != ExitClean {
		t.Fatalf("re-pin: %s", errs)
	}
	if code, _, errs := verify(lockPath, coord, ts.Subject()); code != ExitError || !strings.Contains(errs, "signs another statement") {
		t.Errorf("edited lock: exit %d, %s", code, errs)
	}
	// A failed signing removes the bundle that signed the previous lock.
	code, _, errs = runEnv(t, map[string]string{"SIGSTORE_ID_TOKEN": attesttest.TestJWT("intruder")}, "pin", "--surface", surface, "--lock", lockPath,
		"--sign", "--coordinate", coord, "--fulcio-url", ts.FulcioURL(), "--rekor-url", ts.RekorURL())
	if code != ExitError || !strings.Contains(errs, "was written, but signing it failed") || !strings.Contains(errs, "was removed") {
		t.Errorf("failed signing: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(lockPath + ".sigstore"); !os.IsNotExist(err) {
		t.Errorf("a stale bundle is left: %v", err)
	}
	if code, _, errs := verify(lockPath, coord, ts.Subject()); code != ExitError || !strings.Contains(errs, "read bundle") {
		t.Errorf("no bundle: exit %d, %s", code, errs)
	}
}

func TestSignVerifyFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"pin", "--sign", "--", "true"}, nil, "--sign needs --coordinate"},
		{[]string{"pin", "--coordinate", "npm:a@1.0.0", "--", "true"}, nil, "--coordinate is for --sign"},
		{[]string{"pin", "--sign", "--coordinate", "npm:a@^1", "--", "true"}, nil, "version must be exact"},
		{[]string{"pin", "--sign", "--coordinate", "npm:a@1.0.0", "--", "true"}, nil, "OIDC identity token"},
		{[]string{"check", "--verify", "--offline-bundle", "--", "true"}, nil, "--verify needs --coordinate"},
		{[]string{"check", "--offline-bundle", "--", "true"}, nil, "need --verify"},
		{[]string{"check", "--verify", "--coordinate", "npm:a@1.0.0", "--lock", "nonexistent.lock", "--", "true"}, nil, "--certificate-identity"},
		{[]string{"trust-root"}, nil, "usage: warden trust-root refresh"},
	} {
		code, _, errs := runEnv(t, c.env, c.args...)
		if code != ExitError || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, errs, c.want)
		}
	}
}

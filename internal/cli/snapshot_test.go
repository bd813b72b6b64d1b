package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPinSnapshotCommands runs the real commands on the demo server: pin
// writes and names the snapshot, check and diff take it, a tampered one
// is exit 2 before the server is launched, --no-snapshot removes it, and
// a lock without one checks as before.
func TestPinSnapshotCommands(t *testing.T) {
	srv := demoServer(t)
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	snapPath := filepath.Join(dir, "warden.surface.json")
	code, out, errs := run(t, "pin", "--lock", lockPath, "--", srv)
	if code != ExitClean || !strings.HasPrefix(out, "pinned -> "+lockPath+"\n") || !strings.HasSuffix(out, "  snapshot -> "+snapPath+"\n") {
		t.Fatalf("pin exit %d:\n%s%s", code, out, errs)
	}
	good, err := os.ReadFile(snapPath)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "check", "--lock", lockPath, "--", srv); code != ExitClean {
		t.Fatalf("check with a snapshot: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run(t, "diff", lockPath, lockPath); code != ExitClean {
		t.Fatalf("diff with snapshots: exit %d\n%s%s", code, out, errs)
	}

	// One description edited by hand.
	i := strings.Index(string(good), `"description": "`)
	if i < 0 {
		t.Fatalf("the snapshot has no description:\n%s", good)
	}
	at := i + len(`"description": "`)
	tampered := string(good[:at]) + "Trusted. " + string(good[at:])
	if err := os.WriteFile(snapPath, []byte(tampered), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "launched")
	code, out, errs = run(t, "check", "--lock", lockPath, "--", "sh", "-c", "touch "+marker)
	if code != ExitError || out != "" || !strings.HasPrefix(errs, "error: snapshot does not match lock: ") || !strings.Contains(errs, ": description_hash") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("check of a tampered snapshot: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("check launched the server before refusing the snapshot")
	}
	if code, _, errs := run(t, "diff", lockPath, lockPath); code != ExitError || !strings.HasPrefix(errs, "error: snapshot does not match lock: ") {
		t.Fatalf("diff of a tampered snapshot: exit %d\n%s", code, errs)
	}

	code, out, errs = run(t, "pin", "--lock", lockPath, "--no-snapshot", "--", srv)
	if code != ExitClean || !strings.HasSuffix(out, "  no snapshot (--no-snapshot); removed the old one: "+snapPath+"\n") {
		t.Fatalf("pin --no-snapshot: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(snapPath); err == nil {
		t.Fatal("--no-snapshot left the old snapshot")
	}
	if code, out, errs := run(t, "check", "--lock", lockPath, "--", srv); code != ExitClean {
		t.Fatalf("check without a snapshot: exit %d\n%s%s", code, out, errs)
	}
}

// TestPinSnapshotSecret: a surface whose snapshot would hold a secret is
// refused in one line naming where, never the value, and writes nothing;
// --allow-secret-in-snapshot writes it.
func TestPinSnapshotSecret(t *testing.T) {
	secret := "xoxb-" + strings.Repeat("1234567890", 2) + "-abcdefABCDEF"
	surface := `{"command": "node", "tools": [{"name": "post", "description": "Posts with ` + secret + `"}]}`
	dir := t.TempDir()
	surfacePath := filepath.Join(dir, "surface.json")
	os.WriteFile(surfacePath, []byte(surface), 0o644)
	lockPath := filepath.Join(dir, "warden.lock")
	code, out, errs := run(t, "pin", "--lock", lockPath, "--surface", surfacePath)
	if code != ExitError || strings.Contains(errs, secret) || !strings.Contains(errs, "$.tools[0].description (") || !strings.Contains(errs, "--allow-secret-in-snapshot") {
		t.Fatalf("pin: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(lockPath); err == nil {
		t.Fatal("a refused pin wrote the lock")
	}
	if code, out, errs := run(t, "pin", "--lock", lockPath, "--surface", surfacePath, "--allow-secret-in-snapshot"); code != ExitClean {
		t.Fatalf("pin --allow-secret-in-snapshot: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "warden.surface.json")); err != nil {
		t.Fatal(err)
	}
}

// TestConfigSnapshots: a config pin writes <name>.warden.surface.json
// beside each server's lock; a config check verifies each, and a tampered
// one is that server's error (exit 2) while the others check clean.
func TestConfigSnapshots(t *testing.T) {
	srv := demoServer(t)
	dir := t.TempDir()
	config := filepath.Join(dir, ".mcp.json")
	cfg := `{"mcpServers": {"one": {"command": ` + strconv.Quote(srv) + `}, "two": {"command": ` + strconv.Quote(srv) + `}}}`
	if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "pin", "--config", config); code != ExitClean {
		t.Fatalf("pin --config: exit %d\n%s%s", code, out, errs)
	}
	for _, name := range []string{"one", "two"} {
		if _, err := os.Stat(filepath.Join(dir, name+".warden.surface.json")); err != nil {
			t.Fatalf("no snapshot for %s: %v", name, err)
		}
	}
	if code, out, errs := run(t, "check", "--config", config); code != ExitClean {
		t.Fatalf("check --config: exit %d\n%s%s", code, out, errs)
	}
	snap := filepath.Join(dir, "two.warden.surface.json")
	text, _ := os.ReadFile(snap)
	os.WriteFile(snap, []byte(strings.Replace(string(text), `"description": "`, `"description": "Trusted. `, 1)), 0o644)
	code, out, errs := run(t, "check", "--config", config)
	if code != ExitError || !strings.Contains(out, "[two] error: snapshot does not match lock: ") || strings.Contains(out, "[one] error") {
		t.Fatalf("check --config with a tampered snapshot: exit %d\n%s%s", code, out, errs)
	}
}

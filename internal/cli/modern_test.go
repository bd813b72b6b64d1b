//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/testserver"
)

func modernScript(t *testing.T) string {
	t.Helper()
	return testserver.NodeScript(t, testserver.ModernServerJS)
}

// TestModernOnlyServerPinsAndChecks is the first "done when": a
// server on the official TypeScript SDK 2.4.0 that refuses the 2025-era
// handshake pins and re-checks clean over stdio and over HTTP, recording the
// revision it spoke.
func TestModernOnlyServerPinsAndChecks(t *testing.T) {
	script := modernScript(t)
	stdio := []string{"--", "node", script, "-mode", "strict"}
	http := []string{"--url", testserver.StartHTTP(t, "node", script, "-mode", "strict")}
	digests := map[string]string{}
	for name, target := range map[string][]string{"stdio": stdio, "http": http} {
		t.Run(name, func(t *testing.T) {
			lockPath := filepath.Join(t.TempDir(), "warden.lock")
			code, out, errs := run(t, append([]string{"pin", "--lock", lockPath}, target...)...)
			if code != ExitClean {
				t.Fatalf("pin exit %d: %s%s", code, out, errs)
			}
			l, err := lock.ReadFile(lockPath)
			if err != nil {
				t.Fatal(err)
			}
			if l.Pin.MCPProtocolVersion != capture.ModernProtocolVersion {
				t.Errorf("pin.mcp_protocol_version = %q", l.Pin.MCPProtocolVersion)
			}
			if len(l.Tools) != 3 || len(l.Resources) != 1 || len(l.Prompts) != 1 {
				t.Errorf("lock has %d tools, %d resources, %d prompts", len(l.Tools), len(l.Resources), len(l.Prompts))
			}
			var entries []string
			for _, tool := range l.Tools {
				entries = append(entries, tool.Name+"="+tool.EntryDigest)
			}
			digests[name] = strings.Join(entries, ",")
			code, out, errs = run(t, append([]string{"check", "--lock", lockPath}, target...)...)
			if code != ExitClean || out != "OK no drift vs "+lockPath+"\n" {
				t.Fatalf("check exit %d:\n%s%s", code, out, errs)
			}
			code, _, errs = run(t, append([]string{"check", "--lock", lockPath, "--protocol", "legacy"}, target...)...)
			if code != ExitError || !strings.Contains(errs, "the server speaks only 2026-07-28") {
				t.Errorf("check --protocol legacy: exit %d, %s", code, errs)
			}
		})
	}
	if digests["stdio"] != digests["http"] {
		t.Errorf("entries differ between transports:\nstdio %s\nhttp  %s", digests["stdio"], digests["http"])
	}
}

// TestDualServerEraDifference pins the dual-mode SDK server in the 2025 era.
// A check in auto speaks to it in the era its lock recorded, so it is clean
// however fast the server starts; a check forced into the modern era shows
// the one difference the SDK itself makes between eras: the 2025-era codec
// wraps the array outputSchema of "numbers".
func TestDualServerEraDifference(t *testing.T) {
	script := modernScript(t)
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	argv := []string{"--", "node", script, "-mode", "dual"}
	if code, out, errs := run(t, append([]string{"pin", "--lock", lockPath, "--protocol", "legacy"}, argv...)...); code != ExitClean {
		t.Fatalf("pin exit %d: %s%s", code, out, errs)
	}
	l, err := lock.ReadFile(lockPath)
	if err != nil || l.Pin.MCPProtocolVersion != "2025-11-25" {
		t.Fatalf("legacy pin recorded %q (%v)", l.Pin.MCPProtocolVersion, err)
	}
	if code, out, errs := run(t, append([]string{"check", "--lock", lockPath}, argv...)...); code != ExitClean {
		t.Fatalf("check in auto: exit %d, want 0 (the lock's era):\n%s%s", code, out, errs)
	}
	code, out, errs := run(t, append([]string{"check", "--lock", lockPath, "--json", "--protocol", "modern"}, argv...)...)
	if code != ExitDrift {
		t.Fatalf("check --protocol modern: exit %d, want 1:\n%s%s", code, out, errs)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(line, `"kind": "drift"`) {
			continue
		}
		if !strings.Contains(line, `"target": "tools/numbers"`) || !strings.Contains(line, "schema-out-") {
			t.Errorf("drift beyond the wrapped outputSchema of numbers: %s", line)
		}
	}
}

// TestServerMigratedEraChecksClean: a server pinned in the 2025 era that
// now speaks only 2026-07-28, behind the same launch and with the same
// surface, checks clean: initialize is refused naming the modern revision,
// and the check moves to it.
func TestServerMigratedEraChecksClean(t *testing.T) {
	raw := testserver.Build(t, "testdata/servers/rawserver")
	dir := t.TempDir()
	launcher := filepath.Join(dir, "server.sh")
	setMode := func(mode string) {
		script := "#!/bin/sh\nexec " + raw + " -mode " + mode + " -requests " + filepath.Join(dir, "requests") + "\n"
		if err := os.WriteFile(launcher, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lockPath := filepath.Join(dir, "warden.lock")
	setMode("clean")
	if code, out, errs := run(t, "pin", "--lock", lockPath, "--", launcher); code != ExitClean {
		t.Fatalf("pin: exit %d %s%s", code, out, errs)
	}
	setMode("modern")
	if err := os.Remove(filepath.Join(dir, "requests")); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "check", "--lock", lockPath, "--", launcher); code != ExitClean {
		t.Fatalf("check after the server moved to 2026-07-28: exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(filepath.Join(dir, "requests"))
	if err != nil || !strings.Contains(string(data), `"method":"server/discover"`) {
		t.Errorf("the check did not move to the modern era: %v\n%s", err, data)
	}
}

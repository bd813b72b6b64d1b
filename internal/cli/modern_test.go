//go:build unix

package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/testserver"
)

func modernScript(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	return testserver.NPMScript(t, testserver.ModernServerJS)
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

// TestDualServerEraDifference pins the dual-mode SDK server in the 2025 era
// and checks it in the modern one. The only drift is the one the SDK itself
// causes: the 2025-era codec wraps the array outputSchema of "numbers".
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
	code, out, errs := run(t, append([]string{"check", "--lock", lockPath, "--json"}, argv...)...)
	if code != ExitDrift {
		t.Fatalf("check exit %d, want 1:\n%s%s", code, out, errs)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(line, `"kind": "drift"`) {
			continue
		}
		if !strings.Contains(line, `"target": "tools/numbers"`) || !strings.Contains(line, "output") {
			t.Errorf("drift beyond the wrapped outputSchema of numbers: %s", line)
		}
	}
}

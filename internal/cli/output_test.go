package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// hugeNameLock writes a copy of the demo's committed lock whose first tool
// is renamed to name, so that reading it fails with an error quoting name.
func hugeNameLock(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(workDir(Env{})), "testdata", "demo", "warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"name": "[^"]*"`).FindIndex(data)
	if m == nil {
		t.Fatal("the demo lock has no tool name")
	}
	quoted, err := json.Marshal(name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "warden.lock")
	out := append(append(append([]byte{}, data[:m[0]]...), `"name": `+string(quoted)...), data[m[1]:]...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestErrorLineClipped checks that an error quoting a 10 MB tool name from a
// lock is printed as one bounded line that still names the lock and keeps
// the end of the message.
func TestErrorLineClipped(t *testing.T) {
	big := hugeNameLock(t, strings.Repeat("K", 10<<20)+"-tail")
	tests := []struct {
		name string
		args []string
	}{
		{"check", []string{"check", "--lock", big, "--", "true"}},
		{"approve", []string{"approve", "--lock", big, "--approver", "alice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.args...)
			if code != ExitError || out != "" {
				t.Fatalf("exit %d, stdout %.200q", code, out)
			}
			if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "error: ") {
				t.Errorf("not one error line: %.300q", errs)
			}
			if len(errs) > report.MaxMessageBytes+100 {
				t.Errorf("the error line is %d bytes", len(errs))
			}
			if !strings.Contains(errs, big) || !strings.Contains(errs, " bytes elided]") {
				t.Errorf("the clipped line lost the lock path or the cut marker: %.300q", errs)
			}
		})
	}
}

// TestPrintDiffClipped checks the offline comparison's table, which quotes
// targets and details from both locks, with a 10 MB target.
func TestPrintDiffClipped(t *testing.T) {
	huge := strings.Repeat("\x1bK", 5<<20)
	detail := huge
	res := &ops.DiffResult{Drift: []drift.Item{{Class: "tool-added", Severity: "high", Target: "tools/" + huge, Detail: &detail}}}
	var out bytes.Buffer
	if err := printDiff(Env{Stdout: &out, Stderr: &out}, outputFlags{}, "a.lock", "b.lock", res); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if len(line) > 2*4*report.MaxMessageBytes+100 {
			t.Errorf("a %d-byte line", len(line))
		}
	}
	if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), " bytes elided]") {
		t.Errorf("the table is not clipped and terminal-safe: %.200q", out.String())
	}
}

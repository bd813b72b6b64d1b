package action

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/report/reporttest"
	"github.com/wardenlock/warden/internal/testserver"
)

// legacyInjection is issue 11's tool name: a legacy runner command that
// sets an output from anywhere in a line.
const legacyInjection = "##[set-output name=injected;]pwned"

// assertLogInert plays the runner over both streams of a run: stdout may
// only carry warden's own commands (none of them legacy), stderr none at
// all; no line anywhere keeps a legacy "##[" prefix; and every line holding
// one of inQuiet lies inside a stop-commands block.
func assertLogInert(t *testing.T, r result, inQuiet ...string) {
	t.Helper()
	// The commands warden itself writes: annotations, stop-commands and
	// the resume token.
	wardenCommand := regexp.MustCompile(`^(error|warning|notice|stop-commands|[0-9a-f]{32})$`)
	for _, c := range reporttest.RunnerCommands(r.stdout) {
		if c.Legacy || !wardenCommand.MatchString(c.Name) {
			t.Errorf("the runner would execute %q from stdout line %q", c.Name, c.Line)
		}
	}
	for _, c := range reporttest.RunnerCommands(r.stderr) {
		t.Errorf("the runner would execute %q from stderr line %q", c.Name, c.Line)
	}
	for _, stream := range []string{r.stdout, r.stderr} {
		for _, line := range strings.Split(stream, "\n") {
			if strings.Contains(line, "##[") {
				t.Errorf("a legacy command prefix survived in %q", line)
			}
		}
	}
	stopped := ""
	for _, line := range strings.Split(r.stdout, "\n") {
		if tok, ok := strings.CutPrefix(line, "::stop-commands::"); ok {
			stopped = tok
			continue
		}
		if stopped != "" && line == "::"+stopped+"::" {
			stopped = ""
			continue
		}
		for _, m := range inQuiet {
			if strings.Contains(line, m) && stopped == "" {
				t.Errorf("report line %q is printed while commands are processed", line)
			}
		}
	}
	if stopped != "" {
		t.Errorf("commands were left stopped at the end of the run")
	}
}

// TestRunLegacyCommandsInert runs a check and a pin of the hostile server,
// whose tool names carry legacy "##[...]" commands, and an error path that
// quotes one, and checks the runner reads no command warden did not write.
func TestRunLegacyCommandsInert(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	hostile := testserver.Build(t, "internal/action/testdata/hostile")
	shown := `#\x23[set-output name=injected;]pwned`
	tests := []struct {
		name     string
		setup    func(t *testing.T, h *harness)
		wantCode int
		// wantLog must appear (neutralised) in stdout+stderr.
		wantLog string
		inQuiet []string
	}{
		{"check: drift table and annotations", func(t *testing.T, h *harness) {
			pinDemo(t, h, demo, ".")
			writeLauncher(t, h.ws, hostile)
		}, ExitDrift, "tools/" + shown, []string{"DRIFT DETECTED", "tool-added"}},
		{"pin: findings table", func(t *testing.T, h *harness) {
			writeLauncher(t, h.ws, hostile)
			h.input("mode", "pin")
		}, ExitClean, `#\x23[add-mask]x #\x23[set-output name=verdict;]clean_run_shell`, []string{"pinned -> ", "SEVERITY"}},
		{"error line and annotation", func(t *testing.T, h *harness) {
			pinDemo(t, h, demo, ".")
			renameFirstTool(t, filepath.Join(h.ws, "warden.lock"), legacyInjection)
		}, ExitError, shown, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.setup(t, h)
			h.input("server-cmd", "./server")
			r := h.run()
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.wantCode, r.stdout, r.stderr)
			}
			assertLogInert(t, r, tt.inQuiet...)
			if !strings.Contains(r.stdout+r.stderr, tt.wantLog) {
				t.Errorf("the log does not show %q:\nstdout:\n%s\nstderr:\n%s", tt.wantLog, r.stdout, r.stderr)
			}
			if _, ok := r.outputs["injected"]; ok || len(r.outputs) != 6 {
				t.Errorf("outputs were injected: %q", r.outputs)
			}
			if strings.Contains(r.summary, "www.evil") {
				t.Errorf("the summary keeps a www. autolink")
			}
		})
	}
}

// TestRunHugeErrorClipped checks that a lock quoting a 10 MB tool name in
// its error yields a bounded error line, annotation and job summary that
// still name the problem.
func TestRunHugeErrorClipped(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")
	renameFirstTool(t, filepath.Join(h.ws, "warden.lock"), strings.Repeat("K", 10<<20))
	h.input("server-cmd", "./server")
	r := h.run()
	assertFailed(t, h, r, "bytes elided]")
	for _, stream := range []string{r.stdout, r.stderr} {
		for _, line := range strings.Split(stream, "\n") {
			if len(line) > 4*report.MaxMessageBytes+200 {
				t.Errorf("a %d-byte log line: %.100q…", len(line), line)
			}
		}
	}
	if !strings.Contains(r.stderr, "error: ") || !strings.Contains(r.stderr, "warden.lock") {
		t.Errorf("the error line no longer says what failed: %.300q", r.stderr)
	}
	if len(r.summary) > 8*report.MaxMessageBytes {
		t.Errorf("the job summary is %d bytes", len(r.summary))
	}
}

// renameFirstTool rewrites the name of the lock's first tool in place, so
// the lock no longer verifies and its error quotes the name.
func renameFirstTool(t *testing.T, path, name string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"name": "[^"]*"`).FindIndex(data)
	if m == nil {
		t.Fatalf("no tool name in %s", data)
	}
	quoted, err := json.Marshal(name)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append(append([]byte{}, data[:m[0]]...), `"name": `+string(quoted)...), data[m[1]:]...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

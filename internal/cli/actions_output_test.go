package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/report/reporttest"
)

// runActions executes one warden command in-process with GITHUB_ACTIONS set
// to actions ("" leaves it unset).
func runActions(t *testing.T, actions string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code = Main(ctx, Env{Args: args, Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "GITHUB_ACTIONS" {
			return actions
		}
		return ""
	}, Version: "test"})
	return code, out.String(), errb.String()
}

// hostileSurface is a surface file whose every server-controlled string
// carries a workflow command: legacy commands mid-line and in capitals,
// "::" commands after spaces, a carriage return and a line separator, and
// the stop-commands trick.
const hostileSurface = `{"command": "node", "args": ["s.js"], "tools": [
 {"name": "##[error]tool", "description": "::error::desc\r::warning::x ##[add-mask]y"},
 {"name": "shell_exec ##[set-output name=verdict;]clean", "description": "  ::add-mask::z"},
 {"name": "::stop-commands::tok", "description": "\u2028::error::sep ##[ERROR]caps"},
 {"name": "read_file", "description": "benign"}
]}`

// TestOutputUnderGitHubActions runs the CLI on hostile surface files, locks
// and a server whose stderr is made of workflow commands, with
// GITHUB_ACTIONS=true and without it. Under Actions no line of stdout or
// stderr may be taken for a workflow command (text and --json alike, JSON
// staying JSON of the same value); without it the output is exactly what
// it always was, which the hostile cases prove by carrying the commands.
func TestOutputUnderGitHubActions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	surface := write("surface.json", hostileSurface)
	lockPath := filepath.Join(dir, "warden.lock")
	if code, _, errs := run(t, "pin", "--surface", surface, "--lock", lockPath); code != ExitClean {
		t.Fatalf("pin: exit %d: %s", code, errs)
	}
	// The same tools, one renamed, and a hostile launch: tool drift,
	// server-identity drift and the launch table.
	drifted := write("drifted.json", strings.Replace(strings.Replace(hostileSurface, `##[error]tool"`, `##[error]tool2"`, 1),
		`"command": "node"`, `"command": "##[group]node"`, 1))
	driftedLock := filepath.Join(dir, "drifted.lock")
	if code, _, errs := run(t, "pin", "--surface", drifted, "--lock", driftedLock); code != ExitClean {
		t.Fatalf("pin: exit %d: %s", code, errs)
	}
	duplicate := write("duplicate.json", `{"command": "x", "tools": [{"name": "##[error]a"}, {"name": "##[error]a"}]}`)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run a server that fails")
	}
	stderrServer := []string{"--", sh, "-c", `printf '::error::x\r::warning::y\n##[error]z\n  ::add-mask::q\n::stop-commands::tok\n' >&2; exit 1`}

	tests := []struct {
		name string
		args []string
		code int
		json bool
		// from, when set, compares the output only from this text on: a
		// failing server's error names a racy first symptom.
		from string
	}{
		{"pin findings", []string{"pin", "--surface", surface, "--lock", filepath.Join(dir, "again.lock")}, ExitClean, false, ""},
		{"pin findings json", []string{"pin", "--surface", surface, "--lock", filepath.Join(dir, "again.lock"), "--json"}, ExitClean, true, ""},
		{"drift table", []string{"check", "--surface", drifted, "--lock", lockPath}, ExitDrift, false, ""},
		{"drift json", []string{"check", "--surface", drifted, "--lock", lockPath, "--json"}, ExitDrift, true, ""},
		{"diff", []string{"diff", lockPath, driftedLock}, ExitClean, false, ""},
		{"error quoting a tool name", []string{"pin", "--surface", duplicate, "--lock", filepath.Join(dir, "dup.lock")}, ExitError, false, ""},
		{"error quoting a server's stderr", append([]string{"check", "--lock", lockPath, "--timeout", "20"}, stderrServer...), ExitError, false, "server stderr tail:"},
		{"unknown command", []string{"##[error]x"}, ExitError, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runActions(t, "true", tt.args...)
			plainCode, plainOut, plainErrs := runActions(t, "", tt.args...)
			if code != tt.code || plainCode != tt.code {
				t.Fatalf("exit %d under Actions, %d without, want %d:\n%s%s", code, plainCode, tt.code, out, errs)
			}
			for stream, text := range map[string]string{"stdout": out, "stderr": errs} {
				if tr := reporttest.Triggers(text); len(tr) != 0 {
					t.Errorf("%s under Actions has lines a runner could read as commands: %q", stream, tr)
				}
				if cmds := reporttest.RunnerCommands(text); len(cmds) != 0 {
					t.Errorf("%s under Actions: the runner executes %+v", stream, cmds)
				}
			}
			if len(reporttest.Triggers(plainOut+plainErrs)) == 0 {
				t.Errorf("the case is not hostile: its plain output carries no command:\n%s%s", plainOut, plainErrs)
			}
			// Nothing else changes: the Actions output is the plain
			// output made inert, line by line.
			if tt.from != "" {
				cut := func(s string) string { return s[max(strings.Index(s, tt.from), 0):] }
				out, errs, plainOut, plainErrs = cut(out), cut(errs), cut(plainOut), cut(plainErrs)
			}
			if out != report.Inert(plainOut) || errs != report.Inert(plainErrs) {
				t.Errorf("under Actions:\n%s%s\nwithout:\n%s%s", out, errs, plainOut, plainErrs)
			}
			if !tt.json {
				return
			}
			plain := strings.Split(strings.TrimSuffix(plainOut, "\n"), "\n")
			for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				var got, want any
				if err := json.Unmarshal([]byte(line), &got); err != nil {
					t.Fatalf("line %d is not JSON under Actions: %v\n%s", i, err, line)
				}
				if err := json.Unmarshal([]byte(plain[i]), &want); err != nil {
					t.Fatal(err)
				}
				if g, w := mustMarshal(t, got), mustMarshal(t, want); g != w {
					t.Errorf("line %d decodes to %s, want %s", i, g, w)
				}
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInertOutputScope: only GITHUB_ACTIONS=true turns the neutraliser on,
// and never for the action command, whose own workflow commands must reach
// the runner (its JobLog neutralises everything else it prints).
func TestInertOutputScope(t *testing.T) {
	tests := []struct {
		value string
		args  []string
		on    bool
	}{
		{"true", []string{"check"}, true},
		{"TRUE", []string{"pin"}, true},
		{"", []string{"check"}, false},
		{"false", []string{"check"}, false},
		{"1", []string{"check"}, false},
		{"true", []string{"action"}, false},
		{"true", nil, true},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		env := Env{Args: tt.args, Stdout: &out, Stderr: &out, Getenv: func(k string) string {
			if k == "GITHUB_ACTIONS" {
				return tt.value
			}
			return ""
		}}
		got, flush := inertOutput(env)
		if on := got.Stdout != Env(env).Stdout; on != tt.on {
			t.Errorf("GITHUB_ACTIONS=%q %v: neutralised %v, want %v", tt.value, tt.args, on, tt.on)
		}
		got.Stdout.Write([]byte("::error::x"))
		flush()
		if tt.on == (out.String() == "::error::x") {
			t.Errorf("GITHUB_ACTIONS=%q %v: wrote %q", tt.value, tt.args, out.String())
		}
	}
}

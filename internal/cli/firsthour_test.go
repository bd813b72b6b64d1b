package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The traps a newcomer hits in the first hour (issue 25, items 2, 4, 5),
// each run as a user would, with real servers and files.

// pinDemo pins the demo server into dir/warden.lock and returns the
// server's path and the lock's.
func pinDemo(t *testing.T, extra ...string) (srv, lockPath string) {
	t.Helper()
	srv = demoServer(t)
	lockPath = filepath.Join(t.TempDir(), "warden.lock")
	args := append([]string{"pin", "--lock", lockPath}, extra...)
	if code, out, errs := run(t, append(args, "--", srv)...); code != ExitClean {
		t.Fatalf("pin: exit %d\n%s%s", code, out, errs)
	}
	return srv, lockPath
}

// TestCheckWithoutServerPrintsRecordedLaunch: a check given a lock but no
// server prints the launch the lock records, ready to paste, and the other
// ways to name a server; without a readable lock it still names them.
func TestCheckWithoutServerPrintsRecordedLaunch(t *testing.T) {
	srv, lockPath := pinDemo(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"lock records a launch", []string{"check", "--lock", lockPath},
			[]string{"warden check --lock " + lockPath + " -- " + srv, "--config FILE", "--surface FILE"}},
		{"no lock", []string{"check", "--lock", filepath.Join(t.TempDir(), "none.lock")},
			[]string{"no server given: pass '-- CMD ARGS...' or --url URL", "--config FILE", "--surface FILE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.args...)
			if code != ExitError || out != "" || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
}

// TestCaptureFailureHints: a stdio server that exits hears about the
// environment allowlist and --env; a program that echoes its input (cat)
// hears that it does not speak MCP; other failures get neither.
func TestCaptureFailureHints(t *testing.T) {
	_, lockPath := pinDemo(t)
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	const envHint, mcpHint = "only an allowlisted environment", "does not speak MCP"
	tests := []struct {
		name      string
		argv      []string
		want, not string
	}{
		{"server exits", []string{"sh", "-c", "echo missing API_KEY >&2; exit 3"}, envHint, mcpHint},
		{"echoes its input", []string{cat}, mcpHint, envHint},
		{"command not found", []string{filepath.Join(t.TempDir(), "no-such-server")}, "", envHint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"check", "--lock", lockPath, "--timeout", "60", "--"}, tt.argv...)
			code, _, errs := run(t, args...)
			if code != ExitError || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			if tt.want != "" && !strings.Contains(errs, tt.want) {
				t.Errorf("stderr %q lacks %q", errs, tt.want)
			}
			if strings.Contains(errs, tt.not) {
				t.Errorf("stderr %q has %q", errs, tt.not)
			}
		})
	}
}

// TestRepinSaysApprovalDropped: re-pinning an approved lock without
// --approve says the approval was dropped; a re-pin that approves, or of
// a lock that was not approved, says nothing.
func TestRepinSaysApprovalDropped(t *testing.T) {
	const note = "the approval was dropped"
	tests := []struct {
		name        string
		first, then []string
		want        bool
	}{
		{"approved, re-pinned plain", []string{"--approve", "--approver", "alice"}, nil, true},
		{"approved, re-pinned approved", []string{"--approve", "--approver", "alice"}, []string{"--approve", "--approver", "bob"}, false},
		{"not approved", nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, lockPath := pinDemo(t, tt.first...)
			args := append(append([]string{"pin", "--lock", lockPath}, tt.then...), "--", srv)
			code, out, errs := run(t, args...)
			if code != ExitClean {
				t.Fatalf("re-pin: exit %d\n%s%s", code, out, errs)
			}
			if got := strings.Contains(errs, note); got != tt.want {
				t.Errorf("note %v, want %v: stderr %q", got, tt.want, errs)
			}
		})
	}
}

// TestSARIFPathCheckedBeforeCapture: a --sarif value that is a flag or
// "--", in a missing folder, or naming a folder, is refused before any
// server is launched.
func TestSARIFPathCheckedBeforeCapture(t *testing.T) {
	_, lockPath := pinDemo(t)
	dir := t.TempDir()
	tests := []struct {
		name, sarif, want string
	}{
		{"double dash", "--", "--sarif needs a file path"},
		{"a flag", "-json", "--sarif needs a file path"},
		{"missing folder", filepath.Join(dir, "no", "such", "out.sarif"), "does not exist"},
		{"a folder", dir, "is a folder"},
	}
	for _, cmd := range []string{"check", "pin"} {
		for _, tt := range tests {
			t.Run(cmd+"/"+tt.name, func(t *testing.T) {
				marker := filepath.Join(t.TempDir(), "spawned")
				code, out, errs := run(t, cmd, "--lock", lockPath, "--sarif", tt.sarif, "--", "touch", marker)
				if code != ExitError || out != "" || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 {
					t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatal("the server was launched before --sarif was checked")
				}
			})
		}
	}
	// diff refuses it too.
	if code, _, errs := run(t, "diff", lockPath, lockPath, "--sarif", "--"); code != ExitError || !strings.Contains(errs, "--sarif needs a file path") {
		t.Errorf("diff: exit %d, %q", code, errs)
	}
}

// TestURLNeedsScheme: a URL without http:// or https:// says a scheme is
// needed, without echoing the URL.
func TestURLNeedsScheme(t *testing.T) {
	for _, u := range []string{"127.0.0.1:9", "localhost:8080/mcp", "example.com"} {
		code, _, errs := run(t, "check", "--lock", filepath.Join(t.TempDir(), "x.lock"), "--url", u)
		if code != ExitError || !strings.Contains(errs, "--url needs a scheme") || strings.Contains(errs, u) {
			t.Errorf("--url %s: exit %d, %q", u, code, errs)
		}
	}
}

// TestCommandHelp: '<cmd> -h' and 'help <cmd>' print the command's usage
// on stdout and exit 0; an unknown flag is still exit 2 on stderr.
func TestCommandHelp(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"pin", "-h"}, "usage: warden pin "},
		{[]string{"check", "--help"}, "usage: warden check "},
		{[]string{"diff", "-h"}, "usage: warden diff "},
		{[]string{"approve", "-h"}, "usage: warden approve "},
		{[]string{"lock", "rotate", "-h"}, "usage: warden lock rotate "},
		{[]string{"conformance", "-h"}, "usage: warden conformance "},
		{[]string{"help", "pin"}, "usage: warden pin "},
		{[]string{"help", "check"}, "usage: warden check "},
		{[]string{"help"}, "usage: warden <command>"},
	}
	for _, tt := range tests {
		code, out, errs := run(t, tt.args...)
		if code != ExitClean || !strings.HasPrefix(out, tt.want) || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, code, out, errs)
		}
	}
	if code, out, errs := run(t, "check", "--bogus"); code != ExitError || out != "" || !strings.Contains(errs, "usage: warden check") {
		t.Errorf("unknown flag: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := run(t, "help", "frobnicate"); code != ExitError || !strings.Contains(errs, "no help for") {
		t.Errorf("help frobnicate: exit %d, %q", code, errs)
	}
}

// TestLockAsSurface: a lock given as --surface says it is a lock.
func TestLockAsSurface(t *testing.T) {
	_, lockPath := pinDemo(t)
	for _, cmd := range []string{"check", "pin"} {
		other := filepath.Join(t.TempDir(), "other.lock")
		code, _, errs := run(t, cmd, "--lock", other, "--surface", lockPath)
		if code != ExitError || !strings.Contains(errs, "is a lock, not a surface") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, %q", cmd, code, errs)
		}
	}
}

// TestDriftNextSteps: a drift report ends with the next steps for this
// lock and launch: the scratch pin, the diff, and the re-pin, approving
// when the lock was approved; a --surface check re-pins from its file.
func TestDriftNextSteps(t *testing.T) {
	t.Run("launch", func(t *testing.T) {
		for _, approved := range []bool{false, true} {
			var extra []string
			if approved {
				extra = []string{"--approve", "--approver", "alice"}
			}
			srv, lockPath := pinDemo(t, extra...)
			code, out, errs := run(t, "check", "--lock", lockPath, "--env", "DEMO_MUTATE=1", "--", srv)
			if code != ExitDrift {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			repin := "  warden pin --lock " + lockPath + " -- " + srv + "\n"
			if approved {
				repin = "  warden pin --lock " + lockPath + " --approve --approver <you> -- " + srv + "\n"
			}
			for _, want := range []string{
				"next steps: If the change is expected, review it and re-pin",
				"  warden pin --lock candidate.lock -- " + srv + "\n",
				"  warden diff " + lockPath + " candidate.lock\n",
				repin,
				"--header and --env flags",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("approved=%v: report lacks %q:\n%s", approved, want, out)
				}
			}
		}
	})
	t.Run("surface", func(t *testing.T) {
		srv, lockPath := pinDemo(t)
		// The mutated server's surface, as a pin's snapshot writes it.
		dir := t.TempDir()
		mutated := filepath.Join(dir, "mutated.lock")
		if code, _, errs := run(t, "pin", "--lock", mutated, "--env", "DEMO_MUTATE=1", "--", srv); code != ExitClean {
			t.Fatal(errs)
		}
		surf := filepath.Join(dir, "mutated.surface.json")
		code, out, errs := run(t, "check", "--lock", lockPath, "--surface", surf)
		if code != ExitDrift {
			t.Fatalf("exit %d\n%s%s", code, out, errs)
		}
		if want := "  warden pin --lock " + lockPath + " --surface " + surf + "\n"; !strings.Contains(out, want) || strings.Contains(out, "--header and --env") {
			t.Errorf("report lacks %q or mentions flags:\n%s", want, out)
		}
	})
	// A clean check prints no next steps.
	srv, lockPath := pinDemo(t)
	if code, out, _ := run(t, "check", "--lock", lockPath, "--", srv); code != ExitClean || strings.Contains(out, "next steps") {
		t.Errorf("clean: exit %d\n%s", code, out)
	}
}

// TestCheckJSONVerdict: every check --json ends with a verdict record,
// after the reference's records in their order; a finding's level is its
// SARIF level.
func TestCheckJSONVerdict(t *testing.T) {
	srv, lockPath := pinDemo(t)
	tests := []struct {
		name    string
		env     []string
		code    int
		verdict string
	}{
		{"clean", nil, ExitClean, "clean"},
		{"drift", []string{"--env", "DEMO_MUTATE=1"}, ExitDrift, "drift"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sarifPath := filepath.Join(t.TempDir(), "out.sarif")
			args := append(append([]string{"check", "--lock", lockPath, "--json", "--sarif", sarifPath}, tt.env...), "--", srv)
			code, out, errs := run(t, args...)
			if code != tt.code {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			var last struct {
				Kind, Verdict string
				DriftCount    int `json:"drift_count"`
			}
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Kind != "verdict" || last.Verdict != tt.verdict {
				t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
			}
			levels := map[string]string{}
			drift := 0
			for _, l := range lines[:len(lines)-1] {
				var rec struct{ Kind, RuleID, Level, Target string }
				var raw map[string]any
				if err := json.Unmarshal([]byte(l), &raw); err != nil {
					t.Fatal(err)
				}
				_ = json.Unmarshal([]byte(l), &rec)
				rec.RuleID, _ = raw["rule_id"].(string)
				switch rec.Kind {
				case "finding":
					levels[rec.RuleID+" "+rec.Target] = rec.Level
				case "drift":
					drift++
				case "verdict":
					t.Errorf("a verdict before the last line: %s", l)
				}
			}
			if last.DriftCount != drift {
				t.Errorf("drift_count %d, %d drift records", last.DriftCount, drift)
			}
			data, err := os.ReadFile(sarifPath)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Runs []struct {
					Results []struct {
						RuleID     string `json:"ruleId"`
						Level      string
						Properties struct{ Target string }
					}
				}
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if len(levels) == 0 {
				t.Fatal("no findings to compare (the demo server has WRD-CAP-SQL)")
			}
			for _, r := range doc.Runs[0].Results {
				if lv, ok := levels[r.RuleID+" "+r.Properties.Target]; ok && lv != r.Level {
					t.Errorf("%s: JSON level %q, SARIF level %q", r.RuleID, lv, r.Level)
				}
			}
		})
	}
}

// FuzzWasApproved: the tail scan never panics, and on a lock warden wrote
// it agrees with the lock's approval.
func FuzzWasApproved(f *testing.F) {
	f.Add([]byte(`{"pin": {"approved": true}}`))
	f.Add([]byte(`{"pin":{"approved" :false}}`))
	f.Add([]byte(`{"pin": {"approved"`))
	f.Add([]byte(`"approved": true, "pin"`))
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.lock")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got := wasApproved(p)
		if got && !strings.Contains(string(data), `"approved"`) {
			t.Errorf("approved without an approved member: %q", data)
		}
	})
}

// TestConfigDriftNextSteps: a config check that drifts ends with the
// re-pin of each drifted server by name, approving where its lock was.
func TestConfigDriftNextSteps(t *testing.T) {
	srv := demoServer(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".mcp.json")
	write := func(env string) {
		t.Helper()
		text := `{"mcpServers": {"calm": {"command": "` + srv + `"}, "moved": {"command": "` + srv + `"` + env + `}}}`
		if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	if code, out, errs := run(t, "pin", "--config", cfg, "--approve", "--approver", "alice"); code != ExitClean {
		t.Fatalf("pin: exit %d\n%s%s", code, out, errs)
	}
	write(`, "env": {"DEMO_MUTATE": "1"}`)
	code, out, errs := run(t, "check", "--config", cfg)
	if code != ExitDrift {
		t.Fatalf("check: exit %d\n%s%s", code, out, errs)
	}
	want := "  warden pin --config " + cfg + " --server moved --approve --approver <you>\n"
	if !strings.Contains(out, "next steps: ") || !strings.Contains(out, want) || strings.Contains(out, "--server calm") {
		t.Errorf("report lacks %q (or names the clean server):\n%s", want, out)
	}
	// --json ends with the run's verdict and prints no steps.
	code, out, _ = run(t, "check", "--config", cfg, "--json")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != ExitDrift || !strings.HasPrefix(lines[len(lines)-1], `{"kind": "verdict", "verdict": "drift", `) || strings.Contains(out, "next steps") {
		t.Errorf("--json: exit %d\n%s", code, out)
	}
}

// TestJSONFailuresAreRecords: with --json every failure, a config run's
// included, is one record of kind "error" on stdout besides the line on
// stderr.
func TestJSONFailuresAreRecords(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	tests := [][]string{
		{"check", "--json", "--lock", filepath.Join(t.TempDir(), "x.lock")},
		{"check", "--json", "--config", missing},
		{"pin", "--json", "--config", missing},
		{"check", "--json", "--sarif", "--", "--", "x"},
		{"pin", "--json"},
	}
	for _, args := range tests {
		code, out, errs := run(t, args...)
		if code != ExitError || !strings.HasPrefix(out, `{"kind": "error", "message": "`) || strings.Count(out, "\n") != 1 || !strings.HasPrefix(errs, "error: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	// pin without a server names every way to give one.
	if _, _, errs := run(t, "pin"); !strings.Contains(errs, "--config FILE") || !strings.Contains(errs, "--surface FILE") {
		t.Errorf("pin: %q", errs)
	}
}

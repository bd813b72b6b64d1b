//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

// multiRepo is a temporary repository holding several client configs, for
// runs over all of them with one --lock-dir.
type multiRepo struct {
	t    *testing.T
	dir  string
	vars map[string]string
}

func newMultiRepo(t *testing.T) *multiRepo {
	r := &multiRepo{t: t, dir: t.TempDir(), vars: map[string]string{"PATH": os.Getenv("PATH"), "HOME": t.TempDir()}}
	if err := os.Mkdir(filepath.Join(r.dir, "locks"), 0o755); err != nil {
		t.Fatal(err)
	}
	return r
}

// write puts text at the repository path name and returns its full path.
func (r *multiRepo) write(name, text string) string {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// run runs warden with --config for each config and the repository's
// locks directory, then args.
func (r *multiRepo) run(cmd string, configs []string, args ...string) (int, string, string) {
	r.t.Helper()
	all := []string{cmd}
	for _, c := range configs {
		all = append(all, "--config", c)
	}
	all = append(all, "--lock-dir", filepath.Join(r.dir, "locks"))
	return runWith(r.t, r.vars, append(all, args...)...)
}

// TestConfigSeveralTodayForms is the "done when" for the forms read
// before it: .mcp.json and .vscode/mcp.json in one repository, sharing the
// demo server and disagreeing on another, pinned and checked with one
// --lock-dir. The shared server has one lock and is named once, with both
// configs; the disagreeing one fails naming both configs while the others
// run; a rug-pull of the shared server is drift in one place.
func TestConfigSeveralTodayForms(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	sdk := testserver.Build(t, "testdata/servers/sdkserver")
	r := newMultiRepo(t)
	write := func(mutate string) []string {
		return []string{
			r.write(".mcp.json", `{"mcpServers": {
			  "demo": {"command": `+q(demo)+`, "env": {"DEMO_MUTATE": "`+mutate+`"}},
			  "sdk": {"command": `+q(sdk)+`, "args": ["-variant", "clean"]},
			  "clash": {"command": `+q(demo)+`}
			}}`),
			r.write(".vscode/mcp.json", `// the same demo server, another clash
			{"servers": {
			  "clash": {"type": "stdio", "command": `+q(sdk)+`},
			  "demo": {"type": "stdio", "command": `+q(demo)+`, "env": {"DEMO_MUTATE": "`+mutate+`"},},
			}}`),
		}
	}
	configs := write("0")
	both := configs[0] + ", " + configs[1]
	clash := "[clash] error: server clash: " + configs[0] + " and " + configs[1] + " launch it differently (the launch as written)"

	code, out, errs := r.run("pin", configs)
	if code != ExitError {
		t.Fatalf("pin: exit %d, want 2\n%s%s", code, out, errs)
	}
	for _, want := range []string{clash, "[demo] configs: " + both + "\n", "[sdk] configs: " + configs[0] + "\n", "[clash] configs: " + both + "\n",
		"[demo] pinned -> " + filepath.Join(r.dir, "locks", "demo.warden.lock") + "\n", "3 server(s): 2 clean, 0 drift, 1 error, 0 skipped\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("pin output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "] pinned -> "); n != 2 {
		t.Errorf("%d servers pinned, want 2 (each once):\n%s", n, out)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "locks", "clash.warden.lock")); !os.IsNotExist(err) {
		t.Errorf("the refused server has a lock: %v", err)
	}

	code, out, errs = r.run("check", configs)
	if code != ExitError || !strings.Contains(out, clash) || !strings.Contains(out, "[demo] OK no drift") || !strings.Contains(out, "[sdk] OK no drift") {
		t.Errorf("check: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = r.run("check", configs, "--server", "demo", "--server", "sdk", "--json")
	if code != ExitClean || !strings.Contains(out, `{"server": "demo", "kind": "server", "configs": [`+q(configs[0])+`, `+q(configs[1])+`]}`) {
		t.Errorf("check --json: exit %d\n%s%s", code, out, errs)
	}

	// The rug-pull, seen through both configs: one server drifts, once.
	configs = write("1")
	code, out, errs = r.run("check", configs, "--server", "demo", "--server", "sdk")
	if code != ExitDrift || strings.Count(out, "] DRIFT DETECTED vs ") != 1 || !strings.Contains(out, "[demo] DRIFT DETECTED vs ") || !strings.Contains(out, "[sdk] OK no drift") {
		t.Errorf("mutated check: exit %d\n%s%s", code, out, errs)
	}
	if strings.Count(out, "tools/delete_note") == 0 {
		t.Errorf("the added tool is not reported:\n%s", out)
	}

	// One config's launch differing in an env value is a disagreement too,
	// named without the value.
	configs[1] = r.write(".vscode/mcp.json", `{"servers": {"demo": {"command": `+q(demo)+`, "env": {"DEMO_MUTATE": "0"}}}}`)
	code, out, _ = r.run("check", configs, "--server", "demo")
	if code != ExitError || !strings.Contains(out, "launch it differently (env DEMO_MUTATE has another value)") {
		t.Errorf("env disagreement: exit %d\n%s", code, out)
	}
}

// TestConfigSeveralUsage: several configs need --lock-dir, and a config
// given twice is refused, each in one line with exit 2.
func TestConfigSeveralUsage(t *testing.T) {
	r := newMultiRepo(t)
	a := r.write(".mcp.json", `{"mcpServers": {"a": {"command": "srv"}}}`)
	b := r.write(".vscode/mcp.json", `{"servers": {"a": {"command": "srv"}}}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--config", a, "--config", b}, "several --config need --lock-dir DIR"},
		{[]string{"pin", "--config", a, "--config", a, "--lock-dir", r.dir}, "is given twice"},
		{[]string{"check", "--config", a, "--config", b, "--lock-dir", r.dir, "--server", "nope"}, `has no server named "nope"`},
	} {
		code, out, errs := runWith(t, r.vars, tc.args...)
		if code != ExitError || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d\nstdout %s\nstderr %s", tc.args, code, out, errs)
		}
	}
}

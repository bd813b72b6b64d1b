//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"runtime"
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
		{[]string{"check", "--config", a, "--config", b, "--lock-dir", r.dir, "--server", "nope"}, `none of the configs ` + a + `, ` + b + ` has a server named "nope"`},
	} {
		code, out, errs := runWith(t, r.vars, tc.args...)
		if code != ExitError || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d\nstdout %s\nstderr %s", tc.args, code, out, errs)
		}
	}
}

// TestConfigEveryForm is the "done when": one repository holding a
// config of every form warden reads — Claude Code's .mcp.json, VS Code's
// .vscode/mcp.json, the Copilot coding agent's with "tools", Windsurf's
// with "serverUrl", Zed's settings.json, Codex's config.toml with
// disabled_tools, Claude Code's user file and a Windows-authored cmd /c
// entry — each with a real fixture server, pinned and checked with one
// --lock-dir. The demo server, named in four configs, has one lock; its
// rug-pull fails naming each allowlist that lets a drifted tool through,
// and an allowlist naming a tool the server lacks fails the server.
func TestConfigEveryForm(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	sdk := testserver.Build(t, "testdata/servers/sdkserver")
	url := testserver.StartHTTP(t, sdk)
	r := newMultiRepo(t)
	write := func(mutate string, copilotTools string) []string {
		env := `"env": {"DEMO_MUTATE": "` + mutate + `"}`
		return []string{
			r.write(".mcp.json", `{"mcpServers": {
			  "demo": {"command": `+q(demo)+`, `+env+`},
			  "sdk": {"command": `+q(sdk)+`, "args": ["-variant", "clean"]}
			}}`),
			r.write(".vscode/mcp.json", `{"servers": {"demo": {"type": "stdio", "command": `+q(demo)+`, `+env+`,},},}`),
			r.write(".github/copilot/mcp.json", `{"mcpServers": {
			  "demo": {"type": "local", "command": `+q(demo)+`, "args": [], `+env+`, "tools": `+copilotTools+`}
			}}`),
			r.write(".windsurf/mcp_config.json", `{"mcpServers": {"remote-sdk": {"serverUrl": `+q(url)+`}}}`),
			r.write(".zed/settings.json", `// Zed project settings
			{"tab_size": 4, "context_servers": {
			  "sdk": {"source": "custom", "command": `+q(sdk)+`, "args": ["-variant", "clean"]},
			}}`),
			r.write(".codex/config.toml", `[mcp_servers.demo]
command = `+q(demo)+`
env = { DEMO_MUTATE = "`+mutate+`" }
disabled_tools = ["get_weather"]
`),
			r.write(".claude.json", `{"numStartups": 3, "mcpServers": {}, "projects": {`+q(r.dir)+`: {"mcpServers": {
			  "claude-sdk": {"command": `+q(sdk)+`, "args": ["-variant", "clean", "-page-size", "1"]}
			}}}}`),
			r.write("win/.mcp.json", `{"mcpServers": {"win-demo": {"command": "cmd", "args": ["/c", `+q(demo)+`], `+env+`}}}`),
		}
	}
	configs := write("0", `["get_weather", "search_docs"]`)
	copilot, codex := configs[2], configs[5]

	code, out, errs := r.run("pin", configs)
	if code != ExitClean {
		t.Fatalf("pin: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"[demo] configs: " + strings.Join([]string{configs[0], configs[1], copilot, codex}, ", ") + "\n",
		"[sdk] configs: " + configs[0] + ", " + configs[4] + "\n",
		"[remote-sdk] configs: " + configs[3] + "\n",
		"[claude-sdk] configs: " + configs[6] + "\n",
		"[win-demo] launch: runs " + q(demo) + ` without "cmd /c" (a Windows launch, on a ` + runtime.GOOS + " runner)\n",
		"5 server(s): 5 clean, 0 drift, 0 error, 0 skipped\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("pin output lacks %q:\n%s", want, out)
		}
	}
	// The Windows entry's lock records the launch as written, so a pin on
	// Windows and one here are the same lock.
	if text, err := os.ReadFile(filepath.Join(r.dir, "locks", "win-demo.warden.lock")); err != nil || !strings.Contains(string(text), `"command": "cmd"`) {
		t.Errorf("win-demo lock: %v\n%s", err, text)
	}

	if code, out, errs := r.run("check", configs); code != ExitClean || strings.Count(out, "] OK no drift vs ") != 5 || !strings.Contains(out, "[win-demo] launch: runs ") {
		t.Errorf("check: exit %d\n%s%s", code, out, errs)
	}
	note := `{"server": "win-demo", "kind": "server", "configs": [` + q(configs[7]) + `], "launch_notes": [` + q("runs "+q(demo)+` without "cmd /c" (a Windows launch, on a `+runtime.GOOS+" runner)") + `]}`
	if code, out, errs := r.run("check", configs, "--server", "win-demo", "--json"); code != ExitClean || !strings.Contains(out, note+"\n") {
		t.Errorf("check --json: exit %d, want %s\n%s%s", code, note, out, errs)
	}

	// The rug-pull: get_weather widened (Copilot allowlists it; Codex
	// keeps it from the agent) and delete_note added (Codex's "*" lets it
	// through).
	configs = write("1", `["get_weather", "search_docs"]`)
	code, out, errs = r.run("check", configs)
	weather := `[demo] allowlisted: tools/get_weather drifted, and "tools" of server "demo" in ` + copilot + " lets an agent call it by name"
	deleted := `[demo] allowlisted: tools/delete_note drifted, and "disabled_tools" of server "demo" in ` + codex + " lets an agent call it by name"
	if code != ExitDrift || !strings.Contains(out, weather) || !strings.Contains(out, deleted) || strings.Contains(out, "tools/get_weather drifted, and \"tools\" of server \"demo\" in "+copilot+"; ") {
		t.Errorf("mutated check: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "[win-demo] DRIFT DETECTED") || !strings.Contains(out, "5 server(s): 3 clean, 2 drift, 0 error, 0 skipped") {
		t.Errorf("mutated check counts:\n%s", out)
	}
	_, out, _ = r.run("check", configs, "--server", "demo", "--json")
	if !strings.Contains(out, `"target": "tools/get_weather"`) || !strings.Contains(out, `"allowlists": [`+q(`"tools" of server "demo" in `+copilot)+`]`) {
		t.Errorf("check --json names no allowlist:\n%s", out)
	}

	// An allowlist naming a tool the server lacks fails that server only.
	configs = write("0", `["get_weather", "no_such_tool"]`)
	code, out, errs = r.run("check", configs)
	if code != ExitError || !strings.Contains(out, `[demo] error: the allowlist "tools" of server "demo" in `+copilot+` names the tool "no_such_tool", which the server does not have`) ||
		!strings.Contains(out, "4 clean, 0 drift, 1 error") {
		t.Errorf("missing tool: exit %d\n%s%s", code, out, errs)
	}
}

package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/report/reporttest"
	"github.com/wardenlock/warden/internal/testserver"
)

// TestRunSeveralConfigs runs the Action over a .mcp.json and a Copilot
// coding agent config naming the demo server with the same launch, with
// one lock-dir: one lock, named once in every report with both configs;
// after the rug-pull the summary names the allowlist that lets the drifted
// tool through, and SARIF carries it as a result property.
func TestRunSeveralConfigs(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	writeConfigs := func(args string) {
		for name, text := range map[string]string{
			".mcp.json": `{"mcpServers": {"demo": {"command": ` + jsonString(demo) + `, "args": [` + args + `]}}}`,
			".github/copilot/mcp.json": `{"mcpServers": {"demo": {"type": "local", "command": ` + jsonString(demo) + `, "args": [` + args + `],
			  "tools": ["get_weather", "search_docs"]}}}`,
		} {
			p := filepath.Join(h.ws, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Mkdir(filepath.Join(h.ws, "locks"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeConfigs("")
	inputs := func(mode string) {
		h.reset()
		h.input("config", ".mcp.json\n.github/copilot/mcp.json\n")
		h.input("lock-dir", "locks")
		h.input("mode", mode)
	}

	inputs("pin")
	r := h.run()
	if r.code != ExitClean || strings.Count(r.stdout, "] pinned -> ") != 1 || !strings.Contains(r.stdout, "[demo] configs: .mcp.json, .github/copilot/mcp.json") {
		t.Fatalf("pin exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "locks", "demo.warden.lock")); err != nil {
		t.Fatal(err)
	}

	writeConfigs(`"-mutate"`)
	inputs("check")
	r = h.run()
	if r.code != ExitDrift {
		t.Fatalf("check exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"| demo | <code>locks/demo.warden.lock</code> | drift |",
		"named in <code>.mcp.json</code>, <code>.github/copilot/mcp.json</code>",
		"**Allowlisted tools drifted**",
		"<code>tools/get&#95;weather</code>: &quot;tools&quot; of server &quot;demo&quot; in",
	} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.summary)
		}
	}
	data, err := os.ReadFile(filepath.Join(h.ws, "warden.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	reporttest.AssertValid(t, h.sarif, data)
	if !strings.Contains(string(data), `"allowlists"`) {
		t.Errorf("SARIF names no allowlist")
	}

	// The configs disagree: the server is refused, naming both as the
	// workflow names them, and no SARIF is written.
	if err := os.WriteFile(filepath.Join(h.ws, ".mcp.json"), []byte(`{"mcpServers": {"demo": {"command": `+jsonString(demo)+`}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs("check")
	r = h.run()
	want := "server demo: .mcp.json and .github/copilot/mcp.json launch it differently (the launch as written)"
	if r.code != ExitError || !strings.Contains(r.stdout, "[demo] error: "+want) || !strings.Contains(r.summary, "launch it differently") {
		t.Errorf("disagreeing configs: exit %d\nstdout:\n%s\nsummary:\n%s", r.code, r.stdout, r.summary)
	}
}

// TestSeveralConfigsInputs: several configs need lock-dir, lock-dir needs
// config, and a config given twice is refused.
func TestSeveralConfigsInputs(t *testing.T) {
	for _, tc := range []struct {
		inputs map[string]string
		want   string
	}{
		{map[string]string{"config": "a.json\nb.json"}, "input lock-dir: needed with several configs"},
		{map[string]string{"server-cmd": "srv", "lock-dir": "locks"}, "input lock-dir: only used with config"},
		{map[string]string{"config": "a.json\n./a.json", "lock-dir": "locks"}, `input config: "./a.json" is given twice`},
	} {
		_, err := ParseInputs(func(name string) string { return tc.inputs[name] })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.inputs, err, tc.want)
		}
	}
	in, err := ParseInputs(func(name string) string {
		return map[string]string{"config": " a.json\n\n b/mcp.json \n", "lock-dir": "locks"}[name]
	})
	if err != nil || strings.Join(in.Configs, "|") != "a.json|b/mcp.json" || in.LockDir != "locks" {
		t.Errorf("inputs %q %q: %v", in.Configs, in.LockDir, err)
	}
}

// FuzzParseConfigs: the config and lock-dir inputs never panic, and what
// they accept has no blank, control or repeated path.
func FuzzParseConfigs(f *testing.F) {
	f.Add(".mcp.json\n.vscode/mcp.json\n", "locks")
	f.Add(" a \n\n./a", "")
	f.Add("a\x00b", "l\x7f")
	f.Fuzz(func(t *testing.T, config, lockDir string) {
		paths, err := parseConfigs(config)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, p := range paths {
			if p == "" || p != strings.TrimSpace(p) || noControl("config", p) != nil || seen[filepath.Clean(p)] {
				t.Fatalf("accepted %q", p)
			}
			seen[filepath.Clean(p)] = true
		}
		dir, err := parseLockDir(strings.TrimSpace(lockDir), paths)
		if err == nil && len(paths) > 1 && dir == "" {
			t.Fatalf("several configs without a lock-dir")
		}
	})
}

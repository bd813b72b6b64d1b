package ops

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/clientconfig"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/testserver"
)

// stdio is a configured stdio server launching argv as written, with env.
func stdio(name string, argv []string, env ...string) clientconfig.Server {
	return clientconfig.Server{Name: name, LockName: name + ".warden.lock", Argv: argv, LaunchArgv: argv, Env: env}
}

func TestLaunchDiffers(t *testing.T) {
	base := stdio("s", []string{"node", "s.js"}, "A=1", "B=2")
	remote := clientconfig.Server{Name: "s", URL: "https://x/${P}", LaunchURL: "https://x/p", Headers: []string{"Authorization: Bearer t"}}
	tests := []struct {
		name string
		a, b clientconfig.Server
		want string
	}{
		{"same", base, base, ""},
		{"env order", base, stdio("s", []string{"node", "s.js"}, "B=2", "A=1"), ""},
		{"argv", base, stdio("s", []string{"node", "t.js"}, "A=1", "B=2"), "the launch as written"},
		{"expanded", base, func() clientconfig.Server { s := base; s.LaunchArgv = []string{"node", "u.js"}; return s }(), "the launch once variables are expanded"},
		{"dir", base, func() clientconfig.Server { s := base; s.Dir = "/tmp"; return s }(), "the working directory"},
		{"env value", base, stdio("s", []string{"node", "s.js"}, "A=1", "B=3"), "env B has another value"},
		{"env missing", base, stdio("s", []string{"node", "s.js"}, "A=1"), "env B is set in one only"},
		{"transport", base, remote, "one is a stdio server, the other remote"},
		{"header case", remote, func() clientconfig.Server {
			s := remote
			s.Headers = []string{"authorization:Bearer t"}
			return s
		}(), ""},
		{"header value", remote, func() clientconfig.Server {
			s := remote
			s.Headers = []string{"Authorization: Bearer u"}
			return s
		}(), "header authorization has another value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := launchDiffers(tt.a, tt.b); got != tt.want {
				t.Errorf("launchDiffers = %q, want %q", got, tt.want)
			}
			if got := launchDiffers(tt.b, tt.a); (got == "") != (tt.want == "") {
				t.Errorf("reversed: %q", got)
			}
		})
	}
}

func TestMergeConfigs(t *testing.T) {
	a := &clientconfig.Config{Path: "a/.mcp.json", Servers: []clientconfig.Server{
		stdio("shared", []string{"srv"}), stdio("clash", []string{"one"}), stdio("off", []string{"x"}),
	}}
	b := &clientconfig.Config{Path: "b/mcp.json", Servers: []clientconfig.Server{
		stdio("clash", []string{"two"}), stdio("shared", []string{"srv"}), stdio("only-b", []string{"y"}),
		func() clientconfig.Server { s := stdio("off", []string{"z"}); s.Disabled = true; return s }(),
	}}
	b.Servers[1].Tools, b.Servers[1].ToolsFrom = []string{"t"}, "tools in b"
	got := mergeConfigs([]*clientconfig.Config{a, b}, "locks")
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "shared clash off only-b" {
		t.Fatalf("servers %v", names)
	}
	shared, clash, off := got[0], got[1], got[2]
	if shared.Err != nil || strings.Join(shared.configs, " ") != "a/.mcp.json b/mcp.json" || shared.lockPath != filepath.Join("locks", "shared.warden.lock") {
		t.Errorf("shared: %v %v %s", shared.Err, shared.configs, shared.lockPath)
	}
	if len(shared.allowlists) != 1 || shared.allowlists[0].From != "tools in b" {
		t.Errorf("shared allowlists %v", shared.allowlists)
	}
	if clash.Err == nil || !strings.Contains(clash.Err.Error(), "a/.mcp.json and b/mcp.json launch it differently (the launch as written)") {
		t.Errorf("clash: %v", clash.Err)
	}
	// A disabled entry neither runs nor disagrees.
	if off.Err != nil || off.Disabled || off.Argv[0] != "x" {
		t.Errorf("off: %+v", off)
	}

	// An entry's own error says which config, when there are several.
	bad := stdio("bad", []string{"x"})
	bad.Err = errors.New("${input:key} needs a prompt")
	got = mergeConfigs([]*clientconfig.Config{{Path: "e.json", Servers: []clientconfig.Server{bad}}, b}, "locks")
	if got[0].Err == nil || got[0].Err.Error() != "in e.json: ${input:key} needs a prompt" {
		t.Errorf("entry error: %v", got[0].Err)
	}

	// Two names sharing one lock file in one directory are refused.
	c := &clientconfig.Config{Path: "c.json", Servers: []clientconfig.Server{stdio("a b", []string{"p"})}}
	d := &clientconfig.Config{Path: "d.json", Servers: []clientconfig.Server{stdio("a_b", []string{"p"})}}
	c.Servers[0].LockName, d.Servers[0].LockName = "a_b.warden.lock", "a_b.warden.lock"
	got = mergeConfigs([]*clientconfig.Config{c, d}, "locks")
	if got[1].Err == nil || !strings.Contains(got[1].Err.Error(), `would be the same as server "a b"'s`) {
		t.Errorf("collision: %v", got[1].Err)
	}

	// A name one config lists twice (Claude Code's user file: a scope and
	// a project disagreeing) is one server, refused, naming the config once.
	u := &clientconfig.Config{Path: ".claude.json", Servers: []clientconfig.Server{stdio("m", []string{"a"}), stdio("m", []string{"b"})}}
	u.Servers[1].Err = errors.New("also in the user scope with a different launch")
	got = mergeConfigs([]*clientconfig.Config{u}, "")
	if len(got) != 1 || got[0].Err == nil || len(got[0].configs) != 1 || got[0].lockPath != "m.warden.lock" {
		t.Errorf("duplicate: %+v", got)
	}
}

// TestConfigAllowlists pins the demo server with allowlists, then checks
// its mutated surface: drift on an allowlisted tool names the allowlist in
// every report, a tool the allowlist names but the server lacks is an
// error for the server on pin (writing no lock) and on check, and "*"
// names every tool.
func TestConfigAllowlists(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	ctx := context.Background()
	config := func(dir, mutate string, tools ...string) *clientconfig.Config {
		s := stdio("demo", []string{demo}, "DEMO_MUTATE="+mutate)
		if tools != nil {
			s.Tools, s.ToolsFrom = tools, `"tools" of server "demo" in .github/mcp.json`
		}
		return &clientconfig.Config{Path: filepath.Join(dir, "mcp.json"), Servers: []clientconfig.Server{s}}
	}
	run := func(t *testing.T, pin bool, c *clientconfig.Config) ServerRun {
		t.Helper()
		o := ConfigOptions{Config: c, Version: "test", NoSnapshot: true}
		f := CheckConfig
		if pin {
			f = PinConfig
		}
		runs, err := f(ctx, o)
		if err != nil || len(runs) != 1 {
			t.Fatalf("run: %v %v", runs, err)
		}
		return runs[0]
	}

	t.Run("drift on an allowlisted tool", func(t *testing.T) {
		dir := t.TempDir()
		if r := run(t, true, config(dir, "0", "get_weather", "search_docs")); r.Err != nil {
			t.Fatal(r.Err)
		}
		r := run(t, false, config(dir, "1", "get_weather", "search_docs"))
		if r.Err != nil || r.Check == nil {
			t.Fatalf("check: %v", r.Err)
		}
		reports := ServerReports("check", []ServerRun{r}, nil, func(string) report.SARIFOptions { return report.SARIFOptions{} })
		var text, jsonl, sarif bytes.Buffer
		if err := report.WriteServerText(&text, reports); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteServerJSONL(&jsonl, reports); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteServerSARIF(&sarif, reports); err != nil {
			t.Fatal(err)
		}
		want := `[demo] allowlisted: tools/get_weather drifted, and "tools" of server "demo" in .github/mcp.json lets an agent call it by name`
		if !strings.Contains(text.String(), want) || strings.Contains(text.String(), "allowlisted: tools/delete_note") {
			t.Errorf("text:\n%s", text.String())
		}
		allowlisted := 0
		for _, line := range strings.Split(jsonl.String(), "\n") {
			if strings.Contains(line, `"allowlists": ["\"tools\" of server \"demo\" in .github/mcp.json"]`) {
				allowlisted++
				if !strings.Contains(line, `"target": "tools/get_weather"`) {
					t.Errorf("allowlist on another target: %s", line)
				}
			}
		}
		if allowlisted == 0 {
			t.Errorf("no JSON record names the allowlist:\n%s", jsonl.String())
		}
		if !strings.Contains(sarif.String(), `"allowlists": [`) {
			t.Errorf("SARIF carries no allowlist")
		}
		md := report.RenderServerSummary("check", reports, "")
		if !strings.Contains(md, "**Allowlisted tools drifted**") || !strings.Contains(md, "<code>tools/get&#95;weather</code>") {
			t.Errorf("summary:\n%s", md)
		}
	})

	t.Run("star allows every tool", func(t *testing.T) {
		dir := t.TempDir()
		if r := run(t, true, config(dir, "0", "*")); r.Err != nil {
			t.Fatal(r.Err)
		}
		r := run(t, false, config(dir, "1", "*"))
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		rep := ServerReports("check", []ServerRun{r}, nil, nil)[0]
		var tools int
		for _, it := range r.Check.Drift {
			if strings.HasPrefix(it.Target, drift.ToolPrefix) {
				tools++
			}
		}
		var text bytes.Buffer
		if err := report.WriteServerText(&text, []report.ServerReport{rep}); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(text.String(), "] allowlisted: "); n != tools || n == 0 {
			t.Errorf("%d allowlisted lines for %d tool items:\n%s", n, tools, text.String())
		}
	})

	t.Run("pin refuses a missing tool", func(t *testing.T) {
		dir := t.TempDir()
		r := run(t, true, config(dir, "0", "get_weather", "delete_note"))
		if r.Err == nil || !strings.Contains(r.Err.Error(), `the allowlist "tools" of server "demo" in .github/mcp.json names the tool "delete_note", which the server does not have`) {
			t.Fatalf("pin: %v", r.Err)
		}
		if _, err := os.Stat(r.LockPath); !os.IsNotExist(err) {
			t.Errorf("a refused pin wrote %s", r.LockPath)
		}
	})

	t.Run("check refuses a tool gone", func(t *testing.T) {
		dir := t.TempDir()
		if r := run(t, true, config(dir, "1", "delete_note")); r.Err != nil {
			t.Fatal(r.Err)
		}
		r := run(t, false, config(dir, "0", "delete_note"))
		if r.Err == nil || !strings.Contains(r.Err.Error(), `names the tool "delete_note"`) {
			t.Fatalf("check: %v", r.Err)
		}
		if rep := ServerReports("check", []ServerRun{r}, nil, nil)[0]; rep.Error == "" {
			t.Errorf("report shows no error")
		}
	})

	t.Run("no allowlist", func(t *testing.T) {
		dir := t.TempDir()
		if r := run(t, true, config(dir, "0")); r.Err != nil {
			t.Fatal(r.Err)
		}
		r := run(t, false, config(dir, "1"))
		var text bytes.Buffer
		if err := report.WriteServerText(&text, ServerReports("check", []ServerRun{r}, nil, nil)); err != nil {
			t.Fatal(err)
		}
		if r.Err != nil || len(r.Check.Drift) == 0 || strings.Contains(text.String(), "allowlisted") {
			t.Errorf("check: %v\n%s", r.Err, text.String())
		}
	})
}

// FuzzMergeConfigs reads two fuzzed configs as one run: merging never
// panics, names each server once, in order of first appearance, and a
// server it refuses for a disagreement names both configs.
func FuzzMergeConfigs(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "env": {"K": "1"}}}}`),
		[]byte(`{"servers": {"b": {"command": "y", "env": {"K": "2"}}, "a": {"command": "x"}, "c": {"url": "https://h/mcp"}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "disabled": true}}}`), []byte(`{"mcpServers": {"a": {"command": "z", "tools": ["t", "*"]}}}`))
	f.Add([]byte(`{"context_servers": {"a b": {"command": "x"}}}`), []byte(`{"mcpServers": {"a_b": {"command": "x"}}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var configs []*clientconfig.Config
		for i, data := range [][]byte{a, b} {
			c, err := clientconfig.ParseFile([]string{"a.json", "b.json"}[i], data, clientconfig.Env{Lookup: func(string) (string, bool) { return "v", true }})
			if err != nil {
				return
			}
			configs = append(configs, c)
		}
		merged := mergeConfigs(configs, "locks")
		seen := map[string]bool{}
		for _, s := range merged {
			if seen[s.Name] {
				t.Fatalf("server %q listed twice", s.Name)
			}
			seen[s.Name] = true
			if len(s.configs) == 0 {
				t.Fatalf("server %q names no config", s.Name)
			}
			if s.Err != nil && strings.Contains(s.Err.Error(), "launch it differently") && !strings.Contains(s.Err.Error(), "a.json and b.json") {
				t.Fatalf("refusal names not both configs: %v", s.Err)
			}
		}
		for _, c := range configs {
			for _, s := range c.Servers {
				if !seen[s.Name] {
					t.Fatalf("server %q lost", s.Name)
				}
			}
		}
	})
}

// FuzzAllowlist: an allowlist check never panics, and "*" never misses.
func FuzzAllowlist(f *testing.F) {
	f.Add("get_weather", "*", "tools/get_weather")
	f.Add("a", "b", "tools/")
	f.Fuzz(func(t *testing.T, tool, listed, target string) {
		l := &lock.Lock{Tools: []lock.Tool{{Name: tool}}}
		star := report.Allowlist{Tools: []string{"*"}, From: "x"}
		if err := vetAllowlists([]report.Allowlist{star}, l); err != nil {
			t.Fatalf("* missed: %v", err)
		}
		named := report.Allowlist{Tools: []string{listed}, From: "x"}
		err := vetAllowlists([]report.Allowlist{named}, l)
		if (err == nil) != (listed == tool || listed == "*") {
			t.Fatalf("allowlist %q against tool %q: %v", listed, tool, err)
		}
		_ = named.Names(strings.TrimPrefix(target, drift.ToolPrefix))
	})
}

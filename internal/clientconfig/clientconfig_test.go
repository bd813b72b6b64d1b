package clientconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func testEnv() Env {
	vars := map[string]string{"TOKEN": "s3cret", "HOME": "/home/ci", "EMPTY": ""}
	return Env{
		Lookup:    func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		Workspace: "/work/repo",
		Home:      "/home/ci",
	}
}

func TestParseForms(t *testing.T) {
	claude := `{"mcpServers": {
	  "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.1.26"], "env": {"MEMORY_FILE_PATH": "${HOME}/m.json", "API": "${TOKEN}"}},
	  "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
	  "cursor-remote": {"url": "https://x.example/sse?team=${env:TEAM:-none}"},
	  "off": {"command": "node", "args": ["a.js"], "disabled": true}
	}}`
	vscode := `// VS Code keeps comments
	{
	  "inputs": [{"type": "promptString", "id": "key", "password": true}],
	  "servers": {
	    "memory": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.1.26"],
	               "env": {"MEMORY_FILE_PATH": "${userHome}/m.json", "API": "${env:TOKEN}"},},
	    "local": {"command": "node", "args": ["${workspaceFolder}/server.js"], "cwd": "sub"},
	    "secret": {"command": "srv", "env": {"KEY": "${input:key}"}},
	  },
	}`
	c, err := Parse([]byte(claude), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	if c.Form != FormMCPServers || len(c.Servers) != 4 {
		t.Fatalf("form %s, %d servers", c.Form, len(c.Servers))
	}
	mem := c.Servers[0]
	if mem.Err != nil || !reflect.DeepEqual(mem.Argv, []string{"npx", "-y", "@modelcontextprotocol/server-memory@2026.1.26"}) ||
		!reflect.DeepEqual(mem.LaunchArgv, mem.Argv) ||
		!reflect.DeepEqual(mem.Env, []string{"MEMORY_FILE_PATH=/home/ci/m.json", "API=s3cret"}) || mem.LockName != "memory.warden.lock" {
		t.Errorf("memory = %+v", mem)
	}
	remote := c.Servers[1]
	if remote.Err != nil || remote.URL != "https://mcp.example.com/mcp" || !reflect.DeepEqual(remote.Headers, []string{"Authorization: Bearer s3cret"}) {
		t.Errorf("remote = %+v", remote)
	}
	cr := c.Servers[2]
	if cr.Err != nil || cr.URL != "https://x.example/sse?team=${env:TEAM:-none}" || cr.LaunchURL != "https://x.example/sse?team=none" {
		t.Errorf("cursor-remote = %+v", cr)
	}
	if !c.Servers[3].Disabled || c.Servers[3].Err != nil {
		t.Errorf("off = %+v", c.Servers[3])
	}

	v, err := Parse([]byte(vscode), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	if v.Form != FormVSCode || len(v.Servers) != 3 {
		t.Fatalf("form %s, %d servers", v.Form, len(v.Servers))
	}
	if !reflect.DeepEqual(v.Servers[0].Argv, mem.Argv) || !reflect.DeepEqual(v.Servers[0].Env, mem.Env) {
		t.Errorf("the VS Code form of memory differs: %+v", v.Servers[0])
	}
	local := v.Servers[1]
	if local.Err != nil || local.Argv[1] != "${workspaceFolder}/server.js" || local.LaunchArgv[1] != "/work/repo/server.js" || local.Dir != "/work/repo/sub" {
		t.Errorf("local = %+v", local)
	}
	if err := v.Servers[2].Err; err == nil || !strings.Contains(err.Error(), "needs ${input:key}") {
		t.Errorf("secret: err = %v", err)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`[]`, "not a JSON object"},
		{`{}`, `no MCP servers in a form warden knows; warden reads "mcpServers"`},
		{`{"mcpServers": {}, "servers": {}}`, `has "mcpServers" and "servers"; keep one`},
		{`{"mcpServers": []}`, "not an object"},
		{`{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`, "duplicate"},
		{`{"mcpServers": {"a": `, "not JSON"},
	} {
		_, err := Parse([]byte(tc.doc), testEnv())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want %q", tc.doc, err, tc.want)
		}
	}
}

func TestServerErrors(t *testing.T) {
	for _, tc := range []struct{ entry, want string }{
		{`{"command": "x", "env": {"A": "${NOPE}"}}`, "env.A: environment variable NOPE is not set"},
		{`{"command": "x", "args": ["${input:tok}"]}`, "args[0]: needs ${input:tok}"},
		{`{"command": "x", "args": ["${command:foo}"]}`, "is not a variable warden knows"},
		{`{"command": "x", "args": ["${A"]}`, "unterminated"},
		{`{"command": "x", "args": [1]}`, "args[0] is not a string"},
		{`{"type": "http"}`, `needs a "url"`},
		{`{"type": "ws", "url": "x"}`, "is not stdio, http or sse"},
		{`{"command": "x", "url": "http://a"}`, `both "command" and "url"`},
		{`{"url": "http://a", "env": {"A": "b"}}`, "apply to stdio servers"},
		{`{"command": "x", "headers": {"A": "b"}}`, "apply to a url"},
		{`{"command": "x", "envFile": ".env"}`, "envFile"},
		{`{"args": ["x"]}`, `needs a "command"`},
		{`{"command": "x", "disabled": "yes"}`, "disabled"},
		{`"npx"`, "not an object"},
	} {
		c, err := Parse([]byte(`{"mcpServers": {"s": `+tc.entry+`}}`), testEnv())
		if err != nil {
			t.Fatalf("%s: %v", tc.entry, err)
		}
		if e := c.Servers[0].Err; e == nil || !strings.Contains(e.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.entry, e, tc.want)
		}
		if e := c.Servers[0].Err; e != nil && strings.Contains(e.Error(), "s3cret") {
			t.Errorf("%s: the error quotes a variable's value: %v", tc.entry, e)
		}
	}
}

func TestLockFileName(t *testing.T) {
	for name, want := range map[string]string{
		"memory":       "memory.warden.lock",
		"brave search": "brave_search.warden.lock",
		"../../etc":    "_._.._etc.warden.lock",
		".hidden":      "_hidden.warden.lock",
		"":             "_.warden.lock",
		"a/b":          "a_b.warden.lock",
		"v1.2_x-y":     "v1.2_x-y.warden.lock",
		"сервер":       "______.warden.lock",
	} {
		if got := LockFileName(name); got != want {
			t.Errorf("LockFileName(%q) = %q, want %q", name, got, want)
		}
	}
	c, err := Parse([]byte(`{"mcpServers": {"a b": {"command": "x"}, "a_b": {"command": "y"}}}`), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	if c.Servers[0].Err != nil || c.Servers[1].Err == nil || !strings.Contains(c.Servers[1].Err.Error(), "same as server") {
		t.Errorf("colliding lock names: %v / %v", c.Servers[0].Err, c.Servers[1].Err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	vs := filepath.Join(dir, ".vscode")
	if err := os.Mkdir(vs, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(vs, "mcp.json")
	if err := os.WriteFile(path, []byte(`{"servers": {"s": {"command": "node", "args": ["${workspaceFolder}/x.js"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadFile(path, Variables{Lookup: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Servers[0].LaunchArgv[1]; got != filepath.Join(dir, "x.js") {
		t.Errorf("workspaceFolder of .vscode/mcp.json = %q", got)
	}
	if _, err := ReadFile(dir, Variables{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big, Variables{}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a big file: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["${A:-b}"], "env": {"K": "${env:K}"}}}}`))
	f.Add([]byte(`{"servers": {"b": {"type": "http", "url": "${workspaceFolder}", "headers": {"A": "${input:x}"}},}, /* c */}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, testEnv())
		if err != nil {
			return
		}
		for _, s := range c.Servers {
			if strings.ContainsAny(s.LockName, "/\\") || strings.HasPrefix(s.LockName, ".") {
				t.Fatalf("unsafe lock name %q", s.LockName)
			}
			if s.Err == nil && len(s.Argv) == 0 && s.URL == "" {
				t.Fatalf("server %q has neither argv nor url", s.Name)
			}
			if s.Err == nil && len(s.Argv) != len(s.LaunchArgv) {
				t.Fatalf("server %q: argv and launch argv differ in length", s.Name)
			}
		}
	})
}

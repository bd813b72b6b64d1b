package clientconfig

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const memoryPkg = "@modelcontextprotocol/server-memory@2026.1.26"

func testVars() Variables {
	vars := map[string]string{"TOKEN": "s3cret", "HOME": "/home/ci", "COPILOT_MCP_API_KEY": "k3y", "COPILOT_MCP_OTHER": "o7her"}
	return Variables{Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
}

// want is what a test expects of one server; empty fields are not checked
// except Err, which is checked always (errSub "" means no error).
type want struct {
	name       string
	argv       []string
	launchArgv []string
	url        string
	env        []string
	headers    []string
	dir        string
	tools      []string
	denied     []string
	toolsFrom  string
	disabled   bool
	errSub     string
}

func checkServers(t *testing.T, file string, got []Server, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		names := []string{}
		for _, s := range got {
			names = append(names, s.Name)
		}
		t.Fatalf("%s: servers %q, want %d", file, names, len(wants))
	}
	for i, w := range wants {
		s := got[i]
		if s.Name != w.name {
			t.Errorf("%s: server %d is %q, want %q", file, i, s.Name, w.name)
			continue
		}
		if w.errSub == "" && s.Err != nil || w.errSub != "" && (s.Err == nil || !strings.Contains(s.Err.Error(), w.errSub)) {
			t.Errorf("%s: %s: err = %v, want %q", file, w.name, s.Err, w.errSub)
		}
		if w.errSub != "" {
			continue
		}
		check := func(what string, got, want any, skip bool) {
			if !skip && !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s: %s = %#v, want %#v", file, w.name, what, got, want)
			}
		}
		check("Argv", s.Argv, w.argv, w.argv == nil)
		check("LaunchArgv", s.LaunchArgv, w.launchArgv, w.launchArgv == nil)
		check("URL", s.URL, w.url, w.url == "")
		check("Env", s.Env, w.env, w.env == nil)
		check("Headers", s.Headers, w.headers, w.headers == nil)
		check("Dir", s.Dir, w.dir, w.dir == "")
		check("Tools", s.Tools, w.tools, false)
		check("DeniedTools", s.DeniedTools, w.denied, false)
		check("ToolsFrom", s.ToolsFrom, w.toolsFrom, w.toolsFrom == "")
		check("Disabled", s.Disabled, w.disabled, false)
		if s.LockName != LockFileName(w.name) {
			t.Errorf("%s: %s: lock %s", file, w.name, s.LockName)
		}
	}
}

func TestReadFileForms(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	copilot := "testdata/copilot/.github/copilot/mcp.json"
	codex := "testdata/codex/.codex/config.toml"
	for _, tc := range []struct {
		file  string
		form  Form
		wants []want
	}{
		{copilot, FormCopilot, []want{
			{name: "memory", argv: []string{"npx", "-y", memoryPkg}, env: []string{"API_KEY=k3y", "OTHER=o7her", "LITERAL=plain"},
				tools: []string{"read_graph", "search_nodes"}, toolsFrom: `"tools" of server "memory" in ` + copilot},
			{name: "remote", url: "https://mcp.example.com/mcp", headers: []string{"Authorization: Bearer k3y"}, tools: []string{"*"}},
			{name: "untooled", errSub: `"tools" is missing`},
		}},
		{"testdata/windsurf/mcp_config.json", FormWindsurf, []want{
			{name: "remote", url: "https://mcp.example.com/mcp", headers: []string{"Authorization: Bearer s3cret"}},
			{name: "local", argv: []string{"npx", "-y", memoryPkg}},
			{name: "off", argv: []string{"node", "x.js"}, disabled: true},
			{name: "both", errSub: `both "serverUrl" and "url"`},
		}},
		{"testdata/zed/.zed/settings.json", FormZed, []want{
			{name: "memory", argv: []string{"npx", "-y", memoryPkg}, env: []string{"MEMORY_FILE_PATH=" + abs("testdata/zed") + "/m.json"}},
			{name: "older", argv: []string{"node", "${workspaceFolder}/server.js"}, launchArgv: []string{"node", abs("testdata/zed") + "/server.js"}, env: []string{"API=s3cret"}},
			{name: "remote", url: "https://mcp.example.com/mcp", headers: []string{"Authorization: Bearer s3cret"}},
			{name: "from-extension", errSub: "provided by a Zed extension"},
			{name: "off", argv: []string{"node", "x.js"}, disabled: true},
		}},
		{codex, FormCodex, []want{
			{name: "memory", argv: []string{"npx", "-y", memoryPkg}, env: []string{"MEMORY_FILE_PATH=/tmp/m.json", "TOKEN=s3cret"},
				dir: abs("testdata/codex") + "/sub", tools: []string{"read_graph", "search_nodes"}, denied: []string{"delete_entities"},
				toolsFrom: `"enabled_tools" of server "memory" in ` + codex},
			{name: "remote", url: "https://mcp.example.com/mcp", headers: []string{"X-Team: core", "X-Key: s3cret", "Authorization: Bearer s3cret"},
				tools: []string{"*"}, denied: []string{"dangerous"}, toolsFrom: `"disabled_tools" of server "remote" in ` + codex},
			{name: "off", argv: []string{"node", "x.js"}, disabled: true},
			{name: "inline", errSub: `"bearer_token" is not supported`},
		}},
		{"testdata/claude/.claude.json", FormClaudeUser, []want{
			{name: "memory", argv: []string{"npx", "-y", memoryPkg}},
			{name: "local", argv: []string{"node", "server.js"}, dir: "/work/repo/tools"},
			{name: "memory", errSub: `is also in the user scope with a different launch`},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c, err := ReadFile(tc.file, testVars())
			if err != nil {
				t.Fatal(err)
			}
			if c.Form != tc.form || c.Path != tc.file {
				t.Errorf("form %s path %s", c.Form, c.Path)
			}
			checkServers(t, tc.file, c.Servers, tc.wants)
		})
	}
}

// TestDetect covers how the name and the shape of a JSON file decide its
// form.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		form      Form
	}{
		{".mcp.json", `{"mcpServers": {"a": {"command": "x"}}}`, FormMCPServers},
		{".github/mcp.json", `{"mcpServers": {"a": {"command": "x", "tools": ["*"]}}}`, FormCopilot},
		{"x.json", `{"mcpServers": {"a": {"type": "local", "command": "x", "tools": []}}}`, FormCopilot},
		{"copilot-mcp.json", `{"mcpServers": {"a": {"command": "x", "tools": ["t"]}}}`, FormCopilot},
		{"/home/me/.copilot/mcp-config.json", `{"mcpServers": {}}`, FormCopilot},
		{"repo/.github/copilot/mcp.json", `{"mcpServers": {}}`, FormCopilot},
		{"mcp_config.json", `{"mcpServers": {"a": {"command": "x"}}}`, FormWindsurf},
		{"any.json", `{"mcpServers": {"a": {"serverUrl": "https://a.example"}}}`, FormWindsurf},
		{".vscode/mcp.json", `{"servers": {"a": {"command": "x"}}}`, FormVSCode},
		{"settings.json", `{"theme": "x", "context_servers": {}}`, FormZed},
		{".claude.json", `{"numStartups": 1}`, FormClaudeUser},
		{"user.json", `{"projects": {"/a": {"mcpServers": {}}}}`, FormClaudeUser},
	} {
		c, err := ParseFile(tc.name, []byte(tc.doc), testEnv())
		if err != nil || c.Form != tc.form {
			t.Errorf("ParseFile(%s, %s) = %v, %v; want form %s", tc.name, tc.doc, c, err, tc.form)
		}
	}
}

func TestReadFileRefusesUnknown(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"testdata/unknown/mcp.yaml", `a ".yaml" file is not an MCP client config; warden reads "mcpServers"`},
		{"testdata/unknown/settings.json", `no MCP servers in a form warden knows; warden reads "mcpServers"`},
		{"testdata/unknown/config.toml", `no [mcp_servers] tables; warden reads`},
	} {
		_, err := ReadFile(tc.file, testVars())
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "read config "+tc.file+": ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("ReadFile(%s) = %v, want one line with %q", tc.file, err, tc.want)
		}
	}
}

func TestParseFileRefuses(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"settings.json", `{"context_servers": {}, "mcpServers": {}}`, `has "mcpServers" and "context_servers"; keep one`},
		{"settings.json", `{"context_servers": []}`, `"context_servers" is not an object`},
		{"config.toml", `[mcp_servers`, "not valid TOML"},
		{"config.toml", `mcp_servers = 1`, `"mcp_servers" is not a table`},
		{"config.toml", `a = ` + strings.Repeat("[", 40) + strings.Repeat("]", 40), "nested more than 32 levels"},
		{"config.toml", `a = "` + strings.Repeat("[", 40) + `"` + "\n[mcp_servers]\n", ""},
	} {
		_, err := ParseFile(tc.name, []byte(tc.doc), testEnv())
		if tc.want == "" {
			if err != nil {
				t.Errorf("ParseFile(%s, %q) = %v", tc.name, tc.doc, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFile(%s, %q) = %v, want %q", tc.name, tc.doc, err, tc.want)
		}
	}
}

func TestCodexServerErrors(t *testing.T) {
	for _, tc := range []struct{ table, want string }{
		{`command = "x"` + "\n" + `enabled = "no"`, `"enabled" is not true or false`},
		{`url = "https://a"` + "\n" + `bearer_token_env_var = "A-B"`, "bearer_token_env_var: \"A-B\" is not a variable name"},
		{`url = "https://a"` + "\n" + `env_http_headers = { X = "${A}" }`, "env_http_headers.X"},
		{`command = "x"` + "\n" + `env_vars = ["GITHUB_TOKEN"]`, "variable of the CI runner"},
		{`command = "x"` + "\n" + `env_vars = ["A:-b"]`, "is not a variable name"},
		{`command = "x"` + "\n" + `env = "A=b"`, `"env" is not a table`},
		{`command = "x"` + "\n" + `args = [1]`, "args[0] is not a string"},
		{`command = 1979-05-27`, `"command" is not a string`},
		{`command = "x"` + "\n" + `enabled_tools = "all"`, `"enabled_tools" is not an array`},
	} {
		c, err := ParseFile("config.toml", []byte("[mcp_servers.s]\n"+tc.table+"\n"), testEnv())
		if err != nil {
			t.Fatalf("%s: %v", tc.table, err)
		}
		if e := c.Servers[0].Err; e == nil || !strings.Contains(e.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.table, e, tc.want)
		}
	}
}

// TestCodexOrder: servers keep the order of the file, not of a map.
func TestCodexOrder(t *testing.T) {
	doc := "[mcp_servers.zeta]\ncommand = \"z\"\n[mcp_servers.alpha]\ncommand = \"a\"\n[mcp_servers.mid]\ncommand = \"m\"\nenv = { Z = \"1\", A = \"2\" }\n"
	c, err := ParseFile("config.toml", []byte(doc), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range c.Servers {
		names = append(names, s.Name)
	}
	if !reflect.DeepEqual(names, []string{"zeta", "alpha", "mid"}) || !reflect.DeepEqual(c.Servers[2].Env, []string{"Z=1", "A=2"}) {
		t.Errorf("order %q, env %q", names, c.Servers[2].Env)
	}
}

func TestCopilotRefs(t *testing.T) {
	d := dialect{copilotRefs: true}
	for in, out := range map[string]string{
		"COPILOT_MCP_KEY":                 "${COPILOT_MCP_KEY}",
		"$COPILOT_MCP_KEY":                "${COPILOT_MCP_KEY}",
		"Bearer $COPILOT_MCP_KEY!":        "Bearer ${COPILOT_MCP_KEY}!",
		"${COPILOT_MCP_KEY}":              "${COPILOT_MCP_KEY}",
		"COPILOT_MCP_":                    "COPILOT_MCP_",
		"OTHER":                           "OTHER",
		"a $COPILOT_MCP_A $COPILOT_MCP_B": "a ${COPILOT_MCP_A} ${COPILOT_MCP_B}",
	} {
		if got := d.ref(in); got != out {
			t.Errorf("ref(%q) = %q, want %q", in, got, out)
		}
	}
	if got := (dialect{}).ref("COPILOT_MCP_KEY"); got != "COPILOT_MCP_KEY" {
		t.Errorf("a non-Copilot form rewrote a value: %q", got)
	}
}

// TestCopilotAllowed: a Copilot secret follows the Action's allowlist like
// any ${NAME}.
func TestCopilotAllowed(t *testing.T) {
	env := testEnv()
	env.Allowed, env.AllowedFrom = map[string]bool{"COPILOT_MCP_A": true}, "the config-env input"
	doc := `{"mcpServers": {"s": {"type": "local", "command": "x", "tools": ["*"], "env": {"K": "COPILOT_MCP_B"}}}}`
	c, err := ParseFile(".github/mcp.json", []byte(doc), env)
	if err != nil {
		t.Fatal(err)
	}
	if e := c.Servers[0].Err; e == nil || !strings.Contains(e.Error(), "${COPILOT_MCP_B} is not in the config-env input") {
		t.Errorf("err = %v", e)
	}
}

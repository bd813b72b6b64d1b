package clientconfig

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestExamples reads every config under examples/configs, each as the
// format its name and shape say, with every server ready to launch.
func TestExamples(t *testing.T) {
	root := filepath.Join("..", "..", "examples", "configs")
	vars := Variables{Lookup: func(name string) (string, bool) {
		switch name {
		case "DOCS_TOKEN", "COPILOT_MCP_SEARCH_API_KEY":
			return "example-" + strings.ToLower(name), true
		}
		return "", false
	}}
	cases := []struct {
		file    string
		form    Form
		servers string
	}{
		{".mcp.json", FormMCPServers, "memory,docs"},
		{".vscode/mcp.json", FormVSCode, "memory"},
		{".github/copilot/mcp.json", FormCopilot, "memory,search"},
		{"windsurf/mcp_config.json", FormWindsurf, "memory,docs"},
		{".zed/settings.json", FormZed, "memory"},
		{".codex/config.toml", FormCodex, "memory,docs"},
		{"claude-user/.claude.json", FormClaudeUser, "memory,app-db"},
		{"windows/.mcp.json", FormMCPServers, "memory"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			c, err := ReadFile(filepath.Join(root, filepath.FromSlash(tc.file)), vars)
			if err != nil {
				t.Fatal(err)
			}
			if c.Form != tc.form {
				t.Errorf("form %q, want %q", c.Form, tc.form)
			}
			var names []string
			for _, s := range c.Servers {
				names = append(names, s.Name)
				if s.Err != nil {
					t.Errorf("server %s: %v", s.Name, s.Err)
				}
				if len(s.Argv) == 0 && s.URL == "" {
					t.Errorf("server %s: no launch", s.Name)
				}
			}
			if got := strings.Join(names, ","); got != tc.servers {
				t.Errorf("servers %s, want %s", got, tc.servers)
			}
		})
	}
	t.Run("allowlists", func(t *testing.T) {
		c, err := ReadFile(filepath.Join(root, ".github", "copilot", "mcp.json"), vars)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(c.Servers[0].Tools, ","); got != "read_graph,search_nodes,open_nodes" {
			t.Errorf("memory's allowlist %q", got)
		}
		if got := strings.Join(c.Servers[1].Tools, ","); got != "*" {
			t.Errorf("search's allowlist %q", got)
		}
	})
	t.Run("windows", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("cmd /c runs as written on Windows")
		}
		c, err := ReadFile(filepath.Join(root, "windows", ".mcp.json"), vars)
		if err != nil {
			t.Fatal(err)
		}
		s := c.Servers[0]
		if s.Argv[0] != "cmd" || s.LaunchArgv[0] != "npx" || s.LaunchNote == "" {
			t.Errorf("argv %q, launch %q, note %q", s.Argv, s.LaunchArgv, s.LaunchNote)
		}
	})
}

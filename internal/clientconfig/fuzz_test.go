package clientconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// seedFiles adds every testdata config with the given extension to f.
func seedFiles(f *testing.F, ext string) {
	f.Helper()
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ext {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f.Add(filepath.Base(path), data)
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
}

// checkParsed fails on what no parse may produce, whatever the input.
func checkParsed(t *testing.T, c *Config, err error) {
	if err != nil {
		if c != nil {
			t.Fatalf("a config with an error: %v", err)
		}
		return
	}
	for _, s := range c.Servers {
		if s.Err == nil && len(s.Argv) != len(s.LaunchArgv) && s.LaunchNote == "" {
			t.Fatalf("%s: argv %q launches as %q with no note", s.Name, s.Argv, s.LaunchArgv)
		}
		if s.LockName != LockFileName(s.Name) {
			t.Fatalf("%s: lock %s", s.Name, s.LockName)
		}
	}
}

func FuzzParseFileJSON(f *testing.F) {
	seedFiles(f, ".json")
	f.Add("settings.json", []byte(`{"context_servers": {"a": {"command": {"path": "cmd", "args": ["/c", "x"]}}}}`))
	f.Add(".claude.json", []byte(`{"projects": {"/a": {"mcpServers": {"a": {"command": "x"}}}, "b": {"mcpServers": []}}}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if filepath.Ext(name) == ".toml" {
			name += ".json"
		}
		env := testEnv()
		env.GOOS = "linux"
		c, err := ParseFile(name, data, env)
		checkParsed(t, c, err)
	})
}

func FuzzParseFileTOML(f *testing.F) {
	for _, s := range []string{
		"[mcp_servers.a]\ncommand = \"cmd\"\nargs = [\"/c\", \"npx\"]\n",
		"[mcp_servers.a]\nurl = \"https://x\"\nbearer_token_env_var = \"T\"\nenabled_tools = []\n",
		"mcp_servers = { a = { command = \"x\", env = { A = \"${TOKEN}\" } } }\n",
		"[[mcp_servers]]\na = 1\n",
	} {
		f.Add(s)
	}
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".toml" {
			return err
		}
		data, err := os.ReadFile(path)
		f.Add(string(data))
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		c, err := ParseFile("config.toml", []byte(doc), testEnv())
		checkParsed(t, c, err)
	})
}

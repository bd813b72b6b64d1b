package attest

import (
	"strings"
	"testing"
)

func TestInferCoordinate(t *testing.T) {
	ok := []struct {
		argv string
		want string
	}{
		{"npx -y @modelcontextprotocol/server-everything@2026.8.31", "npm:@modelcontextprotocol/server-everything@2026.8.31"},
		{"npx -y @scope/pkg@1.2.3 --port 3", "npm:@scope/pkg@1.2.3"},
		{"npx -p @scope/pkg@1.2.3 bin", "npm:@scope/pkg@1.2.3"},
		{"npx --package=@scope/pkg@1.2.3 bin", "npm:@scope/pkg@1.2.3"},
		{"npx --yes --package @scope/pkg@1.2.3-rc.1 bin", "npm:@scope/pkg@1.2.3-rc.1"},
		{"/usr/bin/npx plain@0.1.0", "npm:plain@0.1.0"},
		{"uvx mcp-server-time==2026.8.18", "pypi:mcp-server-time@2026.8.18"},
		{"uvx --from Pkg[extra]==1.0.0 bin", "pypi:pkg@1.0.0"},
		{"uvx --from=My_Pkg.Name==1.0.0 bin", "pypi:my-pkg-name@1.0.0"},
		{"uvx --python 3.12 ruff@0.6.2", "pypi:ruff@0.6.2"},
		{"uvx mcp_server_fetch==1.0.post1", "pypi:mcp-server-fetch@1.0.post1"},
		{"pipx run --spec foo==2.0 foo", "pypi:foo@2.0"},
		{"pipx run foo==2.0", "pypi:foo@2.0"},
	}
	for _, tc := range ok {
		c, err := InferCoordinate(strings.Fields(tc.argv))
		if err != nil {
			t.Errorf("%s: %v", tc.argv, err)
			continue
		}
		if c.String() != tc.want {
			t.Errorf("%s: got %s, want %s", tc.argv, c, tc.want)
		}
	}
	bad := []string{
		"", "node ./x.js", "npx -y @scope/pkg", "npx -y @scope/pkg@latest", "npx -y pkg@^1.2.3",
		"npx -y pkg@1.x", "npx -y pkg@1.2", "npx -p a@1.0.0 -p b@1.0.0 bin", "npx --registry x pkg@1.0.0",
		"npx -y https://example.com/pkg.tgz", "npx -y ../pkg@1.0.0", "uvx pkg", "uvx pkg>=1.0", "uvx pkg==1.*",
		"uvx pkg~=1.0", "uvx pkg===1.0", "uvx pkg@latest", "uvx --unknown pkg==1.0", "pipx install foo==2.0",
		"pipx run foo", "pipx run --spec git+https://x/y foo", "uvx ../evil==1.0", "npx -y @scope/../x@1.0.0",
		"python -m server", "npx", "uvx --from", "npx -y pkg@1.0.0/../../x",
	}
	for _, s := range bad {
		if c, err := InferCoordinate(strings.Fields(s)); err == nil {
			t.Errorf("%q: inferred %s, want an error", s, c)
		}
	}
}

func TestParseCoordinate(t *testing.T) {
	c, err := ParseCoordinate("npm:@modelcontextprotocol/server-everything@2026.8.31")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.CorpusDir(), "npm/@modelcontextprotocol__server-everything/2026.8.31"; got != want {
		t.Errorf("CorpusDir %s, want %s", got, want)
	}
	if c, err = ParseCoordinate("pypi:MCP_Server.Time@2026.8.18"); err != nil || c.String() != "pypi:mcp-server-time@2026.8.18" {
		t.Errorf("pypi: %v %v", c, err)
	}
	for _, s := range []string{"", "npm", "npm:pkg", "npm:@1.0.0", "cargo:x@1.0.0", "npm:pkg@latest", "pypi:a/b@1.0",
		"npm:../x@1.0.0", "npm:x@1.0.0/..", "pypi:x@..", "npm:@a/b/c@1.0.0"} {
		if c, err := ParseCoordinate(s); err == nil {
			t.Errorf("%q: parsed %v, want an error", s, c)
		}
	}
}

// FuzzCoordinate holds that whatever parses yields a coordinate whose text
// parses back to itself and whose corpus directory stays inside the corpus.
func FuzzCoordinate(f *testing.F) {
	for _, s := range []string{"npm:@a/b@1.0.0", "pypi:Foo_Bar@1.0rc1", "npm:x@1.0.0+build.1", "pypi:x@1!2.0.post3.dev4+local"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCoordinate(s)
		if err != nil {
			return
		}
		back, err := ParseCoordinate(c.String())
		if err != nil || back != c {
			t.Fatalf("%q → %v does not round-trip: %v %v", s, c, back, err)
		}
		for _, part := range strings.Split(c.CorpusDir(), "/") {
			if part == "" || part == "." || part == ".." {
				t.Fatalf("%q: corpus dir %q leaves the corpus", s, c.CorpusDir())
			}
		}
	})
}

// FuzzInferCoordinate holds that an inferred coordinate is always one
// ParseCoordinate accepts.
func FuzzInferCoordinate(f *testing.F) {
	f.Add("npx -y @a/b@1.0.0")
	f.Add("uvx --from X[y]==1.0 z")
	f.Add("pipx run --spec foo==2.0 foo")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := InferCoordinate(strings.Fields(s))
		if err != nil {
			return
		}
		if back, err := ParseCoordinate(c.String()); err != nil || back != c {
			t.Fatalf("%q → %v: %v", s, c, err)
		}
	})
}

package findings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

func parseSurface(t testing.TB, text string) *surface.Surface {
	t.Helper()
	v, err := jsonv.Parse([]byte(text), jsonv.Options{})
	if err != nil {
		t.Fatalf("parse surface: %v", err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		t.Fatalf("surface: %v", err)
	}
	return s
}

// withSecret parses a JSON template with SECRET replaced by x as a string.
func withSecret(template, x string) *jsonv.Value {
	v, err := jsonv.Parse([]byte(strings.Replace(template, "SECRET", string(jsonv.AppendQuoted(nil, x)), 1)), jsonv.Options{})
	if err != nil {
		panic(err)
	}
	return v
}

func f(rule, severity, target, message, snippet string) lock.Finding {
	return lock.Finding{RuleID: rule, Severity: severity, Target: target, Message: message, Snippet: snippet}
}

func sec(rule, severity, target, snippet string) lock.Finding {
	return f(rule, severity, target, rule+": possible secret in field", snippet)
}

const msgMalformed = "inputSchema is present but not a JSON object; capability analysis skipped"

func TestScan(t *testing.T) {
	tests := []struct {
		name    string
		surface string
		want    []lock.Finding
	}{
		{
			// The reference's interop case: search_nodes of
			// @modelcontextprotocol/server-memory derives sql-query from
			// its "query" property.
			name: "server-memory search_nodes",
			surface: `{"command":"npx","args":["-y","@modelcontextprotocol/server-memory"],"tools":[{"name":"search_nodes",
				"description":"Search for nodes in the knowledge graph based on a query",
				"inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"The search query to match against entity names, types, and observation content"}},"required":["query"]}}],
				"resources":[],"prompts":[]}`,
			want: []lock.Finding{
				f(RuleSupNPXUnpinned, High, TargetLaunch, msgNPX, "@modelcontextprotocol/server-memory"),
				f(RuleCapSQL, High, "tools/search_nodes", "Tool derives capability 'sql-query' (property 'query')", "property 'query'"),
			},
		},
		{
			name: "malformed input schemas",
			surface: `{"command":"python","args":["server.py"],"tools":[{"name":"weird","inputSchema":"not-a-schema"},
				{"name":"weirder","inputSchema":[1,2]},{"name":"n","inputSchema":5},{"name":"f","inputSchema":1.5},
				{"name":"b","inputSchema":true},{"name":"nul","inputSchema":null},{"name":"read_file","inputSchema":"path"}],
				"resources":[],"prompts":[]}`,
			want: []lock.Finding{
				f(RuleSchemaMalformed, Low, "tools/b", msgMalformed, "inputSchema type=bool"),
				f(RuleSchemaMalformed, Low, "tools/f", msgMalformed, "inputSchema type=float"),
				f(RuleSchemaMalformed, Low, "tools/n", msgMalformed, "inputSchema type=int"),
				// A string schema contributes no "path" property.
				f(RuleSchemaMalformed, Low, "tools/read_file", msgMalformed, "inputSchema type=str"),
				f(RuleSchemaMalformed, Low, "tools/weird", msgMalformed, "inputSchema type=str"),
				f(RuleSchemaMalformed, Low, "tools/weirder", msgMalformed, "inputSchema type=list"),
			},
		},
		{
			// Only string defaults and string members of enum/examples
			// arrays are scanned, anywhere in the schema; the values of
			// those keys are never descended into (so a property named
			// "default" hides its subschema), and property names are not
			// scanned. The URL of an HTTP server is not scanned either.
			name: "schema walk",
			surface: `{"url":"https://example.com/mcp?k=AKIAIOSFODNN7EXAMPLE","tools":[{"name":"t","description":"","inputSchema":{"type":"object",
				"properties":{"Zq8Xr2Vt6Wn0Lp4Ks9Hj3Gf7Dm1Cb5Ny":{"type":"string"},
				"a":{"type":"string","default":"AKIAIOSFODNN7EXAMPLE","enum":["x","sk-aaaaaaaaaaaaaaaaaaaa1",7,{"default":"sk-bbbbbbbbbbbbbbbbbbbb2"}],"examples":["sk-cccccccccccccccccccc3"]},
				"b":{"type":"array","items":[{"default":"sk-dddddddddddddddddddd4"}]},
				"default":{"type":"object","properties":{"x":{"default":"sk-eeeeeeeeeeeeeeeeeeee5"}}},
				"c":{"default":{"nested":"sk-ffffffffffffffffffff6"},"examples":"sk-gggggggggggggggggggg7","enum":"sk-hhhhhhhhhhhhhhhhhhhh8"}},
				"$defs":{"d":{"examples":[1,"sk-iiiiiiiiiiiiiiiiiiii9"]}},"allOf":[{"default":"sk-jjjjjjjjjjjjjjjjjjjj0"}]}}],
				"resources":[],"prompts":[]}`,
			want: []lock.Finding{
				sec(RuleSecAWS, Critical, "tools/t", "AKIA…(len=20)"),
				sec(RuleSecOpenAI, Critical, "tools/t", "sk-a…(len=24)"),
				sec(RuleSecOpenAI, Critical, "tools/t", "sk-c…(len=24)"),
				sec(RuleSecOpenAI, Critical, "tools/t", "sk-d…(len=24)"),
				sec(RuleSecOpenAI, Critical, "tools/t", "sk-i…(len=24)"),
				sec(RuleSecOpenAI, Critical, "tools/t", "sk-j…(len=24)"),
			},
		},
		{
			// Launch tokens, tools, resources (uri, name, description) and
			// prompts (name, description; not arguments); one finding per
			// (rule, target, snippet); sorted by target, rule, snippet.
			name: "entries, de-duplication and order",
			surface: `{"command":"node","args":["s.js","--token=sk-aaaaaaaaaaaaaaaaaaaa1"],
				"tools":[{"name":"b_tool","description":"uses sk-aaaaaaaaaaaaaaaaaaaa1"},{"name":"a_tool","description":"sk-aaaaaaaaaaaaaaaaaaaa1 and sk-aaaaaaaaaaaaaaaaaaaa1"}],
				"resources":[{"uri":"file:///x","name":"","description":"AKIAIOSFODNN7EXAMPLE"},{"uri":"file:///a","name":"xoxb-123456789012-abcdefghijkl"}],
				"prompts":[{"name":"p","description":"","arguments":[{"name":"sk-aaaaaaaaaaaaaaaaaaaa1","description":"AKIAIOSFODNN7EXAMPLE"}]},
				{"name":"q","description":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.dBjftJeZ4CVP"}]}`,
			want: []lock.Finding{
				sec(RuleSecOpenAI, Critical, TargetLaunch, "sk-a…(len=24)"),
				sec(RuleSecJWT, High, "prompts/q", "eyJh…(len=56)"),
				sec(RuleSecSlack, Critical, "resources/file:///a", "xoxb…(len=30)"),
				sec(RuleSecAWS, Critical, "resources/file:///x", "AKIA…(len=20)"),
				sec(RuleSecOpenAI, Critical, "tools/a_tool", "sk-a…(len=24)"),
				sec(RuleSecOpenAI, Critical, "tools/b_tool", "sk-a…(len=24)"),
			},
		},
		{
			name: "capability findings",
			surface: `{"command":"uvx","args":["mcp-server-fetch"],"tools":[
				{"name":"run_shell_command","inputSchema":{"type":"object","properties":{"command":{"type":"string"}}}},
				{"name":"writeFile","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}},
				{"name":"frob","inputSchema":{"type":"object","properties":{"data":{},"dest":{},"targetUrl":{},"sql":{}}}},
				{"name":"get_file","inputSchema":{"type":"object","properties":{"source":{}}}}],"resources":[],"prompts":[]}`,
			want: []lock.Finding{
				f(RuleSupUVXUnpinned, High, TargetLaunch, msgUVX, "mcp-server-fetch"),
				f(RuleCapFSWrite, High, "tools/frob", "Tool derives capability 'fs-write' (property 'dest')", "property 'dest'"),
				f(RuleCapHTTP, High, "tools/frob", "Tool derives capability 'http-request' (property 'targetUrl')", "property 'targetUrl'"),
				f(RuleCapSQL, High, "tools/frob", "Tool derives capability 'sql-query' (property 'sql')", "property 'sql'"),
				f(RuleCapFSRead, Medium, "tools/get_file", "Tool derives capability 'fs-read' (name token 'get')", "name token 'get'"),
				f(RuleCapShell, Critical, "tools/run_shell_command", "Tool derives capability 'shell-exec' (name token 'shell')", "name token 'shell'"),
				f(RuleCapFSWrite, High, "tools/writeFile", "Tool derives capability 'fs-write' (name token 'write')", "name token 'write'"),
			},
		},
		{
			// Vendor secrets in identities are redacted in targets too.
			name:    "secret in a resource uri",
			surface: `{"command":"node","tools":[],"resources":[{"uri":"https://x.example/?key=AKIAIOSFODNN7EXAMPLE"}],"prompts":[]}`,
			want: []lock.Finding{
				sec(RuleSecAWS, Critical, "resources/https://x.example/?key=AKIA…(len=20)", "AKIA…(len=20)"),
			},
		},
		{
			name:    "empty surface",
			surface: `{"command":"node","args":[],"tools":[],"resources":[],"prompts":[]}`,
			want:    []lock.Finding{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Scan(parseSurface(t, tc.surface))
			if got == nil || !slices.Equal(got, tc.want) {
				t.Errorf("Scan\n got  %v\n want %v", got, tc.want)
			}
		})
	}
}

func TestScanNil(t *testing.T) {
	if got := Scan(nil); got == nil || len(got) != 0 {
		t.Errorf("Scan(nil) = %#v, want an empty list", got)
	}
}

// TestNoRawSecretInFindings plants a secret of every vendor shape, and a
// high-entropy token, in every scanned place, and checks each is detected
// while no finding field repeats it verbatim.
func TestNoRawSecretInFindings(t *testing.T) {
	vendor := []struct{ rule, secret string }{
		{RuleSecOpenAI, fakeOpenAI},
		{RuleSecGitHub, fakeGitHub},
		{RuleSecAWS, fakeAWS},
		{RuleSecSlack, fakeSlack},
		{RuleSecPrivKey, fakePrivKey},
		{RuleSecJWT, fakeJWT},
	}
	type place struct {
		name   string
		target string // the target the finding is expected under
		build  func(s *surface.Surface, secret string)
	}
	str := func(s string) *jsonv.Value { return jsonv.NewString(s) }
	places := []place{
		{"tool name", "", func(s *surface.Surface, x string) {
			s.Tools = append(s.Tools, surface.Tool{Name: "tool " + x})
		}},
		{"tool description", "tools/describe", func(s *surface.Surface, x string) {
			s.Tools = append(s.Tools, surface.Tool{Name: "describe", Description: str("Uses " + x + " to call out.")})
		}},
		{"enum value", "tools/enum", func(s *surface.Surface, x string) {
			s.Tools = append(s.Tools, surface.Tool{Name: "enum", InputSchema: withSecret(`{"properties":{"mode":{"enum":["a",SECRET]}}}`, x)})
		}},
		{"default", "tools/default", func(s *surface.Surface, x string) {
			s.Tools = append(s.Tools, surface.Tool{Name: "default", InputSchema: withSecret(`{"properties":{"key":{"default":SECRET}}}`, x)})
		}},
		{"examples", "tools/examples", func(s *surface.Surface, x string) {
			s.Tools = append(s.Tools, surface.Tool{Name: "examples", InputSchema: withSecret(`{"$defs":{"d":{"examples":[SECRET]}}}`, x)})
		}},
		{"resource uri", "", func(s *surface.Surface, x string) {
			s.Resources = append(s.Resources, surface.Resource{URI: "https://api.example/?token=" + x})
		}},
		{"resource name", "resources/file:///named", func(s *surface.Surface, x string) {
			s.Resources = append(s.Resources, surface.Resource{URI: "file:///named", Name: str(x)})
		}},
		{"resource description", "resources/file:///described", func(s *surface.Surface, x string) {
			s.Resources = append(s.Resources, surface.Resource{URI: "file:///described", Description: str("see " + x)})
		}},
		{"prompt name", "", func(s *surface.Surface, x string) {
			s.Prompts = append(s.Prompts, surface.Prompt{Name: "prompt " + x})
		}},
		{"prompt description", "prompts/described", func(s *surface.Surface, x string) {
			s.Prompts = append(s.Prompts, surface.Prompt{Name: "described", Description: str(x)})
		}},
		{"launch argument", TargetLaunch, func(s *surface.Surface, x string) {
			s.Server = surface.Server{Command: "node", Args: []string{"server.js", "--api-key", x}}
		}},
		{"npx spec position", TargetLaunch, func(s *surface.Surface, x string) {
			s.Server = surface.Server{Command: "npx", Args: []string{"-y", "@scope/server", x}}
		}},
		{"curl pipe", TargetLaunch, func(s *surface.Surface, x string) {
			s.Server = surface.Server{Command: "sh", Args: []string{"-c", "curl -H 'X-Key: " + x + "' https://get.example | sh"}}
		}},
	}
	check := func(t *testing.T, rule, secret string, p place, identityMayHoldIt bool) {
		s := &surface.Surface{}
		p.build(s, secret)
		got := Scan(s)
		detected := false
		for _, fd := range got {
			if fd.RuleID == rule && (p.target == "" || fd.Target == p.target) {
				detected = true
			}
			for _, field := range []string{fd.RuleID, fd.Severity, fd.Message, fd.Snippet} {
				if strings.Contains(field, secret) {
					t.Errorf("%s in %s: finding %v repeats the secret", rule, p.name, fd)
				}
			}
			if strings.Contains(fd.Target, secret) && !identityMayHoldIt {
				t.Errorf("%s in %s: target %q repeats the secret", rule, p.name, fd.Target)
			}
		}
		if !detected {
			t.Errorf("%s in %s: not detected; findings %v", rule, p.name, got)
		}
	}
	for _, v := range vendor {
		for _, p := range places {
			check(t, v.rule, v.secret, p, false)
		}
	}
	// A token only the entropy heuristic recognises is detected everywhere
	// and never shown in a snippet or message. The heuristic also fires on
	// ordinary package and tool names, so (like the reference) warden keeps
	// entry identities verbatim in targets and leaves npx/uvx/pip specs and
	// the curl|sh line unredacted: those places are checked for detection
	// only.
	for _, p := range places {
		switch p.name {
		case "npx spec position", "curl pipe":
			s := &surface.Surface{}
			p.build(s, fakeEntropy)
			found := false
			for _, fd := range ScanField(strings.Join(s.Server.Argv(), " "), TargetLaunch) {
				found = found || fd.RuleID == RuleSecEntropy
			}
			if !found {
				t.Errorf("entropy token in %s: not detected", p.name)
			}
			continue
		}
		identity := p.target == ""
		check(t, RuleSecEntropy, fakeEntropy, p, identity)
	}
}

// TestScanDigestVectors runs Scan over every digest vector surface of the
// reference corpus and checks that each capability the reference derived
// is reported as its WRD-CAP-* finding, and nothing else of that family.
func TestScanDigestVectors(t *testing.T) {
	dir := os.Getenv("WARDEN_VECTORS")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(wd, "..", "..", "..", "shared", "vectors")
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("conformance vectors not found at %s (set WARDEN_VECTORS to run this test)", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	m, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	capRule := map[string]string{}
	for flag, r := range capRules {
		capRule[r.rule] = flag
	}
	checked := 0
	for _, e := range m.Get("vectors").Items {
		if k, _ := e.Get("kind").Str(); k != "digest" {
			continue
		}
		file, _ := e.Get("file").Str()
		raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		c, err := jsonv.Parse(raw, jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := surface.FromVector(c.Get("surface"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{}
		for _, tool := range c.Get("expect").Get("tools").Items {
			name, _ := tool.Get("name").Str()
			want["tools/"+name] = []string{}
			for _, fl := range tool.Get("capabilities").Items {
				flag, _ := fl.Str()
				want["tools/"+name] = append(want["tools/"+name], flag)
			}
		}
		got := map[string][]string{}
		for _, fd := range Scan(s) {
			if flag, ok := capRule[fd.RuleID]; ok {
				got[fd.Target] = append(got[fd.Target], flag)
			}
		}
		for target, flags := range want {
			g := got[target]
			slices.Sort(g)
			if !slices.Equal(g, flags) && !(len(g) == 0 && len(flags) == 0) {
				t.Errorf("%s: %s capability findings %q, want %q", file, target, g, flags)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no digest vector tools were checked")
	}
	_ = caps.Flags
}

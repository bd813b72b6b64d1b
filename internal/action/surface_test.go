package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseInputsSurface(t *testing.T) {
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	in, err := ParseInputs(get(map[string]string{"surface": " mcp/surface.json ", "mode": "pin"}))
	if err != nil || in.Surface != "mcp/surface.json" || len(in.Argv) != 0 || in.URL != "" {
		t.Fatalf("%+v, %v", in, err)
	}
	for _, tc := range []struct {
		inputs map[string]string
		want   string
	}{
		{map[string]string{"surface": "s.json", "server-cmd": "node s.js"}, "give exactly one"},
		{map[string]string{"surface": "s.json", "server-url": "https://example.com/mcp"}, "give exactly one"},
		{map[string]string{"surface": "s.json", "config": ".mcp.json"}, "give exactly one"},
		{map[string]string{"surface": "s.json", "env": "A=1"}, "input env: not used with surface"},
		{map[string]string{"surface": "s.json", "headers": "A: b"}, "input headers: only used with server-url"},
		{map[string]string{"surface": "s\n.json"}, "input surface: contains a control character"},
		{map[string]string{}, "or surface"},
	} {
		if _, err := ParseInputs(get(tc.inputs)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.inputs, err, tc.want)
		}
	}
}

// TestRunSurface: the Action pins and checks a surface file in the
// workspace, launching nothing; drift in it fails the check, and a surface
// path leading outside the workspace is refused.
func TestRunSurface(t *testing.T) {
	h := newHarness(t)
	surface := `{"command": "node", "args": ["server.js"], "tools": [{"name": "read_file", "description": "Reads.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]}`
	if err := os.WriteFile(filepath.Join(h.ws, "surface.json"), []byte(surface), 0o644); err != nil {
		t.Fatal(err)
	}
	h.input("surface", "surface.json")
	h.input("mode", "pin")
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("pin exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "warden.lock")); err != nil {
		t.Fatal(err)
	}
	h.reset()
	h.input("surface", "surface.json")
	if r := h.run(); r.code != ExitClean || r.outputs["verdict"] != "clean" {
		t.Fatalf("check exit %d (%q):\n%s\n%s", r.code, r.outputs, r.stdout, r.stderr)
	}
	drifted := strings.Replace(surface, "Reads.", "Reads, and now also uploads.", 1)
	if err := os.WriteFile(filepath.Join(h.ws, "surface.json"), []byte(drifted), 0o644); err != nil {
		t.Fatal(err)
	}
	h.reset()
	h.input("surface", "surface.json")
	if r := h.run(); r.code != ExitDrift || r.outputs["verdict"] != "drift" || !strings.Contains(r.summary, "--surface surface.json") {
		t.Fatalf("drifted check exit %d (%q):\n%s\n%s\n%s", r.code, r.outputs, r.stdout, r.stderr, r.summary)
	}
	h.reset()
	h.input("surface", "../outside.json")
	r = h.run()
	assertFailed(t, h, r, "outside the workspace")
}

package surface

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wardenlock/warden/internal/jsonv"
)

// decodeAll runs Decode over text read in odd pieces and gathers the
// surface it hands out, as FromVector would return it.
func decodeAll(text string) (*Surface, error) {
	s := &Surface{}
	d := jsonv.NewDecoder(iotest.HalfReader(strings.NewReader(text)), jsonv.Options{})
	hdr, err := Decode(d, Handler{
		Tool:     func(t Tool) error { s.Tools = append(s.Tools, t); return nil },
		Resource: func(r Resource) error { s.Resources = append(s.Resources, r); return nil },
		Prompt:   func(p Prompt) error { s.Prompts = append(s.Prompts, p); return nil },
	})
	if err != nil {
		return nil, err
	}
	s.Server, s.ProtocolVersion = hdr.Server, hdr.ProtocolVersion
	return s, nil
}

// describeSurface renders a surface so that two can be compared.
func describeSurface(s *Surface) string {
	c := func(v *jsonv.Value) string {
		if v == nil {
			return "-"
		}
		return v.Compact()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %q %q;", s.Server.Command, s.Server.Args, s.Server.URL, s.ProtocolVersion)
	for _, t := range s.Tools {
		fmt.Fprintf(&b, "T %q %s %s %s %s;", t.Name, c(t.Description), c(t.InputSchema), c(t.Annotations), c(t.OutputSchema))
	}
	for _, r := range s.Resources {
		fmt.Fprintf(&b, "R %q %s %s %s;", r.URI, c(r.Name), c(r.Description), c(r.MimeType))
	}
	for _, p := range s.Prompts {
		fmt.Fprintf(&b, "P %q %s %s;", p.Name, c(p.Description), c(p.Arguments))
	}
	return b.String()
}

var surfaceSeeds = []string{
	`{"command": "node", "args": ["s.js"], "tools": [{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "annotations": null}], "resources": [{"uri": "u", "name": "n", "mimeType": "text/plain"}], "prompts": [{"name": "p", "arguments": [{"name": "x"}]}]}`,
	`{"tools": [{"name": "a"}], "url": "https://example.com/mcp", "command": "ignored", "protocolVersion": "2025-06-18"}`,
	`{"url": "", "command": "uvx", "tools": null, "resources": [], "extra": {"x": [1]}}`,
	`{}`, `[]`, `{"tools": {}}`, `{"tools": [1]}`, `{"tools": [{"name": 1}]}`, `{"tools": [{"name": "a", "annotations": "x"}]}`,
	`{"command": 1}`, `{"args": ["a", 2]}`, `{"args": "a"}`, `{"protocolVersion": 5}`, `{"resources": [{"name": "n"}]}`, `{"prompts": [{}]}`,
	`{"tools": [{"name": "a", "description": 5}]}`, `{"tools": [{"name": "a", "outputSchema": []}]}`, `{"tools": [{"name": "a"}] x`,
}

// TestDecodeMatchesFromVector: what Decode hands out and returns is what
// FromVector makes of the parsed document, and both refuse the same
// documents; Decode alone refuses repeated identities.
func TestDecodeMatchesFromVector(t *testing.T) {
	for _, text := range surfaceSeeds {
		checkDecode(t, text)
	}
	for _, text := range []string{
		`{"tools": [{"name": "a"}, {"name": "b"}, {"name": "a"}]}`,
		`{"resources": [{"uri": "u"}, {"uri": "u"}]}`,
		`{"prompts": [{"name": "p"}, {"name": "p"}]}`,
	} {
		if _, err := decodeAll(text); err == nil || !strings.Contains(err.Error(), "appears more than once") {
			t.Errorf("%s: err = %v", text, err)
		}
	}
}

func checkDecode(t *testing.T, text string) {
	t.Helper()
	var want string
	v, err := jsonv.Parse([]byte(text), jsonv.Options{})
	if err == nil {
		var s *Surface
		if s, err = FromVector(v); err == nil {
			want = describeSurface(s)
		}
	}
	got, gerr := decodeAll(text)
	switch {
	case err != nil && gerr == nil:
		t.Fatalf("%s: FromVector refused (%v), Decode accepted", text, err)
	case err == nil && gerr != nil && !strings.Contains(gerr.Error(), "appears more than once"):
		t.Fatalf("%s: Decode refused (%v), FromVector accepted", text, gerr)
	case err == nil && gerr == nil && describeSurface(got) != want:
		t.Fatalf("%s:\nDecode     %s\nFromVector %s", text, describeSurface(got), want)
	case gerr != nil && strings.Contains(gerr.Error(), "\n"):
		t.Fatalf("%s: error is not one line: %q", text, gerr)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range surfaceSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkDecode(t, text)
	})
}

func TestDecodeHandlerErrorStops(t *testing.T) {
	d := jsonv.NewDecoder(strings.NewReader(`{"tools": [{"name": "a"}, {"name": "b"}], "command": "x"}`), jsonv.Options{})
	calls := 0
	_, err := Decode(d, Handler{Tool: func(Tool) error { calls++; return fmt.Errorf("no room") }})
	if err == nil || err.Error() != "surface: tools[0]: no room" || calls != 1 {
		t.Fatalf("err = %v after %d calls", err, calls)
	}
}

func TestOpenSurfaceFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), "read surface file "+dir+": not a regular file (a directory)") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Open("-", nil); err == nil {
		t.Error("stdin without a reader accepted")
	}
	f, err := Open("-", strings.NewReader(`{"tools": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(jsonv.NewDecoder(f, jsonv.Options{}), Handler{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.json")
	if err := os.WriteFile(path, []byte(`{"command": "node"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hdr, err := Decode(jsonv.NewDecoder(f, jsonv.Options{}), Handler{})
	if err != nil || hdr.Server.Command != "node" {
		t.Fatalf("%+v, %v", hdr, err)
	}
}

// TestVectorRoundTrip: Vector writes what FromVector and Decode read back.
func TestVectorRoundTrip(t *testing.T) {
	for _, text := range surfaceSeeds[:3] {
		v, err := jsonv.Parse([]byte(text), jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := FromVector(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeAll(s.Vector().Compact())
		if err != nil {
			t.Fatal(err)
		}
		if describeSurface(back) != describeSurface(s) {
			t.Errorf("round trip of %s:\n got %s\nwant %s", text, describeSurface(back), describeSurface(s))
		}
	}
}

// TestRawToolMatchesTool: tools cut out with RawTool and parsed with
// ParseTool (or a reused ToolParser) are the tools Decode hands to Tool, and
// the other entries and the header are read alike; an item that is not an
// object is refused alike.
func TestRawToolMatchesTool(t *testing.T) {
	docs := []string{
		`{"command": "node", "args": ["s.js"], "tools": [{"name": "a", "description": "d \"q\" }]", "inputSchema": {"type": "object", "properties": {"x": {"enum": [1, 2.50, "\u00e9"]}}}}, {"name": "b", "annotations": {"readOnlyHint": true}, "outputSchema": {"type": "object"}, "x": [[[]]]}], "resources": [{"uri": "file:///r"}], "prompts": [{"name": "p"}]}`,
		`{"tools": [{"name": "a"}, 7, {"name": "c"}], "url": "https://example.com/mcp"}`,
		`{"tools": null, "command": "x"}`,
		`{"tools": [], "command": "x", "protocolVersion": "2025-06-18"}`,
	}
	for _, doc := range docs {
		var want []string
		wantHdr, wantErr := Decode(jsonv.NewDecoder(strings.NewReader(doc), jsonv.Options{}), Handler{Tool: func(tool Tool) error {
			want = append(want, describeTool(tool))
			return nil
		}})
		var got, reused []string
		var tp ToolParser
		gotHdr, gotErr := Decode(jsonv.NewDecoder(strings.NewReader(doc), jsonv.Options{}), Handler{RawTool: func(raw []byte) ([]byte, error) {
			tool, err := ParseTool(raw)
			if err != nil {
				return nil, err
			}
			got = append(got, describeTool(tool))
			again, err := tp.Parse(raw)
			if err != nil {
				return nil, err
			}
			reused = append(reused, describeTool(again))
			// Handing the same buffer back has the next item cut over
			// this one's text.
			return raw, nil
		}})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || fmt.Sprint(gotHdr) != fmt.Sprint(wantHdr) {
			t.Errorf("%s: RawTool gives %v %v, Tool %v %v", doc, gotHdr, gotErr, wantHdr, wantErr)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(reused) != fmt.Sprint(want) {
			t.Errorf("%s: tools\n%v\n%v\nwant\n%v", doc, got, reused, want)
		}
		// Texts handed over are the caller's: kept ones stay whole while
		// later items are cut into new buffers.
		var kept [][]byte
		Decode(jsonv.NewDecoder(strings.NewReader(doc), jsonv.Options{}), Handler{RawTool: func(raw []byte) ([]byte, error) {
			kept = append(kept, raw)
			return nil, nil
		}})
		for i, raw := range kept {
			tool, err := ParseTool(raw)
			if err != nil || i >= len(want) || describeTool(tool) != want[i] {
				t.Errorf("%s: kept text %d reads %q (%v)", doc, i, raw, err)
			}
		}
	}
}

// describeTool is a tool's parts as text.
func describeTool(tool Tool) string {
	text := func(v *jsonv.Value) string {
		if v == nil {
			return "-"
		}
		return v.Compact()
	}
	return strings.Join([]string{tool.Name, text(tool.Description), text(tool.InputSchema), text(tool.Annotations), text(tool.OutputSchema)}, " ")
}

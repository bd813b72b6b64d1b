package surface

import (
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

func parse(t *testing.T, s string) *jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(s), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestFromVectorStdio(t *testing.T) {
	s, err := FromVector(parse(t, `{"command": "node", "args": ["a", "b"], "tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object", "x": 1.0}, "annotations": null}], "resources": [{"uri": "file:///x", "mimeType": "text/plain"}], "prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Server.IsHTTP() || strings.Join(s.Server.Argv(), " ") != "node a b" {
		t.Fatalf("server = %+v", s.Server)
	}
	tool := s.Tools[0]
	if tool.DescriptionText() != "d" || tool.InputSchema.Get("x").Text != "1.0" || tool.Annotations == nil || !tool.Annotations.IsNull() || tool.OutputSchema != nil {
		t.Fatalf("tool = %+v", tool)
	}
	if s.Resources[0].Name != nil || s.Resources[0].MimeType.Text != "text/plain" {
		t.Fatalf("resource = %+v", s.Resources[0])
	}
	if len(s.Prompts[0].Arguments.Items) != 1 {
		t.Fatalf("prompt = %+v", s.Prompts[0])
	}
}

func TestFromVectorHTTP(t *testing.T) {
	s, err := FromVector(parse(t, `{"url": "https://example.com/mcp", "tools": [], "resources": [], "prompts": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Server.IsHTTP() || s.Server.URL != "https://example.com/mcp" || s.Server.Command != "" || len(s.Server.Args) != 0 {
		t.Fatalf("server = %+v", s.Server)
	}
}

func TestFromVectorRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"not object":         `[]`,
		"command number":     `{"command": 5}`,
		"args not array":     `{"command": "x", "args": "y"}`,
		"arg not string":     `{"command": "x", "args": [1]}`,
		"tools not array":    `{"tools": {}}`,
		"tool not object":    `{"tools": [1]}`,
		"tool without name":  `{"tools": [{"description": "x"}]}`,
		"annotations string": `{"tools": [{"name": "t", "annotations": "yes"}]}`,
		"output array":       `{"tools": [{"name": "t", "outputSchema": []}]}`,
		"description number": `{"tools": [{"name": "t", "description": 5}]}`,
		"resource uri":       `{"resources": [{"name": "r"}]}`,
		"prompt name":        `{"prompts": [{"name": 1}]}`,
	} {
		if _, err := FromVector(parse(t, in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

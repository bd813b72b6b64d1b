package reporttest

import (
	"reflect"
	"testing"
)

func TestUpgradeChanges(t *testing.T) {
	before := `{"tools": [
	  {"name": "echo", "description": "Echoes back the input", "inputSchema": {"type": "object", "properties": {"message": {"type": "string", "description": "Message to echo"}}, "required": ["message"], "additionalProperties": false}},
	  {"name": "same", "description": "d", "inputSchema": {"type": "object"}},
	  {"name": "mode", "inputSchema": {"properties": {"m": {"enum": ["a", "b"]}}}, "annotations": {"readOnlyHint": true}},
	  {"name": "out", "inputSchema": {}}
	]}`
	after := `{"tools": [
	  {"name": "echo", "description": "Echoes back the input string", "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}, "annotations": {"readOnlyHint": true}},
	  {"name": "same", "description": "d", "inputSchema": {"type": "object"}},
	  {"name": "mode", "inputSchema": {"properties": {"m": {"enum": ["a", "b", "c"]}}}, "annotations": {"readOnlyHint": false, "x": {"y": 1}}},
	  {"name": "new", "description": "brand new"},
	  {"name": "out", "inputSchema": {}, "outputSchema": {"type": "object", "properties": {"r": {"type": "string"}}}}
	]}`
	got, err := UpgradeChanges([]byte(before), []byte(after))
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	want := []ToolChange{
		{Tool: "echo", OldDescription: str("Echoes back the input"), NewDescription: str("Echoes back the input string"),
			Facts: []Fact{{"additionalProperties", "false", Absent}, {"properties/message/description", `"Message to echo"`, Absent}},
			Hints: []Fact{{"readOnlyHint", Absent, "true"}}},
		{Tool: "mode", Facts: []Fact{{"properties/m/enum", `["a","b"]`, `["a","b","c"]`}},
			Hints: []Fact{{"readOnlyHint", "true", "false"}, {"x/y", Absent, "1"}}},
		{Tool: "new", Added: true, NewDescription: str("brand new")},
		{Tool: "out", OutputFacts: []Fact{{"properties/r/type", Absent, `"string"`}, {"type", Absent, `"object"`}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if w := got[0].AddedWords(); !reflect.DeepEqual(w, []string{"string"}) || got[0].RemovedWords() != nil {
		t.Errorf("words: +%q -%q", w, got[0].RemovedWords())
	}
	if l := got[1].Hints[0].Line(); l != "readOnlyHint: true -> false" {
		t.Errorf("Line %q", l)
	}
}

func TestToolChangeMissing(t *testing.T) {
	str := func(s string) *string { return &s }
	c := ToolChange{Tool: "echo", OldDescription: str("Echoes the input"), NewDescription: str("Echoes back the input string"),
		Facts: []Fact{{"additionalProperties", "false", Absent}}}
	shown := []string{"  echo row", "        - ", "        + back", "          + string", "      additionalProperties: false -> (absent)"}
	if m := c.Missing(shown); m != nil {
		t.Errorf("Missing(shown) = %q", m)
	}
	want := []string{`tool echo: added word "back" is on no "+ " line`, `tool echo: "additionalProperties: false -> (absent)" is not shown`}
	if m := c.Missing([]string{"+ string", "back"}); !reflect.DeepEqual(m, want) {
		t.Errorf("Missing = %q", m)
	}
	added := ToolChange{Tool: "n", Added: true, NewDescription: str("Brand new.\nMore.")}
	if m := added.Missing([]string{"description: Brand", "    new.  More. "}); m != nil {
		t.Errorf("added: %q", m)
	}
	if m := added.Missing([]string{"Brand new."}); len(m) != 1 {
		t.Errorf("added, not shown: %q", m)
	}
}

func TestItemBlocks(t *testing.T) {
	text := "DRIFT\n  SEVERITY CLASS TARGET\n  high tool-added tools/a  Tool 'a' added\n      quoted:\n        high x tools/b\n  low description-modified tools/b  m\n" +
		"\nhigh tool-added tools/a\n  more about a\n"
	got := ItemBlocks(text)
	want := map[string][]string{
		"tools/a": {"  high tool-added tools/a  Tool 'a' added", "      quoted:", "        high x tools/b", "high tool-added tools/a", "  more about a", ""},
		"tools/b": {"  low description-modified tools/b  m", ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ItemBlocks:\n got %q\nwant %q", got, want)
	}
}

func TestToolChangeMissingOutputCapped(t *testing.T) {
	c := ToolChange{Tool: "out", OutputFacts: []Fact{{"a", Absent, "1"}, {"b", Absent, "2"}}}
	tests := []struct {
		lines []string
		miss  int
	}{
		{[]string{"a: (absent) -> 1", "b: (absent) -> 2"}, 0},
		{[]string{"a: (absent) -> 1"}, 1},
		{[]string{"a: (absent) -> 1", "… 1 more line(s) left out"}, 0},
		{[]string{"… 2 more line(s) left out"}, 1},
	}
	for _, tt := range tests {
		if m := c.Missing(tt.lines); len(m) != tt.miss {
			t.Errorf("Missing(%q) = %q, want %d miss(es)", tt.lines, m, tt.miss)
		}
	}
}

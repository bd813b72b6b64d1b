package report

import "testing"

// lockText is laid out like a written lock, with entries chosen to trip a
// naive line matcher: a description-like string holding `"name": "b"`, a
// nested "name" key, escapes that decode to the same text as another entry,
// and a resource whose uri mentions a tool.
const lockText = `{
  "schema_version": 4,
  "server": {
    "command": "npx",
    "args": ["\"name\": \"b\""],
    "url": null
  },
  "tools": [
    {
      "name": "a",
      "schema_skeleton": {"props": {"name": {"type": ["string"]}}},
      "entry_digest": "sha256:1"
    },
    {
      "name": "b\n::error::x",
      "entry_digest": "sha256:2"
    },
    {
      "name": "\u0063",
      "entry_digest": "sha256:3"
    },
    {
      "name": "a",
      "entry_digest": "duplicate keeps the first line"
    }
  ],
  "resources": [
    {
      "uri": "file:///tools/a",
      "name": "not a resource key"
    }
  ],
  "prompts": [
    {"name": "a", "description_hash": "x"},
    {
      "name": "p|q"
    }
  ],
  "findings": [{"rule_id": "X", "target": "tools/a", "name": "zzz"}],
  "pin": {"name": "pinname"}
}
`

func TestIndexLock(t *testing.T) {
	ix := IndexLock([]byte(lockText))
	tests := []struct {
		target string
		line   int
	}{
		{"tools/a", 10},
		{"tools/b\n::error::x", 15},
		{"tools/c", 19},
		{"resources/file:///tools/a", 29},
		{"prompts/a", 34},
		{"prompts/p|q", 36},
		// Not entries of the lock: line 1.
		{"launch/command", 1},
		{"pin/approved_digest", 1},
		{"lock/overall_digest", 1},
		{"tools/zzz", 1},
		{"tools/pinname", 1},
		{"resources/not a resource key", 1},
		{"tools/\"name\": \"b\"", 1},
		{"tools/b", 1},
		{"prompts/p", 1},
	}
	for _, tt := range tests {
		if got := ix.Line(tt.target); got != tt.line {
			t.Errorf("Line(%q) = %d, want %d", tt.target, got, tt.line)
		}
	}
}

func TestIndexLockDegenerate(t *testing.T) {
	tests := []struct {
		name, text, target string
		line               int
	}{
		{"empty", "", "tools/a", 1},
		{"not json", "tools: a", "tools/a", 1},
		{"truncated after entry", "{\"tools\": [\n{\"name\": \"a\"},\n{\"name\": ", "tools/a", 2},
		{"tools not an array", `{"tools": {"name": "a"}}`, "tools/a", 1},
		{"nested tools key", "{\"x\": {\"tools\": [{\"name\": \"a\"}]}}", "tools/a", 1},
		{"compact", `{"tools":[{"name":"a"},{"name":"b"}]}`, "tools/b", 1},
		{"huge number", "{\"n\": 1e999999,\n\"tools\": [\n{\"name\": \"a\"}]}", "tools/a", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IndexLock([]byte(tt.text)).Line(tt.target); got != tt.line {
				t.Errorf("Line(%q) = %d, want %d", tt.target, got, tt.line)
			}
		})
	}
	var nilIndex *LineIndex
	if got := nilIndex.Line("tools/a"); got != 1 {
		t.Errorf("nil index Line = %d, want 1", got)
	}
}

package explain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/surface"
)

// benchSurfaces returns a surface of n tools (eight properties each, one
// nested, an enum, a 300-byte description) and the same surface with every
// tenth tool changed: its description reworded, its enum widened, a type
// broadened and a property added, in turn.
func benchSurfaces(b *testing.B, n int) (before, after *surface.Surface) {
	tool := func(i int, changed bool) string {
		desc := strings.Repeat(fmt.Sprintf("Tool %d reads records from the store and returns them as JSON. ", i), 5)
		enum := `["asc", "desc"]`
		typ := `"integer"`
		extra := ""
		if changed {
			switch i / 10 % 4 {
			case 0:
				desc = strings.Replace(desc, "returns them", "sends them to the operator", 2)
			case 1:
				enum = `["asc", "desc", "raw"]`
			case 2:
				typ = `["integer", "string"]`
			case 3:
				extra = `, "note": {"type": "string"}`
			}
		}
		return fmt.Sprintf(`{"name": "tool_%04d", "description": %q, "inputSchema": {"type": "object", "properties": {
			"id": {"type": "string", "maxLength": 64}, "order": {"type": "string", "enum": %s}, "limit": {"type": %s, "minimum": 1},
			"offset": {"type": "integer"}, "fields": {"type": "array", "items": {"type": "string"}},
			"filter": {"type": "object", "properties": {"field": {"type": "string"}, "value": {"type": "string"}}},
			"verbose": {"type": "boolean"}, "cursor": {"type": "string"}%s}, "required": ["id"]},
			"annotations": {"readOnlyHint": true}}`, i, desc, enum, typ, extra)
	}
	var bs, as []string
	for i := 0; i < n; i++ {
		bs = append(bs, tool(i, false))
		as = append(as, tool(i, i%10 == 0))
	}
	return surf(b, tools(bs...)), surf(b, tools(as...))
}

func BenchmarkItems(b *testing.B) {
	before, after := benchSurfaces(b, 1000)
	items := compare(b, before, after)
	if len(items) != 100 {
		b.Fatalf("%d items, want 100", len(items))
	}
	b.Run("1000-tools-10pct-snapshot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Items(items, before, after)
		}
	})
	b.Run("1000-tools-10pct-current", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Items(items, nil, after)
		}
	})
	// For scale: what check already spends on the same surfaces.
	b.Run("compare-for-scale", func(b *testing.B) {
		for b.Loop() {
			compare(b, before, after)
		}
	})
}

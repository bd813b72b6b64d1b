package skeleton

import (
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

var writerSeeds = []string{
	`{}`, `5`, `null`,
	`{"type":"object","properties":{"a":{"type":"string","maxLength":5},"b":{"enum":["b","a",1,true,null,{"k":1,"a":[2.50]}]}},"required":["a"]}`,
	`{"properties":{"x":{"$ref":"#/$defs/n"},"s":{"$ref":{"a":1},"title":"t"}},"$defs":{"n":{"type":["string","null"],"minimum":-0,"maximum":1e2}}}`,
	`{"properties":{"\ue000":{},"\ud83d\ude00":{},"a\u0001\"b":{"format":"x"}}}`,
	// Plain paths beside paths whose code-point and UTF-16 orders differ,
	// nested, with records of every kind.
	`{"properties":{"\uffff":{"type":"string","maxLength":3},"\ud83d\udcc1":{"type":"object","properties":{"\ue000x":{"enum":[2,1]},"a":{},"\ud800\udc00":{"type":["integer","null"]}}},"z":{"type":"boolean"},"\uff41":{}},"required":["z","\uffff"]}`,
	`{"properties":{"a":{"additionalProperties":{"type":"string","b":{"z":1,"a":2}}}}}`,
	`{"properties":{"n":{"maximum":9007199254740993}}}`,
	`{"properties":{"f":{"minimum":1e400}}}`,
	// Constraint values nested close to, and past, canon.MaxDepth where
	// the record sits.
	`{"properties":{"a":{"additionalProperties":` + strings.Repeat("[", 507) + strings.Repeat("]", 507) + `,"format":"x"}}}`,
	`{"properties":{"a":{"additionalProperties":` + strings.Repeat("[", 508) + strings.Repeat("]", 508) + `,"format":"x"}}}`,
	`{"properties":{"a":{"maximum":` + strings.Repeat("[", 509) + strings.Repeat("]", 509) + `}}}`,
}

// checkWriters holds AppendCompact and WriteCanonical to Value's tree.
func checkWriters(t *testing.T, data []byte) {
	t.Helper()
	v, err := jsonv.Parse(data, jsonv.Options{MaxDepth: 512})
	if err != nil {
		return
	}
	// An Extractor that extracted other schemas first, reusing their
	// memory (see slab), gives the same; so does a skeleton without the
	// records in order that Extract keeps, written from its map.
	var x Extractor
	x.Extract(jsonv.NewObject(jsonv.M("properties", jsonv.NewObject(jsonv.M("zz", jsonv.NewObject())))))
	x.Extract(parse(t, benchSchema))
	fresh := Extract(v)
	want := fresh.Value().Compact()
	for name, sk := range map[string]*Skeleton{
		"a reused Extractor": x.Extract(v),
		"the map":            {Paths: fresh.Paths, Records: fresh.Records},
	} {
		if got := string(sk.AppendCompact(nil)); got != want {
			t.Fatalf("%s: %s gives\n%s\nwant\n%s", data, name, got, want)
		}
		for _, level := range []int{0, 3, 40} {
			wantIndent := string(pyfmt.AppendIndentRaw([]byte("x"), jsonv.CompactRawString(want), 2, level))
			if got := string(sk.AppendIndent([]byte("x"), 2, level)); got != wantIndent {
				t.Fatalf("%s: AppendIndent from %s at level %d gives\n%s\nwant\n%s", data, name, level, got, wantIndent)
			}
		}
		var h, g canon.Hasher
		h.Begin()
		werr := sk.WriteCanonical(&h, 1)
		g.Begin()
		gerr := fresh.WriteCanonical(&g, 1)
		if (werr == nil) != (gerr == nil) || (werr == nil && h.Sum() != g.Sum()) {
			t.Fatalf("%s: WriteCanonical from %s differs (%v, %v)", data, name, werr, gerr)
		}
	}
	for _, sk := range []*Skeleton{Extract(v), nil} {
		tree := sk.Value()
		if got, want := string(sk.AppendCompact([]byte("x"))), "x"+tree.Compact(); got != want {
			t.Fatalf("%s: AppendCompact\n got %s\nwant %s", data, got, want)
		}
		for _, depth := range []int{0, 1, 2, 3, 509} {
			var h, g canon.Hasher
			h.Begin()
			werr := sk.WriteCanonical(&h, depth)
			g.Begin()
			gerr := g.WriteValue(tree, depth)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("%s at depth %d: WriteCanonical error %v, tree's %v", data, depth, werr, gerr)
			}
			if werr == nil && h.Sum() != g.Sum() {
				t.Fatalf("%s at depth %d: WriteCanonical differs from the tree's canonical text", data, depth)
			}
		}
	}
}

func TestWritersMatchValue(t *testing.T) {
	for _, s := range writerSeeds {
		checkWriters(t, []byte(s))
	}
}

func FuzzWriters(f *testing.F) {
	for _, s := range writerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWriters(t, data)
	})
}

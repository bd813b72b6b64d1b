package skeleton

import (
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

// FuzzExtract feeds arbitrary JSON to Extract: it must not panic, must stay
// within its work bound, must be deterministic, and its Value must be valid
// JSON that FromValue reads back to the same text.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		`{}`, `5`, `null`, `[]`,
		`{"type":"object","properties":{"a":{"type":"string","maxLength":5},"b":{"enum":["b","a",1,true,null,{"k":1},[2]]}},"required":["a"]}`,
		`{"properties":{"x":{"$ref":"#/$defs/na%6de"},"y":{"$ref":"#/$defs/a~1b"},"z":{"$ref":"#/$defs/l/01"}},"$defs":{"name":{"type":"string"},"a/b":{},"l":[{}]}}`,
		`{"properties":{"x":{"$ref":"#/$defs/loop"},"s":{"$ref":{"a":1},"title":"t"}},"$defs":{"loop":{"$ref":"#/$defs/loop"}}}`,
		`{"properties":{"a":{"properties":{"b":{"$ref":"#/properties/a"}}},"a.b":true,"$root":{}},"items":{"items":{}}}`,
		`{"additionalProperties":{"type":"string"},"pattern":null,"minimum":1e400,"enum":[1.0,1,-0,1e5,9.5,10.5]}`,
		diamond(8),
		refChain(300),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jsonv.Parse(data, jsonv.Options{MaxDepth: 512})
		if err != nil {
			return
		}
		sk := Extract(v)
		if len(sk.Records) > MaxWork/stepCost {
			t.Fatalf("%d records, over the work bound", len(sk.Records))
		}
		if len(sk.Paths) != len(sk.Records) {
			t.Fatalf("%d paths for %d records", len(sk.Paths), len(sk.Records))
		}
		for i := 1; i < len(sk.Paths); i++ {
			if sk.Paths[i-1] >= sk.Paths[i] {
				t.Fatalf("paths not sorted: %q, %q", sk.Paths[i-1], sk.Paths[i])
			}
		}
		text := sk.Value().Compact()
		if again := Extract(v).Value().Compact(); again != text {
			t.Fatalf("not deterministic:\n%s\n%s", text, again)
		}
		back, err := jsonv.Parse([]byte(text), jsonv.Options{})
		if err != nil {
			t.Fatalf("Value is not valid JSON: %v\n%s", err, text)
		}
		sk2, err := FromValue(back)
		if err != nil {
			t.Fatalf("FromValue(Value()): %v\n%s", err, text)
		}
		if got := sk2.Value().Compact(); got != text {
			t.Fatalf("round trip changed the skeleton:\n got %s\nwant %s", got, text)
		}
	})
}

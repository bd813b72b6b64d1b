package findings

import (
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

// schemaStringsByGet is schemaStrings as first written (Get per key), the
// oracle of FuzzSchemaStrings.
func schemaStringsByGet(schema *jsonv.Value, f func(string)) {
	stack := []*jsonv.Value{schema}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v.Kind {
		case jsonv.Object:
			if d, ok := v.Get("default").Str(); ok {
				f(d)
			}
			for _, key := range []string{"enum", "examples"} {
				if list := v.Get(key); list != nil && list.Kind == jsonv.Array {
					for _, it := range list.Items {
						if s, ok := it.Str(); ok {
							f(s)
						}
					}
				}
			}
			for i := len(v.Members) - 1; i >= 0; i-- {
				switch v.Members[i].Key {
				case "default", "enum", "examples":
					continue
				}
				stack = append(stack, v.Members[i].Value)
			}
		case jsonv.Array:
			for i := len(v.Items) - 1; i >= 0; i-- {
				stack = append(stack, v.Items[i])
			}
		}
	}
}

var schemaStringSeeds = []string{
	`{"default": "d", "enum": ["a", 1, "b"], "examples": ["x"], "properties": {"p": {"default": "q", "items": [{"enum": ["z"]}]}, "default": {"enum": ["hidden"]}}}`,
	`[{"default": "1"}, {"examples": ["2", "3"]}]`, `{}`, `"s"`,
}

func checkSchemaStrings(t *testing.T, text string) {
	t.Helper()
	v, err := jsonv.Parse([]byte(text), jsonv.Options{MaxDepth: 64})
	if err != nil {
		return
	}
	var got, want []string
	schemaStrings(v, func(s string) { got = append(got, s) })
	schemaStringsByGet(v, func(s string) { want = append(want, s) })
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
		t.Fatalf("schemaStrings(%s) = %q, want %q", text, got, want)
	}
}

func TestSchemaStringsOnePass(t *testing.T) {
	for _, s := range schemaStringSeeds {
		checkSchemaStrings(t, s)
	}
}

func FuzzSchemaStrings(f *testing.F) {
	for _, s := range schemaStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkSchemaStrings(t, text) })
}

package findings

import (
	"fmt"
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

var schemaStringSeeds = append([]string{
	`{"default": "d", "enum": ["a", 1, "b"], "examples": ["x"], "properties": {"p": {"default": "q", "items": [{"enum": ["z"]}]}, "default": {"enum": ["hidden"]}}}`,
	`[{"default": "1"}, {"examples": ["2", "3"]}]`, `{}`, `"s"`,
}, deepSchemas()...)

// deepSchemas are schemas nested around and past the depth where
// schemaStrings stops recursing (schemaRecursion), with strings to report
// at every level, members before and after the nested one, and arrays
// nested in arrays.
func deepSchemas() []string {
	var out []string
	for _, depth := range []int{schemaRecursion - 1, schemaRecursion, schemaRecursion + 1, 2*schemaRecursion + 3, 300} {
		var b strings.Builder
		for i := range depth {
			fmt.Fprintf(&b, `{"default": "d%d", "a": {"enum": ["e%d"]}, "p": [[`, i, i)
		}
		b.WriteString(`{"examples": ["bottom"]}`)
		for i := range depth {
			fmt.Fprintf(&b, `], {"default": "after%d"}], "z": {"examples": ["z%d"]}}`, i, i)
		}
		out = append(out, b.String())
	}
	return out
}

func checkSchemaStrings(t *testing.T, text string) {
	t.Helper()
	v, err := jsonv.Parse([]byte(text), jsonv.Options{MaxDepth: 2000})
	if err != nil {
		return
	}
	var got, want []string
	schemaStrings(v, func(s string) { got = append(got, s) })
	schemaStringsByGet(v, func(s string) { want = append(want, s) })
	if len(want) == 0 && strings.Contains(text, "bottom") {
		t.Fatalf("%.40s…: the oracle reports nothing", text)
	}
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

func TestSchemaStringsDeep(t *testing.T) {
	for _, text := range deepSchemas() {
		v, err := jsonv.Parse([]byte(text), jsonv.Options{MaxDepth: 2000})
		if err != nil {
			t.Fatalf("%.40s…: %v", text, err)
		}
		var got []string
		schemaStrings(v, func(s string) { got = append(got, s) })
		// Four strings a level (d, e, after, z) and the one at the bottom.
		if levels := strings.Count(text, `"default": "d`); len(got) != 4*levels+1 {
			t.Fatalf("%d levels: %d strings", levels, len(got))
		}
		checkSchemaStrings(t, text)
	}
}

package skeleton

import (
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// normEnumSlow is normEnum as first written: each key a string of its own.
func normEnumSlow(v *jsonv.Value) *jsonv.Value {
	if v == nil || v.Kind != jsonv.Array {
		return nil
	}
	type keyed struct {
		typ, text string
		v         *jsonv.Value
	}
	ks := make([]keyed, len(v.Items))
	for i, it := range v.Items {
		if it == nil {
			it = jsonv.NewNull()
		}
		ks[i] = keyed{pyfmt.TypeName(it), pyfmt.Dumps(it, true), it}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		return strings.Compare(a.text, b.text)
	})
	items := make([]*jsonv.Value, len(ks))
	for i, k := range ks {
		items[i] = k.v
	}
	return jsonv.NewArray(items...)
}

var enumSeeds = []string{`[]`, `[1]`, `["b","a",1,true,null,{"k":1,"a":[2.50]},[3],1.0,-0,"\u00e9"]`, `[10.5,9.5,1e2,100]`, `[{"b":1},{"a":2},{"a":1}]`, `["x","x","y"]`,
	`["ab","a","a!","a b","a\"","a#","a\\","#","~","\u007f","é","a\u0000",""]`, `[3,"b",2,"a"]`, `[null,false,null,true,[],{}]`}

// FuzzNormEnum holds normEnum (keys in one shared buffer) to the first
// version (a string per key).
func FuzzNormEnum(f *testing.F) {
	for _, s := range enumSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := jsonv.Parse([]byte(text), jsonv.Options{MaxDepth: 64})
		if err != nil || v.Kind != jsonv.Array {
			return
		}
		var w walker
		if got, want := w.normEnum(v).Compact(), normEnumSlow(v).Compact(); got != want {
			t.Fatalf("normEnum(%s) = %s, want %s", text, got, want)
		}
	})
}

func TestNormEnumMatchesSlow(t *testing.T) {
	for _, s := range enumSeeds {
		v, err := jsonv.Parse([]byte(s), jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := normEnum(v).Compact(), normEnumSlow(v).Compact(); got != want {
			t.Errorf("normEnum(%s) = %s, want %s", s, got, want)
		}
	}
}

package skeleton

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

func TestExtract(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		// Shape and non-object roots (§3.1, §3.3, §1.2).
		{"non-object root number", `5`, props()},
		{"non-object root null", `null`, props()},
		{"non-object root array", `[{"type":"string"}]`, props()},
		{"non-object root bool", `true`, props()},
		{"empty object is the §3.7 record", `{}`, props("$root", anyRec)},
		{
			"properties and required",
			`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["b"]}`,
			props("$root", objRec, "a", intRec, "b", strReq),
		},
		{
			"required ignores non-string members and non-array required",
			`{"properties":{"a":{"type":"string"},"1":{"type":"string"},"x":{"properties":{"y":{"type":"string"}},"required":"y"}},"required":[1,"a",{"a":1}]}`,
			props("$root", anyRec, "1", strRec, "a", strReq, "x", anyRec, "x.y", strRec),
		},
		{
			"properties not an object is ignored",
			`{"properties":["a"],"items":true}`,
			props("$root", anyRec),
		},

		// norm_type (§3.4).
		{"type string", `{"type":"string"}`, props("$root", strRec)},
		{
			"type array deduplicated, sorted, non-strings dropped",
			`{"type":["string","null",5,"string","array"]}`,
			props("$root", rec(`["array","null","string"]`, false, "null", open)),
		},
		{"type array without strings", `{"type":[5,null]}`, props("$root", anyRec)},
		{"type empty array", `{"type":[]}`, props("$root", anyRec)},
		{"type number", `{"type":5}`, props("$root", anyRec)},
		{"type object", `{"type":{"a":"string"}}`, props("$root", anyRec)},
		{"type null", `{"type":null}`, props("$root", anyRec)},

		// norm_enum (§3.4).
		{
			"enum reference example",
			`{"enum":["b","a",1,true,null,{"k":1},[2]]}`,
			props("$root", rec("null", false, `[null,true,{"k":1},1,[2],"a","b"]`, open)),
		},
		{
			"enum floats sort as text",
			`{"enum":[9.5,10.5]}`,
			props("$root", rec("null", false, `[10.5,9.5]`, open)),
		},
		{
			"enum float 1.0 sorts before int 1, bool before both",
			`{"enum":[1,"1",1.0,true]}`,
			props("$root", rec("null", false, `[true,1.0,1,"1"]`, open)),
		},
		{
			"enum float key is its repr but the literal is kept",
			`{"enum":[2.5,1e5]}`,
			props("$root", rec("null", false, `[1e5,2.5]`, open)),
		},
		{
			"enum ints sort as text",
			`{"enum":[1,-1,0,10,9]}`,
			props("$root", rec("null", false, `[-1,0,1,10,9]`, open)),
		},
		{
			"enum strings sort on escaped text",
			`{"enum":["a\"","a#","a"]}`,
			props("$root", rec("null", false, `["a","a#","a\""]`, open)),
		},
		{
			"enum dicts sort on sorted-key text, keep their own member order",
			`{"enum":[{"a":1},{"b":1,"a":0}]}`,
			props("$root", rec("null", false, `[{"b":1,"a":0},{"a":1}]`, open)),
		},
		{
			"enum lists",
			`{"enum":[[1],[1,2],[]]}`,
			props("$root", rec("null", false, `[[1,2],[1],[]]`, open)),
		},
		{
			"enum duplicates kept, stable",
			`{"enum":[1,"x",1,false,0,false]}`,
			props("$root", rec("null", false, `[false,false,0,1,1,"x"]`, open)),
		},
		{"enum empty", `{"enum":[]}`, props("$root", rec("null", false, `[]`, open))},
		{"enum not an array", `{"enum":"a"}`, props("$root", anyRec)},
		{"enum null", `{"enum":null}`, props("$root", anyRec)},

		// constraints (§3.4, §3.3 notes).
		{
			"constraints raw, null kept, code-point order, cosmetic dropped",
			`{"pattern":5,"minimum":null,"minLength":1,"maximum":2.50,"maxLength":64,"format":["x"],"title":"t","description":"d","examples":[1],"default":"x","exclusiveMinimum":3}`,
			props("$root", rec("null", false, "null",
				`{"additionalProperties":true,"format":["x"],"maxLength":64,"maximum":2.50,"minLength":1,"minimum":null,"pattern":5}`)),
		},
		{
			"additionalProperties false",
			`{"type":"object","additionalProperties":false}`,
			props("$root", rec(`["object"]`, false, "null", `{"additionalProperties":false}`)),
		},
		{
			"additionalProperties schema kept raw, not recursed",
			`{"additionalProperties":{"type":"string","title":"T","properties":{"x":{}}}}`,
			props("$root", rec("null", false, "null", `{"additionalProperties":{"type":"string","title":"T","properties":{"x":{}}}}`)),
		},
		{"additionalProperties null", `{"additionalProperties":null}`, props("$root", rec("null", false, "null", `{"additionalProperties":null}`))},

		// Non-object children (§3.3).
		{
			"non-object children, parent's required ignored",
			`{"properties":{"t":true,"f":false,"n":null,"i":5,"a":[],"s":"x"},"required":["t","f","n","i","a","s"]}`,
			props("$root", anyRec, "a", anyRec, "f", anyRec, "i", anyRec, "n", anyRec, "s", anyRec, "t", anyRec),
		},

		// items (§3.1, §3.3).
		{"root items", `{"type":"array","items":{"type":"string"}}`, props("$root", rec(`["array"]`, false, "null", open), "[]", strRec)},
		{
			"nested arrays and object items",
			`{"properties":{"a":{"items":{"items":{"type":"integer"}}},"o":{"items":{"properties":{"b":{"type":"string"}},"required":["b"]}}}}`,
			props("$root", anyRec, "a", anyRec, "a[]", anyRec, "a[][]", intRec, "o", anyRec, "o[]", anyRec, "o[].b", strReq),
		},
		{"tuple items not recursed", `{"items":[{"type":"string"}]}`, props("$root", anyRec)},
		{"boolean items not recorded", `{"properties":{"a":{"items":false}}}`, props("$root", anyRec, "a", anyRec)},

		// Keywords that are never recursed (§3.3).
		{
			"applicators and definitions not recursed",
			`{"anyOf":[{"properties":{"a":{}}}],"oneOf":[{"properties":{"b":{}}}],"allOf":[{"properties":{"c":{}}}],
			  "not":{"properties":{"d":{}}},"if":{"properties":{"e":{}}},"then":{"properties":{"f":{}}},"else":{"properties":{"g":{}}},
			  "patternProperties":{"^h":{"type":"string"}},"prefixItems":[{"type":"string"}],"dependentSchemas":{"i":{"properties":{"j":{}}}},
			  "$defs":{"k":{"type":"string"}},"definitions":{"l":{"type":"string"}}}`,
			props("$root", anyRec),
		},

		// Path collisions (§3.6).
		{
			"a.b literal key overwrites nested a.b",
			`{"properties":{"a":{"properties":{"b":{"type":"integer"}}},"a.b":{"type":"string"}}}`,
			props("$root", anyRec, "a", anyRec, "a.b", strRec),
		},
		{
			"property named $root overwrites the root record",
			`{"type":"object","properties":{"$root":{"type":"string"}},"required":["$root"]}`,
			props("$root", strReq),
		},
		{
			"root items overwrite a property named []",
			`{"properties":{"[]":{"type":"string"}},"items":{"type":"integer"}}`,
			props("$root", anyRec, "[]", intRec),
		},
		{
			"empty property key writes $root; a non-object one writes nothing",
			`{"type":"object","properties":{"":{"type":"string"}},"required":[""]}`,
			props("$root", strReq),
		},
		{
			"empty property key with non-object value writes nothing",
			`{"type":"object","properties":{"":true}}`,
			props("$root", objRec),
		},
		{
			"keys are raw, not escaped",
			`{"properties":{"x.y[]":{"properties":{"é\n":{}}}}}`,
			props("$root", anyRec, "x.y[]", anyRec, "x.y[].é\n", anyRec),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := extractText(t, tc.schema), compact(t, tc.want); got != want {
				t.Errorf("Extract(%s)\n got %s\nwant %s", tc.schema, got, want)
			}
		})
	}
}

func TestExtractRefs(t *testing.T) {
	// defs is shared by the cases below; each case adds its own properties.
	const defs = `"$defs":{"name":{"type":"string","maxLength":32},"a/b":{"type":"integer"},"m~n":{"type":"boolean"},
		"~1":{"type":"number"},"list":[{"type":"string"},{"type":"integer"}],"str":"x",
		"loop":{"$ref":"#/$defs/loop"},"p":{"$ref":"#/$defs/q"},"q":{"$ref":"#/$defs/p"},
		"chain":{"$ref":"#/$defs/name"},
		"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}},
		"":{"type":"null"}`
	nameRec := rec(`["string"]`, false, "null", `{"additionalProperties":true,"maxLength":32}`)
	nameReq := rec(`["string"]`, true, "null", `{"additionalProperties":true,"maxLength":32}`)
	tests := []struct {
		name  string
		props string // members of the root "properties"
		extra string // further root members, after properties
		want  []string
	}{
		{"resolved, required kept", `"who":{"$ref":"#/$defs/name"}`, `,"required":["who"]`, []string{"who", nameReq}},
		{"percent-decoded", `"x":{"$ref":"#/$defs/na%6de"}`, ``, []string{"x", nameRec}},
		{"percent-decoded upper-case hex", `"x":{"$ref":"#/%24defs/na%6De"}`, ``, []string{"x", nameRec}},
		{"~1 is a slash", `"x":{"$ref":"#/$defs/a~1b"}`, ``, []string{"x", intRec}},
		{"~0 is a tilde", `"x":{"$ref":"#/$defs/m~0n"}`, ``, []string{"x", rec(`["boolean"]`, false, "null", open)}},
		{"~01 is ~1, not /", `"x":{"$ref":"#/$defs/~01"}`, ``, []string{"x", rec(`["number"]`, false, "null", open)}},
		{"percent-decoding comes first: %7E1 is a slash", `"x":{"$ref":"#/$defs/a%7E1b"}`, ``, []string{"x", intRec}},
		{"percent-decoding comes first: %2F separates", `"x":{"$ref":"#/$defs%2Fname"}`, ``, []string{"x", nameRec}},
		{"#/ names the empty key", `"x":{"$ref":"#/"}`, ``, []string{"x", rec(`["null"]`, false, "null", open)}},
		{"array index 0", `"x":{"$ref":"#/$defs/list/0"}`, ``, []string{"x", strRec}},
		{"array index 1", `"x":{"$ref":"#/$defs/list/1"}`, ``, []string{"x", intRec}},
		{"array index leading zero", `"x":{"$ref":"#/$defs/list/01"}`, ``, []string{"x", refRec(false, "#/$defs/list/01")}},
		{"array index 00", `"x":{"$ref":"#/$defs/list/00"}`, ``, []string{"x", refRec(false, "#/$defs/list/00")}},
		{"array index out of range", `"x":{"$ref":"#/$defs/list/2"}`, ``, []string{"x", refRec(false, "#/$defs/list/2")}},
		{"array index huge", `"x":{"$ref":"#/$defs/list/99999999999999999999999"}`, ``, []string{"x", refRec(false, "#/$defs/list/99999999999999999999999")}},
		{"array index negative", `"x":{"$ref":"#/$defs/list/-1"}`, ``, []string{"x", refRec(false, "#/$defs/list/-1")}},
		{"array index plus", `"x":{"$ref":"#/$defs/list/+1"}`, ``, []string{"x", refRec(false, "#/$defs/list/+1")}},
		{"array index empty", `"x":{"$ref":"#/$defs/list/"}`, ``, []string{"x", refRec(false, "#/$defs/list/")}},
		{"array index non-ASCII digit", `"x":{"$ref":"#/$defs/list/١"}`, ``, []string{"x", refRec(false, "#/$defs/list/١")}},
		{"pointer through a string", `"x":{"$ref":"#/$defs/str/0"}`, ``, []string{"x", refRec(false, "#/$defs/str/0")}},
		{"target not an object", `"x":{"$ref":"#/$defs/name/type"}`, ``, []string{"x", refRec(false, "#/$defs/name/type")}},
		{"target missing", `"x":{"$ref":"#/$defs/nope"}`, `,"required":["x"]`, []string{"x", refRec(true, "#/$defs/nope")}},
		{"remote", `"x":{"$ref":"https://example.com/s.json#/x"}`, ``, []string{"x", refRec(false, "https://example.com/s.json#/x")}},
		{"relative file", `"x":{"$ref":"other.json"}`, ``, []string{"x", refRec(false, "other.json")}},
		{"bare #", `"x":{"$ref":"#"}`, ``, []string{"x", refRec(false, "#")}},
		{"anchor #foo", `"x":{"$ref":"#foo"}`, ``, []string{"x", refRec(false, "#foo")}},
		{"percent-decodes to empty", `"x":{"$ref":"#%"}`, ``, []string{"x", refRec(false, "#%")}},
		{"sibling keys", `"x":{"$ref":"#/$defs/name","description":"d"}`, `,"required":["x"]`, []string{"x", refRec(true, "#/$defs/name")}},
		{"sibling with non-string ref", `"x":{"title":"t","$ref":5}`, ``, []string{"x", refRec(false, "5")}},
		{"non-string ref int", `"x":{"$ref":5}`, ``, []string{"x", refRec(false, "5")}},
		{"non-string ref dict", `"x":{"$ref":{"a":1}}`, ``, []string{"x", refRec(false, "{'a': 1}")}},
		{"non-string ref list", `"x":{"$ref":[1,"x",1.0,null,true]}`, ``, []string{"x", refRec(false, "[1, 'x', 1.0, None, True]")}},
		{"non-string ref null", `"x":{"$ref":null}`, ``, []string{"x", refRec(false, "None")}},
		{"non-string ref float", `"x":{"$ref":1e16}`, ``, []string{"x", refRec(false, "1e+16")}},
		{"cyclic self ref", `"x":{"$ref":"#/$defs/loop"}`, ``, []string{"x", truncOK}},
		{"cyclic pair", `"x":{"$ref":"#/$defs/p"}`, `,"required":["x"]`, []string{"x", truncRq}},
		{"chain", `"x":{"$ref":"#/$defs/chain"}`, ``, []string{"x", nameRec}},
		{
			"recursive definition: second visit is a cycle",
			`"x":{"$ref":"#/$defs/node"}`, ``,
			[]string{"x", objRec, "x.next", truncOK},
		},
		{
			"diamond: the same definition resolves twice",
			`"a":{"$ref":"#/$defs/name"},"b":{"$ref":"#/$defs/name"}`, `,"required":["b"]`,
			[]string{"a", nameRec, "b", nameReq},
		},
		{
			"ref to an ancestor is truncated by identity",
			`"a":{"type":"object","properties":{"b":{"$ref":"#/properties/a"}}}`, `,"required":["a"]`,
			[]string{"a", rec(`["object"]`, true, "null", open), "a.b", truncOK},
		},
		{
			"ref in items",
			`"a":{"type":"array","items":{"$ref":"#/$defs/name"}}`, ``,
			[]string{"a", rec(`["array"]`, false, "null", open), "a[]", nameRec},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := `{"type":"object","properties":{` + tc.props + `}` + tc.extra + `,` + defs + `}`
			want := props(append([]string{"$root", objRec}, tc.want...)...)
			if got, want := extractText(t, schema), compact(t, want); got != want {
				t.Errorf("Extract(%s)\n got %s\nwant %s", schema, got, want)
			}
		})
	}
}

func TestExtractRootRefs(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"root ref with siblings is opaque", `{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`, props("$root", refRec(false, "#/$defs/a"))},
		{"root ref alone cannot resolve", `{"$ref":"#/$defs/a"}`, props("$root", refRec(false, "#/$defs/a"))},
		{"root ref into its own $ref string", `{"$ref":"#/$ref"}`, props("$root", refRec(false, "#/$ref"))},
		{"non-object root has nothing to resolve", `[{"$ref":"#/0"}]`, props()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := extractText(t, tc.schema), compact(t, tc.want); got != want {
				t.Errorf("Extract(%s)\n got %s\nwant %s", tc.schema, got, want)
			}
		})
	}
}

// nested returns a schema whose property "p" is nested n levels deep (the
// innermost at depth n) with leaf as the innermost schema, and the path of
// that innermost property.
func nested(n int, leaf, defs string) (schema, path string) {
	var b strings.Builder
	paths := make([]string, n)
	for i := range n {
		b.WriteString(`{"type":"object","properties":{"p":`)
		paths[i] = "p"
	}
	b.WriteString(leaf)
	for i := range n {
		b.WriteString(`}`)
		if i == n-1 && defs != "" {
			b.WriteString(`,` + defs)
		}
		b.WriteString(`}`)
	}
	return b.String(), strings.Join(paths, ".")
}

func TestExtractDepth(t *testing.T) {
	const leafDefs = `"$defs":{"leaf":{"type":"string"},"loop":{"$ref":"#/$defs/loop"}}`
	tests := []struct {
		name   string
		levels int
		leaf   string
		want   string // the innermost path's record
	}{
		{"object at depth 64 is expanded", 64, `{"type":"string"}`, strRec},
		{"object at depth 65 is truncated", 65, `{"type":"string"}`, truncOK},
		{"non-object at depth 65 is not truncated", 65, `true`, anyRec},
		{"ref at depth 63: target at 64 expanded", 63, `{"$ref":"#/$defs/leaf"}`, strRec},
		{"ref at depth 64: the hop makes the target depth 65", 64, `{"$ref":"#/$defs/leaf"}`, truncOK},
		{"remote ref at depth 65: handled before the depth test", 65, `{"$ref":"https://example.com/x"}`, refRec(false, "https://example.com/x")},
		{"non-string ref at depth 65: handled before the depth test", 65, `{"$ref":5}`, refRec(false, "5")},
		{"cyclic ref at depth 65", 65, `{"$ref":"#/$defs/loop"}`, truncOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema, path := nested(tc.levels, tc.leaf, leafDefs)
			sk := Extract(parse(t, schema))
			r, ok := sk.Records[path]
			if !ok {
				t.Fatalf("no record for depth-%d path; have %d records", tc.levels, len(sk.Records))
			}
			if got := r.Value().Compact(); got != compact(t, tc.want) {
				t.Errorf("record at depth %d = %s, want %s", tc.levels, got, tc.want)
			}
		})
	}
	// Past 65 levels, nothing below the truncated depth-65 node exists.
	schema, _ := nested(70, `{"type":"string"}`, "")
	if n := len(Extract(parse(t, schema)).Records); n != 66 {
		t.Errorf("70 levels: %d records, want 66 ($root and depths 1..65)", n)
	}
}

// refChain returns a schema whose property x follows refs d0 -> d1 -> ... ->
// dN, where dN is {"type":"string"}.
func refChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"$ref":"#/$defs/d%d"},`, i, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
	return b.String()
}

func TestExtractRefBudget(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want string
	}{
		// 256 refs fit the budget, but 256 hops put the target past depth 64.
		{"255 hops then object: truncated by depth", 255, truncOK},
		// The 257th ref is resolved with 256 on the path: over budget.
		{"257th ref is opaque", 256, refRec(false, "#/$defs/d256")},
		{"far beyond budget", 400, refRec(false, "#/$defs/d256")},
		{"short chain resolves", 10, strRec},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sk := Extract(parse(t, refChain(tc.n)))
			if got := sk.Records["x"].Value().Compact(); got != compact(t, tc.want) {
				t.Errorf("x = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestExtractCycleBeforeBudget(t *testing.T) {
	// 256 distinct refs fill the budget; the 257th hop repeats the first ref
	// string, which is a cycle (tested before the budget), not opaque.
	var b strings.Builder
	b.WriteString(`{"properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range 255 {
		fmt.Fprintf(&b, `"d%d":{"$ref":"#/$defs/d%d"},`, i, i+1)
	}
	b.WriteString(`"d255":{"$ref":"#/$defs/d0"}}}`)
	sk := Extract(parse(t, b.String()))
	if got := sk.Records["x"].Value().Compact(); got != truncOK {
		t.Errorf("x = %s, want %s", got, truncOK)
	}
}

// diamond returns a schema of n definitions where each definition's
// properties a and b both reference the next: 2^n paths.
func diamond(n int) string {
	var b strings.Builder
	b.WriteString(`{"properties":{"a":{"$ref":"#/$defs/d0"},"b":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"type":"object","enum":[3,2,1],"properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
	return b.String()
}

func TestExtractWorkBound(t *testing.T) {
	t.Run("small diamond is complete", func(t *testing.T) {
		sk := Extract(parse(t, diamond(5)))
		if sk.Incomplete {
			t.Fatal("Incomplete on a 6-level diamond")
		}
		// $root plus 2 + 4 + ... + 2^6 paths.
		if n, want := len(sk.Records), 1+(1<<7)-2; n != want {
			t.Errorf("%d records, want %d", n, want)
		}
		if got := sk.Records["a.b.a.b.a.b"].Value().Compact(); got != strRec {
			t.Errorf("a.b.a.b.a.b = %s, want %s", got, strRec)
		}
	})
	t.Run("exponential diamond stops at MaxWork", func(t *testing.T) {
		// 31 levels would be 2^32 paths; the walk must stop, keep a prefix,
		// and say so.
		sk := Extract(parse(t, diamond(31)))
		if !sk.Incomplete {
			t.Fatal("not Incomplete")
		}
		if n := len(sk.Records); n == 0 || n > MaxWork/stepCost {
			t.Errorf("%d records, want 1..%d", n, MaxWork/stepCost)
		}
		if _, ok := sk.Records["a"]; !ok {
			t.Error("the first records gathered were not kept")
		}
	})
	// A big enum, constraint or $ref literal is shared by every visit but
	// written once per record, so the bound must count it per record.
	big := `"` + strings.Repeat("v", 1<<16) + `"`
	for name, leaf := range map[string]string{
		"big enum":        `{"enum":[` + big + `]}`,
		"big constraint":  `{"pattern":` + big + `}`,
		"big ref literal": `{"$ref":[` + big + `]}`,
	} {
		t.Run(name+" in every diamond leaf stops at MaxWork", func(t *testing.T) {
			schema := strings.Replace(diamond(12), `"d12":{"type":"string"}`, `"d12":`+leaf, 1)
			sk := Extract(parse(t, schema))
			if !sk.Incomplete {
				t.Fatalf("not Incomplete with %d records", len(sk.Records))
			}
		})
	}
	t.Run("long key repeated in every path stops at MaxWork", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"properties":{"` + strings.Repeat("k", 1<<20) + `":{"properties":{`)
		for i := range 200 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"c%d":{}`, i)
		}
		b.WriteString(`}}}}`)
		sk := Extract(parse(t, b.String()))
		if !sk.Incomplete {
			t.Fatal("not Incomplete")
		}
	})
}

func TestExtractDoesNotModifySchema(t *testing.T) {
	const schema = `{"type":["string","null"],"enum":["b","a"],"properties":{"x":{"$ref":"#/$defs/d"}},"$defs":{"d":{"enum":[2,1]}}}`
	v := parse(t, schema)
	before := v.Compact()
	Extract(v)
	if after := v.Compact(); after != before {
		t.Errorf("schema modified:\n%s\n%s", before, after)
	}
}

func TestExtractNilAndHandBuilt(t *testing.T) {
	if got := Extract(nil).Value().Compact(); got != props() {
		t.Errorf("Extract(nil) = %s", got)
	}
	// A hand-built object may repeat keys; like a Python dict built by
	// json.loads, the last one wins.
	v := jsonv.NewObject(
		jsonv.M("type", jsonv.NewString("string")),
		jsonv.M("type", jsonv.NewString("integer")),
		jsonv.M("properties", jsonv.NewObject(
			jsonv.M("a", jsonv.NewObject(jsonv.M("type", jsonv.NewString("string")))),
			jsonv.M("a", jsonv.NewObject(jsonv.M("type", jsonv.NewString("integer")))),
			jsonv.M("n", nil),
		)),
	)
	want := props("$root", intRec, "a", intRec, "n", anyRec)
	if got := Extract(v).Value().Compact(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestExtractPathsSorted(t *testing.T) {
	sk := Extract(parse(t, `{"properties":{"b":{},"a":{"items":{}},"é":{},"z":{},"A":{}}}`))
	want := []string{"$root", "A", "a", "a[]", "b", "z", "é"}
	if strings.Join(sk.Paths, "|") != strings.Join(want, "|") {
		t.Errorf("Paths = %q, want %q", sk.Paths, want)
	}
}

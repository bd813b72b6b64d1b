package drift

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/skeleton"
)

// rec builds a record: typ is a comma-separated type list ("" for JSON
// null, "[]" for an empty list), enum and cons are JSON text ("" for null /
// absent constraints).
func rec(t testing.TB, typ string, required bool, enum, cons string) skeleton.Record {
	t.Helper()
	r := skeleton.Record{Required: required}
	switch typ {
	case "":
	case "[]":
		r.Type = []string{}
	default:
		r.Type = strings.Split(typ, ",")
	}
	if enum != "" {
		r.Enum = js(t, enum)
	}
	if cons == "" {
		cons = `{"additionalProperties": true}`
	}
	r.Constraints = js(t, cons)
	return r
}

// skel builds a skeleton from path/record pairs.
func skel(pairs ...any) *skeleton.Skeleton {
	s := &skeleton.Skeleton{Records: map[string]skeleton.Record{}}
	for i := 0; i < len(pairs); i += 2 {
		p := pairs[i].(string)
		s.Paths = append(s.Paths, p)
		s.Records[p] = pairs[i+1].(skeleton.Record)
	}
	slices.Sort(s.Paths)
	return s
}

func changeStrings(ch []change) []string {
	out := make([]string, len(ch))
	for i, c := range ch {
		out[i] = fmt.Sprintf("%s|%s|%s|%s", c.path, c.class, c.severity, c.detail)
	}
	return out
}

// TestDiffSingleRecord covers every per-fact rule of reference-behaviour
// §4.3 on one path "x" present on both sides.
func TestDiffSingleRecord(t *testing.T) {
	type r = struct {
		typ      string
		required bool
		enum     string
		cons     string
	}
	tests := []struct {
		name string
		b, c r
		want []string // class|severity|detail
	}{
		{"identical", r{"string", false, "", ""}, r{"string", false, "", ""}, nil},
		// required flag
		{"required to optional", r{"string", true, "", ""}, r{"string", false, "", ""},
			[]string{"schema-constraint-relaxed|medium|required→optional"}},
		{"optional to required unconstrained", r{"string", false, "", ""}, r{"string", true, "", ""},
			[]string{"schema-required-unconstrained-added|high|optional→required unconstrained"}},
		{"optional to required constrained", r{"string", false, "", ""}, r{"string", true, "", `{"additionalProperties": true, "maxLength": 4}`},
			[]string{"schema-constraint-tightened|low|maxLength added 4", "schema-required-added|medium|optional→required"}},
		// type
		{"type broadened superset", r{"string", false, "", ""}, r{"null,string", false, "", ""},
			[]string{"schema-type-broadened|high|type ['string']→['null', 'string']"}},
		{"type broadened to any", r{"string", false, "", ""}, r{"", false, "", ""},
			[]string{"schema-type-broadened|high|type ['string']→any"}},
		{"type narrowed from any", r{"", false, "", ""}, r{"string", false, "", ""},
			[]string{"schema-type-narrowed|low|type any→['string']"}},
		{"type narrowed subset", r{"object,string", false, "", ""}, r{"string", false, "", ""},
			[]string{"schema-type-narrowed|low|type ['object', 'string']→['string']"}},
		{"type changed disjoint", r{"string", false, "", ""}, r{"integer", false, "", ""},
			[]string{"schema-type-changed|medium|type ['string']→['integer']"}},
		{"type changed overlap", r{"integer,string", false, "", ""}, r{"null,string", false, "", ""},
			[]string{"schema-type-changed|medium|type ['integer', 'string']→['null', 'string']"}},
		{"type null equals empty list", r{"", false, "", ""}, r{"[]", false, "", ""}, nil},
		{"type sorted and deduplicated", r{"string,null", false, "", ""}, r{"null,string,string", false, "", ""}, nil},
		{"type unsorted detail is sorted", r{"string", false, "", ""}, r{"string,array", false, "", ""},
			[]string{"schema-type-broadened|high|type ['string']→['array', 'string']"}},
		// enum
		{"enum equal", r{"string", false, `["a","b"]`, ""}, r{"string", false, `["a","b"]`, ""}, nil},
		{"enum python equal 0 false", r{"", false, `[0]`, ""}, r{"", false, `[false]`, ""}, nil},
		{"enum python equal 1 1.0", r{"", false, `[1]`, ""}, r{"", false, `[1.0]`, ""}, nil},
		{"enum removed", r{"string", false, `["a"]`, ""}, r{"string", false, "", ""},
			[]string{"schema-enum-removed|high|enum removed"}},
		{"enum added", r{"string", false, "", ""}, r{"string", false, `["a"]`, ""},
			[]string{"schema-enum-added|low|enum added"}},
		{"enum empty removed", r{"string", false, `[]`, ""}, r{"string", false, "", ""},
			[]string{"schema-enum-removed|high|enum removed"}},
		{"enum widened", r{"string", false, `["a"]`, ""}, r{"string", false, `["a","b"]`, ""},
			[]string{"schema-enum-widened|high|enum 1→2 values"}},
		{"enum narrowed", r{"string", false, `["a","b"]`, ""}, r{"string", false, `["a"]`, ""},
			[]string{"schema-enum-narrowed|low|enum 2→1 values"}},
		{"enum duplicate counts as widened", r{"string", false, `["a","b"]`, ""}, r{"string", false, `["a","b","a"]`, ""},
			[]string{"schema-enum-widened|high|enum 2→3 values"}},
		{"enum reorder counts as widened", r{"string", false, `["a","b"]`, ""}, r{"string", false, `["b","a"]`, ""},
			[]string{"schema-enum-widened|high|enum 2→2 values"}},
		{"enum disjoint widened", r{"string", false, `["a"]`, ""}, r{"string", false, `["b"]`, ""},
			[]string{"schema-enum-widened|high|enum 1→1 values"}},
		{"enum 1 vs 1.0 plus member is text-keyed", r{"", false, `[1, 2]`, ""}, r{"", false, `[1.0]`, ""},
			[]string{"schema-enum-widened|high|enum 2→1 values"}},
		{"enum dict keys sorted in key text", r{"", false, `[{"b":1,"a":2}, 3]`, ""}, r{"", false, `[{"a":2,"b":1}]`, ""},
			[]string{"schema-enum-narrowed|low|enum 2→1 values"}},
		// markers
		{"ref changed", r{"", false, "", `{"$ref": "https://example.com/a.json#/x"}`}, r{"", false, "", `{"$ref": "https://example.com/b.json#/x"}`},
			[]string{"schema-modified|high|$ref https://example.com/a.json#/x→https://example.com/b.json#/x"}},
		{"ref redacted", r{"", false, "", `{"$ref": "https://example.com/apiKey"}`}, r{"", false, "", `{"$ref": "https://example.com/token"}`},
			[]string{"schema-modified|high|$ref <redacted>→<redacted>"}},
		{"ref one side redacted", r{"", false, "", `{"$ref": "https://example.com/a.json"}`}, r{"", false, "", `{"$ref": "#/$defs/Secret"}`},
			[]string{"schema-modified|high|$ref https://example.com/a.json→<redacted>"}},
		{"ref cut at 40", r{"", false, "", `{"$ref": "https://schemas.example.com/v1/shared/common.json#/x"}`}, r{"", false, "", `{"$ref": "https://example.com/b.json"}`},
			[]string{"schema-modified|high|$ref https://schemas.example.com/v1/shared/co…→https://example.com/b.json"}},
		{"truncated appears", r{"string", false, "", ""}, r{"", false, "", `{"_truncated": true}`},
			[]string{"schema-modified|high|_truncated None→True", "schema-type-broadened|high|type ['string']→any"}},
		{"string to remote ref", r{"string", false, "", `{"additionalProperties": true, "maxLength": 8}`}, r{"", false, "", `{"$ref": "https://example.com/x.json"}`},
			[]string{"schema-constraint-relaxed|medium|maxLength removed", "schema-modified|high|$ref None→https://example.com/x.json", "schema-type-broadened|high|type ['string']→any"}},
		{"truncated 1 equals true", r{"", false, "", `{"_truncated": true}`}, r{"", false, "", `{"_truncated": 1}`}, nil},
		// additionalProperties
		{"addl opened false to true", r{"object", false, "", `{"additionalProperties": false}`}, r{"object", false, "", `{"additionalProperties": true}`},
			[]string{"schema-additional-props-opened|high|additionalProperties False→True"}},
		{"addl opened false to schema", r{"object", false, "", `{"additionalProperties": false}`}, r{"object", false, "", `{"additionalProperties": {"type": "string"}}`},
			[]string{"schema-additional-props-opened|high|additionalProperties False→{'type': 'string'}"}},
		{"addl opened false to absent", r{"object", false, "", `{"additionalProperties": false}`}, r{"object", false, "", `{}`},
			[]string{"schema-additional-props-opened|high|additionalProperties False→True"}},
		{"addl closed", r{"object", false, "", `{"additionalProperties": {"type": "string"}}`}, r{"object", false, "", `{"additionalProperties": false}`},
			[]string{"schema-constraint-tightened|low|additionalProperties {'type': 'string'}→False"}},
		{"addl true to schema is nothing", r{"object", false, "", `{"additionalProperties": true}`}, r{"object", false, "", `{"additionalProperties": {"type": "string"}}`}, nil},
		{"addl zero is open", r{"object", false, "", `{"additionalProperties": false}`}, r{"object", false, "", `{"additionalProperties": 0}`},
			[]string{"schema-additional-props-opened|high|additionalProperties False→0"}},
		{"addl null is open", r{"object", false, "", `{"additionalProperties": null}`}, r{"object", false, "", `{"additionalProperties": false}`},
			[]string{"schema-constraint-tightened|low|additionalProperties None→False"}},
		// numeric bounds
		{"maxLength raised", r{"string", false, "", `{"maxLength": 64}`}, r{"string", false, "", `{"maxLength": 4096}`},
			[]string{"schema-constraint-relaxed|medium|maxLength 64→4096"}},
		{"maxLength lowered", r{"string", false, "", `{"maxLength": 4096}`}, r{"string", false, "", `{"maxLength": 16}`},
			[]string{"schema-constraint-tightened|low|maxLength 4096→16"}},
		{"minimum lowered", r{"integer", false, "", `{"minimum": 10}`}, r{"integer", false, "", `{"minimum": 0}`},
			[]string{"schema-constraint-relaxed|medium|minimum 10→0"}},
		{"minLength raised", r{"string", false, "", `{"minLength": 1}`}, r{"string", false, "", `{"minLength": 2}`},
			[]string{"schema-constraint-tightened|low|minLength 1→2"}},
		{"maximum raised float", r{"number", false, "", `{"maximum": 1.5}`}, r{"number", false, "", `{"maximum": 2}`},
			[]string{"schema-constraint-relaxed|medium|maximum 1.5→2"}},
		{"bound 5 vs 5.0 is nothing", r{"string", false, "", `{"maxLength": 5}`}, r{"string", false, "", `{"maxLength": 5.0}`}, nil},
		{"bound added", r{"string", false, "", `{}`}, r{"string", false, "", `{"maxLength": 5.0}`},
			[]string{"schema-constraint-tightened|low|maxLength added 5.0"}},
		{"bound removed", r{"string", false, "", `{"minimum": 3}`}, r{"string", false, "", `{}`},
			[]string{"schema-constraint-relaxed|medium|minimum removed"}},
		{"bool bound is absent", r{"string", false, "", `{"maxLength": true}`}, r{"string", false, "", `{"maxLength": 1}`},
			[]string{"schema-constraint-tightened|low|maxLength added 1"}},
		{"string bound is absent", r{"string", false, "", `{"maxLength": "5"}`}, r{"string", false, "", `{}`}, nil},
		{"big int exact vs float", r{"integer", false, "", `{"maximum": 9007199254740993}`}, r{"integer", false, "", `{"maximum": 9007199254740992.0}`},
			[]string{"schema-constraint-tightened|low|maximum 9007199254740993→9007199254740992.0"}},
		// pattern / format
		{"pattern removed", r{"string", false, "", `{"pattern": "^a$"}`}, r{"string", false, "", `{}`},
			[]string{"schema-constraint-relaxed|medium|pattern removed"}},
		{"pattern added", r{"string", false, "", `{}`}, r{"string", false, "", `{"pattern": "^a$"}`},
			[]string{"schema-constraint-tightened|low|pattern added"}},
		{"pattern changed never echoed", r{"string", false, "", `{"pattern": "^a$"}`}, r{"string", false, "", `{"pattern": "^b$"}`},
			[]string{"schema-constraint-tightened|low|pattern changed"}},
		{"pattern null same as absent", r{"string", false, "", `{"pattern": null}`}, r{"string", false, "", `{}`}, nil},
		{"format removed", r{"string", false, "", `{"format": "uri"}`}, r{"string", false, "", `{"format": null}`},
			[]string{"schema-constraint-relaxed|medium|format removed"}},
		{"format python equal", r{"string", false, "", `{"format": 1}`}, r{"string", false, "", `{"format": 1.0}`}, nil},
		// ordering within one path: class order, ties in emission order
		{"two tightened keep emission order", r{"string", false, "", `{"additionalProperties": {"type": "string"}, "maxLength": 4096}`},
			r{"string", false, "", `{"additionalProperties": false, "maxLength": 16}`},
			[]string{"schema-constraint-tightened|low|additionalProperties {'type': 'string'}→False", "schema-constraint-tightened|low|maxLength 4096→16"}},
		{"classes sorted within a path", r{"string", true, `["a"]`, `{"maxLength": 5, "pattern": "x"}`},
			r{"integer", false, `["a","b"]`, `{"maxLength": 9}`},
			[]string{
				"schema-constraint-relaxed|medium|required→optional",
				"schema-constraint-relaxed|medium|maxLength 5→9",
				"schema-constraint-relaxed|medium|pattern removed",
				"schema-enum-widened|high|enum 1→2 values",
				"schema-type-changed|medium|type ['string']→['integer']",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := skel("x", rec(t, tc.b.typ, tc.b.required, tc.b.enum, tc.b.cons))
			c := skel("x", rec(t, tc.c.typ, tc.c.required, tc.c.enum, tc.c.cons))
			got := changeStrings(diffSkeletons(b, c))
			var want []string
			for _, w := range tc.want {
				want = append(want, "x|"+w)
			}
			if !slices.Equal(got, want) {
				t.Errorf("diff =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// TestDiffAddedRemoved covers classify_added and removed paths, and the
// (path, class) ordering across paths.
func TestDiffAddedRemoved(t *testing.T) {
	str := func(req bool, cons string) skeleton.Record { return rec(t, "string", req, "", cons) }
	tests := []struct {
		name string
		b, c *skeleton.Skeleton
		want []string
	}{
		{"added required unconstrained", skel(), skel("a", str(true, "")),
			[]string{"a|schema-required-unconstrained-added|high|new required unconstrained"}},
		{"added required constrained by maxLength", skel(), skel("a", str(true, `{"maxLength": 3}`)),
			[]string{"a|schema-required-added|medium|new required constrained"}},
		{"added optional unconstrained", skel(), skel("a", str(false, "")),
			[]string{"a|schema-unconstrained-added|high|new optional unconstrained"}},
		{"added optional constrained by pattern", skel(), skel("a", str(false, `{"pattern": ""}`)),
			[]string{"a|schema-property-added|low|new optional constrained"}},
		{"minLength does not constrain", skel(), skel("a", str(false, `{"minLength": 3, "format": "uri", "minimum": 1}`)),
			[]string{"a|schema-unconstrained-added|high|new optional unconstrained"}},
		{"integer type constrains", skel(), skel("a", rec(t, "integer", false, "", "")),
			[]string{"a|schema-property-added|low|new optional constrained"}},
		{"object type unconstrained", skel(), skel("a", rec(t, "object,string", false, "", "")),
			[]string{"a|schema-unconstrained-added|high|new optional unconstrained"}},
		{"empty type list unconstrained", skel(), skel("a", rec(t, "[]", false, "", "")),
			[]string{"a|schema-unconstrained-added|high|new optional unconstrained"}},
		{"enum constrains", skel(), skel("a", rec(t, "string", false, `["x"]`, "")),
			[]string{"a|schema-property-added|low|new optional constrained"}},
		{"empty enum does not constrain", skel(), skel("a", rec(t, "string", false, `[]`, "")),
			[]string{"a|schema-unconstrained-added|high|new optional unconstrained"}},
		{"null pattern does not constrain", skel(), skel("a", str(false, `{"pattern": null, "maxLength": null}`)),
			[]string{"a|schema-unconstrained-added|high|new optional unconstrained"}},
		{"opaque leaf unconstrained", skel(), skel("a", rec(t, "", true, "", `{"$ref": "https://x"}`)),
			[]string{"a|schema-required-unconstrained-added|high|new required unconstrained"}},
		{"removed required", skel("a", str(true, "")), skel(),
			[]string{"a|schema-required-removed|high|required property removed"}},
		{"removed optional", skel("a", str(false, "")), skel(),
			[]string{"a|schema-property-removed|medium|optional property removed"}},
		{"path order then class", skel("a", str(false, ""), "b", str(false, `{"maxLength": 1}`)),
			skel("b", str(false, `{"maxLength": 2}`), "c", str(false, "")),
			[]string{
				"a|schema-property-removed|medium|optional property removed",
				"b|schema-constraint-relaxed|medium|maxLength 1→2",
				"c|schema-unconstrained-added|high|new optional unconstrained",
			}},
		{"path order is code point", skel(), skel("é", str(false, ""), "z", str(false, ""), "$root", rec(t, "object", false, "", "")),
			[]string{
				"$root|schema-unconstrained-added|high|new optional unconstrained",
				"z|schema-unconstrained-added|high|new optional unconstrained",
				"é|schema-unconstrained-added|high|new optional unconstrained",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := changeStrings(diffSkeletons(tc.b, tc.c))
			if !slices.Equal(got, tc.want) {
				t.Errorf("diff =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestOutClass(t *testing.T) {
	tests := map[string]string{
		"schema-modified":                     "schema-out-modified",
		"schema-type-broadened":               "schema-out-type-broadened",
		"schema-required-unconstrained-added": "schema-out-required-unconstrained-added",
	}
	for in, want := range tests {
		if got := outClass(in); got != want {
			t.Errorf("outClass(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPyTruthy(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"null", false}, {"false", false}, {"true", true}, {"0", false}, {"0.0", false}, {"2", true},
		{`""`, false}, {`"a"`, true}, {"[]", false}, {"[0]", true}, {"{}", false}, {`{"a":1}`, true},
	}
	for _, tc := range tests {
		if got := pyTruthy(js(t, tc.in)); got != tc.want {
			t.Errorf("pyTruthy(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if pyTruthy((*jsonv.Value)(nil)) {
		t.Error("pyTruthy(nil) = true")
	}
}

func TestCompareNumbers(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"5", "5.0", 0},
		{"5", "5", 0},
		{"-0", "0.0", 0},
		{"-0.0", "0", 0},
		{"4", "5.5", -1},
		{"1e2", "100", 0},
		{"9007199254740993", "9007199254740992.0", 1},
		{"9007199254740992", "9007199254740992.0", 0},
		{"-9007199254740993", "-9007199254740992.0", -1},
		{"123456789012345678901234567890", "1e29", 1},
		{"123456789012345678901234567890", "123456789012345678901234567891", -1},
		{"1e400", "99999999999999999999999999999999", 1},
		{"-1e400", "-5", -1},
		{"1.5", "1.25", 1},
	}
	for _, tc := range tests {
		a, b := js(t, tc.a), js(t, tc.b)
		if got := compareNumbers(a, b); got != tc.want {
			t.Errorf("compareNumbers(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := compareNumbers(b, a); got != -tc.want {
			t.Errorf("compareNumbers(%s, %s) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}

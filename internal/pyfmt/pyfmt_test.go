package pyfmt

import (
	"math"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

func parse(t *testing.T, s string) *jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(s), jsonv.Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

func TestRepr(t *testing.T) {
	tests := []struct{ in, want string }{
		{`true`, `True`},
		{`false`, `False`},
		{`null`, `None`},
		{`5`, `5`},
		{`-0`, `0`},
		{`5.0`, `5.0`},
		{`1e16`, `1e+16`},
		{`1E2`, `100.0`},
		{`1.5e-5`, `1.5e-05`},
		{`0.0001`, `0.0001`},
		{`123456789012345678`, `123456789012345678`},
		{`1.2345678901234568e+17`, `1.2345678901234568e+17`},
		{`-0.0`, `-0.0`},
		{`"a'b"`, `"a'b"`},
		{`"a'b\"c"`, `'a\'b"c'`},
		{`"x\\y"`, `'x\\y'`},
		{`"tab\tnl\ncr\r"`, `'tab\tnl\ncr\r'`},
		{`"\u0001\u007f\u00a0\u00ad\u200b\u2028"`, `'\x01\x7f\xa0\xad\u200b\u2028'`},
		{`"é ü 日本"`, `'é ü 日本'`},
		{`"\ud83d\ude00"`, `'😀'`},
		{`{"type": "string"}`, `{'type': 'string'}`},
		{`{"b": 1, "a": [1, 2.5, null]}`, `{'b': 1, 'a': [1, 2.5, None]}`},
		{`[]`, `[]`},
		{`{}`, `{}`},
	}
	for _, tc := range tests {
		if got := Repr(parse(t, tc.in)); got != tc.want {
			t.Errorf("Repr(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestStr(t *testing.T) {
	if got := Str(parse(t, `"plain"`)); got != "plain" {
		t.Errorf("Str of a string = %q", got)
	}
	if got := Str(parse(t, `true`)); got != "True" {
		t.Errorf("Str(true) = %q", got)
	}
	if got := Str(parse(t, `{"a": 1}`)); got != "{'a': 1}" {
		t.Errorf("Str(dict) = %q", got)
	}
}

func TestFloatRepr(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{5, "5.0"}, {0.1, "0.1"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"},
		{1e-5, "1e-05"}, {0.0001, "0.0001"}, {123.456, "123.456"}, {-2.5, "-2.5"},
		{5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"}, {math.Copysign(0, -1), "-0.0"},
	}
	for _, tc := range tests {
		if got := FloatRepr(tc.in); got != tc.want {
			t.Errorf("FloatRepr(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestDumps(t *testing.T) {
	tests := []struct {
		in   string
		sort bool
		want string
	}{
		{`{"b": 1, "a": {"d": [1, 2.0], "c": null}}`, true, `{"a": {"c": null, "d": [1, 2.0]}, "b": 1}`},
		{`{"b": 1, "a": 2}`, false, `{"b": 1, "a": 2}`},
		{`"q\"\\\n\u0001é"`, true, `"q\"\\\n\u0001é"`},
		{`1e400`, true, `Infinity`},
		{`[true, false, null]`, true, `[true, false, null]`},
	}
	for _, tc := range tests {
		if got := Dumps(parse(t, tc.in), tc.sort); got != tc.want {
			t.Errorf("Dumps(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestDumpsIndent(t *testing.T) {
	v := parse(t, `{"a": [], "b": {}, "c": [1, {"d": "é"}], "e": 1.0}`)
	want := "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": \"é\"\n    }\n  ],\n  \"e\": 1.0\n}"
	if got := string(DumpsIndent(v, 2)); got != want {
		t.Errorf("DumpsIndent =\n%s\nwant\n%s", got, want)
	}
}

func TestUnquote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"na%6de", "name"},
		{"%7E%7e", "~~"},
		{"a+b", "a+b"},
		{"100%", "100%"},
		{"%zz%4", "%zz%4"},
		{"%C3%A9", "é"},
		{"%C3", "\ufffd"},
		{"%E2%82", "\ufffd"},       // one maximal subpart, one replacement
		{"%E2%82%41", "\ufffdA"},   // truncated sequence then ASCII
		{"%FF%FE", "\ufffd\ufffd"}, // two invalid bytes
		{"%ED%A0%80", "\ufffd\ufffd\ufffd"},
		{"é%41", "éA"},
	}
	for _, tc := range tests {
		if got := Unquote(tc.in); got != tc.want {
			t.Errorf("Unquote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`1`, `true`, true},
		{`0`, `false`, true},
		{`[0]`, `[false]`, true},
		{`2`, `true`, false},
		{`{"a": 1, "b": 2}`, `{"b": 2.0, "a": 1}`, true},
		{`{"a": 1}`, `{"a": 1, "b": 2}`, false},
		{`null`, `null`, true},
		{`null`, `0`, false},
		{`"1"`, `1`, false},
		{`[1, 2]`, `[2, 1]`, false},
		{`9007199254740993`, `9007199254740992.0`, false},
		{`10000000000000000000000`, `1e22`, true},
	}
	for _, tc := range tests {
		if got := Equal(parse(t, tc.a), parse(t, tc.b)); got != tc.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestTypeName(t *testing.T) {
	for in, want := range map[string]string{`null`: "NoneType", `true`: "bool", `1`: "int", `1.0`: "float", `"s"`: "str", `[]`: "list", `{}`: "dict"} {
		if got := TypeName(parse(t, in)); got != want {
			t.Errorf("TypeName(%s) = %s, want %s", in, got, want)
		}
	}
}

func FuzzUnquote(f *testing.F) {
	for _, s := range []string{"", "%", "%4", "%41", "%C3%A9", "%E2%82%41", "é%ff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Unquote(s)
		if len(s) > 0 && len(out) == 0 {
			t.Fatalf("Unquote(%q) lost everything", s)
		}
	})
}

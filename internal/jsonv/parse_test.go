package jsonv

import (
	"errors"
	"strings"
	"testing"
)

func TestParseKeepsOrderAndNumberKinds(t *testing.T) {
	v, err := Parse([]byte(`{"b": 1, "a": 1.0, "c": 1e2, "d": -0, "e": [true, null, "x"]}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range v.Members {
		keys = append(keys, m.Key)
	}
	if got := strings.Join(keys, ","); got != "b,a,c,d,e" {
		t.Errorf("member order = %s", got)
	}
	checks := []struct {
		key  string
		kind Kind
		text string
	}{{"b", Int, "1"}, {"a", Float, "1.0"}, {"c", Float, "1e2"}, {"d", Int, "-0"}}
	for _, c := range checks {
		got := v.Get(c.key)
		if got.Kind != c.kind || got.Text != c.text {
			t.Errorf("%s = %v %q, want %v %q", c.key, got.Kind, got.Text, c.kind, c.text)
		}
	}
	if got := v.Compact(); got != `{"b":1,"a":1.0,"c":1e2,"d":-0,"e":[true,null,"x"]}` {
		t.Errorf("Compact = %s", got)
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bom", "\xef\xbb\xbf{}", "byte order mark"},
		{"invalid utf8", "\"\xff\"", "invalid UTF-8"},
		{"invalid utf8 after escape", "\"\\n\xff\"", "invalid UTF-8"},
		{"duplicate key", `{"a": 1, "a": 2}`, `duplicate object key "a"`},
		{"duplicate key wide object", `{"k0":0,"k1":0,"k2":0,"k3":0,"k4":0,"k5":0,"k6":0,"k7":0,"k8":0,"k9":0,"k10":0,"k11":0,"k12":0,"k13":0,"k14":0,"k15":0,"k16":0,"k3":1}`, `duplicate object key "k3"`},
		{"NaN", `[NaN]`, "invalid character"},
		{"Infinity", `Infinity`, "invalid character"},
		{"-Infinity", `-Infinity`, "invalid number"},
		{"lone high surrogate", `"\ud800"`, "unpaired UTF-16 surrogate"},
		{"lone low surrogate", `"\udc00"`, "unpaired UTF-16 surrogate"},
		{"high then non-low", `"\ud800\u0041"`, "unpaired UTF-16 surrogate"},
		{"surrogate in key", `{"\ud800": 1}`, "unpaired UTF-16 surrogate"},
		{"raw control", "\"a\tb\"", "raw control character"},
		{"trailing data", `{} x`, "after the JSON value"},
		{"leading zero", `01`, "after the JSON value"},
		{"bare dot", `1.`, "digit expected"},
		{"truncated", `{"a": [1, 2`, "unexpected end"},
		{"single quotes", `{'a': 1}`, "string object key"},
		{"empty", ``, "unexpected end"},
		{"bad escape", `"\x"`, "invalid escape"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse(%q) error = %v, want it to mention %q", tc.in, err, tc.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is %T, want *ParseError", err)
			}
		})
	}
}

func TestParseErrorNamesPath(t *testing.T) {
	_, err := Parse([]byte(`{"tools": [{"name": "a"}, {"name": "b", "name": "c"}]}`), Options{})
	if err == nil || !strings.Contains(err.Error(), "$.tools[1]") {
		t.Fatalf("error = %v, want the path $.tools[1]", err)
	}
}

func TestParseDepthBound(t *testing.T) {
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	// n nested arrays put the innermost array at depth n-1.
	if _, err := Parse(deep(513), Options{MaxDepth: 512}); err != nil {
		t.Errorf("depth 512 refused: %v", err)
	}
	if _, err := Parse(deep(514), Options{MaxDepth: 512}); err == nil {
		t.Error("depth 513 accepted")
	}
	if _, err := Parse(deep(HardMaxDepth+2), Options{}); err == nil {
		t.Error("depth past HardMaxDepth accepted")
	}
	v, err := Parse(deep(600), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := MaxDepth(v); d != 599 {
		t.Errorf("MaxDepth = %d, want 599", d)
	}
}

func TestParseEscapes(t *testing.T) {
	v, err := Parse([]byte(`"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "\"\\/\b\f\n\r\té😀"; v.Text != want {
		t.Errorf("got %q, want %q", v.Text, want)
	}
	if got := string(AppendQuoted(nil, v.Text)); got != `"\"\\/\b\f\n\r\té😀"` {
		t.Errorf("AppendQuoted = %s", got)
	}
}

func TestPathString(t *testing.T) {
	p := Path{}.Key("tools").Index(3).Key("odd key").Key("$root")
	if got := p.String(); got != `$.tools[3]["odd key"].$root` {
		t.Errorf("Path = %s", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2.0,"x"]`, `{"a":{"b":[null,true]}}`, `"\ud83d\ude00"`, `1e400`, `-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data, Options{MaxDepth: 64})
		if err != nil {
			return
		}
		if MaxDepth(v) > 64 {
			t.Fatalf("depth bound broken")
		}
		// Compact output must parse back to the same compact text.
		c := v.Compact()
		w, err := Parse([]byte(c), Options{MaxDepth: 64})
		if err != nil {
			t.Fatalf("re-parse of %q: %v", c, err)
		}
		if w.Compact() != c {
			t.Fatalf("round trip changed %q to %q", c, w.Compact())
		}
	})
}

func TestCompactLen(t *testing.T) {
	for _, s := range []string{`null`, `true`, `false`, `-1.5e3`, `"a\"\\\n\u0001é"`, `[]`, `{}`, `[1,[2,{"k":"v"}],null]`, `{"a\tb":{"c":[true,false]},"d":""}`} {
		v, err := Parse([]byte(s), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := v.CompactLen(), len(v.Compact()); got != want {
			t.Errorf("CompactLen(%s) = %d, want %d", s, got, want)
		}
	}
}

func TestParseValueBound(t *testing.T) {
	for _, tc := range []struct {
		doc   string
		count int
	}{
		{`0`, 1},
		{`[]`, 1},
		{`[0,0,0]`, 4},
		{`{"a":[1,{"b":null}],"c":"x"}`, 6},
	} {
		v, n, err := ParseCounted([]byte(tc.doc), Options{})
		if err != nil || v == nil || n != tc.count {
			t.Errorf("ParseCounted(%s) = %d values, %v; want %d", tc.doc, n, err, tc.count)
		}
		if _, err := Parse([]byte(tc.doc), Options{MaxValues: tc.count}); err != nil {
			t.Errorf("%s with MaxValues %d: %v", tc.doc, tc.count, err)
		}
		if tc.count == 1 {
			continue
		}
		_, err = Parse([]byte(tc.doc), Options{MaxValues: tc.count - 1})
		var le *ValueLimitError
		if !errors.As(err, &le) || le.Limit != tc.count-1 {
			t.Errorf("%s with MaxValues %d: err = %v", tc.doc, tc.count-1, err)
		}
	}
}

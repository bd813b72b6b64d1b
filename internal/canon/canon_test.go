package canon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

func mustParse(t testing.TB, s string) *jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(s), jsonv.Options{})
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}

func TestHashConstants(t *testing.T) {
	tests := []struct{ in, want string }{
		{`""`, "sha256:12ae32cb1ec02d01eda3581b127c1fee3b0dc53572ed6baf239721a03d82e126"},
		{`{}`, "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
		{`[]`, "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"},
		{`null`, "sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"},
		{`{"url": "https://example.com/mcp"}`, "sha256:b6ab9af4649e26f4b90a7786ee4b70f287a0b0189551386e1accb431f4e97986"},
	}
	for _, tc := range tests {
		got, err := Hash(mustParse(t, tc.in))
		if err != nil || got != tc.want {
			t.Errorf("Hash(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b": 1, "a": 2, "A": 3, "_": 4}`, `{"A":3,"_":4,"a":2,"b":1}`},
		{`[1.0, -0.0, 1e21, 1e-7, 1e-6, 5e-324, 1.2345678901234568e+20]`, `[1,0,1e+21,1e-7,0.000001,5e-324,123456789012345680000]`},
		{`"\u007f\u2028\u0001é"`, "\"\u007f\u2028\\u0001é\""},
		{`{"\ue000": 1, "\ud83d\ude00": 2}`, "{\"😀\":2,\"\ue000\":1}"},
		{`9007199254740991`, `9007199254740991`},
		{`9007199254740993.0`, `9007199254740992`},
	}
	for _, tc := range tests {
		got, err := Canonical(mustParse(t, tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Canonical(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestCanonicalRefuses(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for name, in := range map[string]string{
		"int above 2^53-1":   `9007199254740992`,
		"int below -2^53+1":  `-9007199254740992`,
		"huge int":           `100000000000000000000000000000`,
		"infinite float":     `1e400`,
		"depth 513":          deep(514),
		"depth 513 object":   strings.Repeat(`{"a":`, 513) + `1` + strings.Repeat(`}`, 513),
		"deep inside object": `{"k": ` + deep(513) + `}`,
		"string at 513":      strings.Repeat(`{"a":`, 513) + `"s"` + strings.Repeat(`}`, 513),
		"string item at 513": strings.Repeat(`[`, 513) + `"s"` + strings.Repeat(`]`, 513),
		"member at 513":      strings.Repeat(`[`, 512) + `{"a":"s"}` + strings.Repeat(`]`, 512),
	} {
		if _, err := Canonical(mustParse(t, in)); err == nil {
			t.Errorf("%s: Canonical accepted it", name)
		}
	}
	for _, in := range []string{
		deep(513),
		strings.Repeat(`{"a":`, 512) + `"s"` + strings.Repeat(`}`, 512),
		strings.Repeat(`[`, 512) + `"s"` + strings.Repeat(`]`, 512),
		strings.Repeat(`[`, 511) + `{"a":"s"}` + strings.Repeat(`]`, 511),
	} {
		if _, err := Canonical(mustParse(t, in)); err != nil {
			t.Errorf("depth 512 refused: %v", err)
		}
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{}`, `{"b":[1,2.5e3,"é"],"a":null}`, `[[[[]]]]`, `"\u2028"`, `1e21`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jsonv.Parse(data, jsonv.Options{})
		if err != nil {
			return
		}
		c, err := Canonical(v)
		if err != nil {
			if jsonv.MaxDepth(v) <= MaxDepth && !strings.Contains(err.Error(), "integer") && !strings.Contains(err.Error(), "finite") && !strings.Contains(err.Error(), "range") {
				t.Fatalf("unexpected refusal of %q: %v", data, err)
			}
			return
		}
		if jsonv.MaxDepth(v) > MaxDepth {
			t.Fatal("depth bound not enforced")
		}
		// Canonical form is a fixed point. Canonical numbers are IEEE
		// doubles written in ECMAScript form, so read them back as floats:
		// 1e17 canonicalizes to 100000000000000000, which as an integer
		// literal would be outside the safe domain.
		w, err := jsonv.Parse(c, jsonv.Options{})
		if err != nil {
			t.Fatalf("canonical text does not parse: %v", err)
		}
		asFloats(w)
		c2, err := Canonical(w)
		if err != nil || string(c2) != string(c) {
			t.Fatalf("not idempotent: %s vs %s (%v)", c, c2, err)
		}
	})
}

func BenchmarkHashSchema(b *testing.B) {
	v := mustParse(b, `{"type":"object","properties":{"path":{"type":"string","description":"`+strings.Repeat("words ", 100)+`"},"mode":{"enum":["a","b","c"]},"n":{"type":"integer","minimum":1,"maximum":100}},"required":["path"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Hash(v); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCompareUTF16(t *testing.T) {
	tests := []struct {
		a, b string
		want int // sign
	}{
		{"a", "b", -1}, {"b", "a", 1}, {"a", "a", 0}, {"a", "ab", -1},
		{"\U0001F600", "\uE000", -1}, // surrogate D83D sorts before E000
		{"\U0001F600", "\uFF01", -1},
		{"\uE000", "\U0001F600", 1},
		{"\u00e9", "\U0001F600", -1},
		{"x\U0001F600", "x\U0001F601", -1},
		{"\U00010000", "\U0010FFFF", -1},
	}
	for _, tc := range tests {
		got := jsonv.CompareUTF16(tc.a, tc.b)
		if (got < 0) != (tc.want < 0) || (got > 0) != (tc.want > 0) {
			t.Errorf("compareUTF16(%q, %q) = %d, want sign %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// FuzzCanonicalMatchesJCS holds warden's direct encoder to the jcs library's
// Transform, byte for byte, on every value both accept.
func FuzzCanonicalMatchesJCS(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.5,-0,1e21,"\u0001\u007f"]}`, `{"\ud83d\ude00":1,"\ue000":2,"é":3,"A":4}`, `[9007199254740991,1e-7,0.000001]`, `{"a":{"c":null,"b":true}}`} {
		f.Add([]byte(s))
	}
	// Objects for the key order's paths: a schema's members out of order,
	// keys sharing their first eight bytes or needing escapes, and more
	// members than the insertion sort takes.
	f.Add([]byte(`{"type":"object","properties":{"path_0":{"type":"string","description":"d","maxLength":64},"limit_1":{"minimum":1,"maximum":101.0}},"required":["path_0"],"additionalProperties":false}`))
	f.Add([]byte(`{"abcdefghB":1,"abcdefghA":2,"abcdefgh":3,"abcdefg\u0000":4,"a\"b":5,"a\\b":6,"\u00e9\u00e9\u00e9\u00e9x":7,"abcdefgh\ud83d\ude00":8,"abcdefgh\ue000":9}`))
	var big strings.Builder
	big.WriteString("{")
	for i := range 40 {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `"k%d_%c":%d`, (i*7)%40, 'a'+rune(i%26), i)
	}
	big.WriteString("}")
	f.Add([]byte(big.String()))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jsonv.Parse(data, jsonv.Options{})
		if err != nil {
			return
		}
		fast, errFast := Canonical(v)
		lib, errLib := canonicalViaJCS(v)
		if (errFast == nil) != (errLib == nil) {
			t.Fatalf("acceptance differs on %q: fast %v, jcs %v", data, errFast, errLib)
		}
		if errFast == nil && string(fast) != string(lib) {
			t.Fatalf("canonical text differs on %q:\nfast %s\njcs  %s", data, fast, lib)
		}
	})
}

// asFloats marks every integer in v as a float.
func asFloats(v *jsonv.Value) {
	switch v.Kind {
	case jsonv.Int:
		v.Kind = jsonv.Float
	case jsonv.Array:
		for _, it := range v.Items {
			asFloats(it)
		}
	case jsonv.Object:
		for _, m := range v.Members {
			asFloats(m.Value)
		}
	}
}

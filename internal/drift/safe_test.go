package drift

import (
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

// js parses JSON text for tests; it fails the test on bad text.
func js(t testing.TB, text string) *jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(text), jsonv.Options{})
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return v
}

// raw parses text as a jsonv.Raw, for stored skeletons.
func raw(t testing.TB, text string) jsonv.Raw {
	t.Helper()
	return jsonv.RawOf(js(t, text))
}

func TestSafe(t *testing.T) {
	forty := strings.Repeat("a", 40)
	tests := []struct {
		name string
		in   string // JSON text; "" means absent (Python None)
		want string
	}{
		{"absent is None", "", "None"},
		{"null is None", "null", "None"},
		{"true", "true", "True"},
		{"false", "false", "False"},
		{"int", "64", "64"},
		{"float keeps .0", "5.0", "5.0"},
		{"float exponent", "1e16", "1e+16"},
		{"string is str not repr", `"https://example.com/a.json#/x"`, "https://example.com/a.json#/x"},
		{"dict is repr", `{"type": "string"}`, "{'type': 'string'}"},
		{"list is repr", `["a", 1]`, "['a', 1]"},
		{"secret word", `"#/$defs/secretThing"`, Redacted},
		{"token upper case", `"https://example.com/TOKEN"`, Redacted},
		{"apiKey camel", `"https://example.com/apiKey"`, Redacted},
		{"api_key", `"x/api_key"`, Redacted},
		{"bearer", `"Bearer abc"`, Redacted},
		{"password", `"PassWord"`, Redacted},
		{"substring monkey", `"monkey"`, Redacted},
		{"key inside a dict repr", `{"keyword": 1}`, Redacted},
		{"kelvin sign lowercases to k", "\"\u212Aey\"", Redacted},
		{"dotted capital I inside apikey", "\"ap\u0130key\"", Redacted},
		{"dotted capital I alone", "\"\u0130d\"", "\u0130d"},
		{"exactly 40 not cut", `"` + forty + `"`, forty},
		{"41 cut to 40 plus ellipsis", `"` + forty + `b"`, forty + "…"},
		{"cut counts code points", `"` + strings.Repeat("é", 41) + `"`, strings.Repeat("é", 40) + "…"},
		{"astral counts one", `"` + strings.Repeat("😀", 45) + `"`, strings.Repeat("😀", 40) + "…"},
		{"repr cut", `{"type": "string", "maxLength": 10, "format": "uri"}`, "{'type': 'string', 'maxLength': 10, 'for…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v *jsonv.Value
			if tc.in != "" {
				v = js(t, tc.in)
			}
			if got := safe(v); got != tc.want {
				t.Errorf("safe(%s) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

package pyfmt

import (
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

var rawSeeds = []string{
	`null`, `true`, `false`, `0`, `-0`, `1.0`, `1e2`, `-1.5E-3`, `1e400`, `-1e400`, `12345678901234567890`,
	`""`, `"a\"b\\c\n\u0001é😀"`, `[]`, `{}`, `[[]]`, `{"a":{}}`, `[1,[2,[]],{"k":[{}]}]`,
	`{"props":{"$root":{"type":["object"],"required":false,"enum":null,"constraints":{"additionalProperties":true,"maximum":101.0}}}}`,
	`{"a:b":"c,d","[":"]","{":"}","\"":"\\"}`,
}

// TestAppendIndentRawMatchesTree holds the compact-text writer to the tree
// writer: both must give dumps' text byte for byte at every level.
func TestAppendIndentRawMatchesTree(t *testing.T) {
	for _, s := range rawSeeds {
		checkRawIndent(t, []byte(s))
	}
	if got := string(AppendIndentRaw(nil, jsonv.Raw{}, 2, 0)); got != "null" {
		t.Errorf("zero Raw = %s", got)
	}
}

func checkRawIndent(t *testing.T, text []byte) {
	t.Helper()
	v, err := jsonv.Parse(text, jsonv.Options{})
	if err != nil {
		return
	}
	r := jsonv.RawOf(v)
	for _, level := range []int{0, 1, 3} {
		for _, indent := range []int{0, 2, 4} {
			want := AppendIndent([]byte("x"), v, indent, level)
			got := AppendIndentRaw([]byte("x"), r, indent, level)
			if string(got) != string(want) {
				t.Fatalf("%s at level %d indent %d:\n got %s\nwant %s", text, level, indent, got, want)
			}
		}
	}
}

func FuzzAppendIndentRaw(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		checkRawIndent(t, text)
	})
}

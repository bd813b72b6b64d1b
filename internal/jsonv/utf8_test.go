package jsonv

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/benchdata"
)

var utf8Seeds = []string{
	"", "a", "é", "日本語", "abcdefgh", "abcdefgé", "überprüfen données 日本語 fetch",
	"\xff", "\xc0\x80", "\xc2", "\xe0\x80\x80", "\xe0\xa0\x80", "\xed\xa0\x80", "\xed\x9f\xbf",
	"\xef\xbf\xbd", "\xf0\x90\x80\x80", "\xf4\x90\x80\x80", "\xf0\x8f\xbf\xbf", "\xf8\x88\x80\x80\x80",
	"abcdefg\xe6\x97", "abcdefgh\xe6\x97\xa5x", "\x80abcdefgh", strings.Repeat("é", 9) + "\xc3",
}

// TestValidUTF8 holds validUTF8 to utf8.Valid on every cut of the seeds.
func TestValidUTF8(t *testing.T) {
	for _, s := range utf8Seeds {
		for i := 0; i <= len(s); i++ {
			for _, p := range []string{s[:i], s[i:], "12345678" + s[i:], s[:i] + "ab"} {
				if got, want := validUTF8([]byte(p)), utf8.ValidString(p); got != want {
					t.Errorf("%q: %v, want %v", p, got, want)
				}
			}
		}
	}
}

// FuzzValidUTF8 holds validUTF8 to utf8.Valid.
func FuzzValidUTF8(f *testing.F) {
	for _, s := range utf8Seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := validUTF8(p), utf8.Valid(p); got != want {
			t.Fatalf("%q: %v, want %v", p, got, want)
		}
	})
}

// BenchmarkValidUTF8 checks the strings of a generated surface that hold
// a non-ASCII byte, as the parser does, with validUTF8 and utf8.Valid.
func BenchmarkValidUTF8(b *testing.B) {
	v, err := Parse(benchdata.Surface(200, nil), Options{})
	if err != nil {
		b.Fatal(err)
	}
	var strs [][]byte
	var walk func(v *Value)
	walk = func(v *Value) {
		if v.Kind == String && !isASCII(v.Text) {
			strs = append(strs, []byte(v.Text))
		}
		for _, it := range v.Items {
			walk(it)
		}
		for _, m := range v.Members {
			walk(m.Value)
		}
	}
	walk(v)
	for _, tc := range []struct {
		name  string
		valid func([]byte) bool
	}{{"jsonv", validUTF8}, {"utf8", utf8.Valid}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				for _, s := range strs {
					if !tc.valid(s) {
						b.Fatal("invalid")
					}
				}
			}
		})
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

package jsonv

import (
	"strings"
	"testing"
)

// quoteByteWise is AppendQuoted one byte at a time, with no word-wide fast
// path: the definition the fast paths are held to.
func quoteByteWise(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func checkQuoted(t *testing.T, s string) {
	t.Helper()
	want := quoteByteWise(s)
	if got := string(AppendQuoted([]byte("x"), s)); got != "x"+want {
		t.Fatalf("AppendQuoted(%q) = %s, want %s", s, got[1:], want)
	}
	if got := quotedLen(s); got != len(want) {
		t.Fatalf("quotedLen(%q) = %d, want %d", s, got, len(want))
	}
}

func TestAppendQuotedEveryPosition(t *testing.T) {
	// Every length around the word sizes, with a byte to escape (or a
	// high byte, which is not one) at every position, and none.
	for n := 0; n <= 48; n++ {
		base := strings.Repeat("aé", n)[:n]
		checkQuoted(t, base)
		for i := 0; i < n; i++ {
			for _, c := range []byte{'"', '\\', 0, 0x1f, '\n', 0x7f, 0x80, 0xff, ' ', '!', '#', '[', ']'} {
				b := []byte(base)
				b[i] = c
				checkQuoted(t, string(b))
			}
		}
	}
}

func FuzzAppendQuoted(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b`, "0123456789abcdef\n", strings.Repeat("x", 23) + "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkQuoted(t, s) })
}

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

// checkQuotedText requires that every string in the document lit, once
// decoded, is written by AppendQuotedText as AppendQuoted writes its text.
func checkQuotedText(t *testing.T, lit []byte) {
	t.Helper()
	v, err := Parse(lit, Options{})
	if err != nil {
		return
	}
	var walk func(v *Value)
	walk = func(v *Value) {
		switch v.Kind {
		case String:
			if got, want := string(v.AppendQuotedText(nil)), string(AppendQuoted(nil, v.Text)); got != want {
				t.Fatalf("%q: AppendQuotedText gives %q, AppendQuoted %q", lit, got, want)
			}
		case Array:
			for _, it := range v.Items {
				walk(it)
			}
		case Object:
			for _, m := range v.Members {
				walk(m.Value)
			}
		}
	}
	walk(v)
}

func TestAppendQuotedText(t *testing.T) {
	for _, lit := range []string{
		`""`, `"plain"`, `"ünïcödé 日本語"`, `"a\"b"`, `"back\\slash"`, `"tab\tnl\n"`,
		`"\u0001"`, `"\u00e9 escaped but plain"`, `"\ud83d\ude00"`, `"\ud800"`,
		`["short", "a longer string of plain text, well past a word", {"k": "v\\"}]`,
	} {
		checkQuotedText(t, []byte(lit))
	}
	// A string built rather than decoded is scanned as AppendQuoted does.
	if got := string(NewString("a\"b\n").AppendQuotedText(nil)); got != `"a\"b\n"` {
		t.Fatalf("built string: %s", got)
	}
}

func FuzzAppendQuotedText(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b"`, `["x","\u0000",{"k":"\\"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkQuotedText)
}

package jsonv

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// scanPlainByBytes is scanPlain one byte at a time, the definition the
// word-at-a-time version must agree with.
func scanPlainByBytes(buf []byte, i int) (int, bool) {
	ascii := true
	for ; i < len(buf); i++ {
		c := buf[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	return i, ascii
}

// checkScanPlain holds scanPlain to scanPlainByBytes on buf from every
// starting index.
func checkScanPlain(t *testing.T, buf []byte) {
	t.Helper()
	for i := 0; i <= len(buf); i++ {
		j, high := scanPlain(buf, i)
		wj, wascii := scanPlainByBytes(buf, i)
		if j != wj || (high&highBits == 0) != wascii {
			t.Fatalf("scanPlain(%q, %d) = %d, ascii %v; want %d, ascii %v", buf, i, j, high&highBits == 0, wj, wascii)
		}
	}
}

func TestScanPlain(t *testing.T) {
	// Every byte value at every place of a few words of ASCII or
	// non-ASCII text, alone and after a byte that borrows (a special one,
	// 0x00, 0x20, 0x21 around '"', 0x80 and 0xff).
	for _, fill := range []byte{'a', ' ', 0x80, 0xc3, 0xff} {
		for n := 0; n <= 40; n++ {
			for c := 0; c < 256; c++ {
				for _, before := range []int{-1, 0x00, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x80, 0xff} {
					buf := bytes.Repeat([]byte{fill}, 40)
					buf[n%40] = byte(c)
					if before >= 0 && n > 0 {
						buf[(n-1)%40] = byte(before)
					}
					j, high := scanPlain(buf, 0)
					wj, wascii := scanPlainByBytes(buf, 0)
					if j != wj || (high&highBits == 0) != wascii {
						t.Fatalf("scanPlain(%q, 0) = %d, ascii %v; want %d, ascii %v", buf, j, high&highBits == 0, wj, wascii)
					}
				}
			}
		}
	}
}

func FuzzScanPlain(f *testing.F) {
	f.Add([]byte(`abcdefgh"ijklmnopqrstu\vwxyz`))
	f.Add([]byte("über\x00\x1f \"\\ 日本語 données"))
	f.Fuzz(func(t *testing.T, buf []byte) {
		checkScanPlain(t, buf)
	})
}

func TestInternShortMatchesIntern(t *testing.T) {
	// A string of fewer than sixteen bytes must find the same slot, and
	// be found, whichever way it was read.
	d := newDecoder(Options{})
	for _, s := range []string{"a", "type", "string", "path_0", "\x7f~", "abcdefg",
		"abcdefgh", "maxLength", "properties", "description", "abcdefghijklmno"} {
		wa, wb := internWords([]byte(s))
		if a, b, n := stringWords(s); internHash(a, b, n) != internHash(wa, wb, len(s)) {
			t.Errorf("the hash of %q differs between stringWords and internWords", s)
		}
		first := d.intern([]byte(s))
		d.buf, d.pos = []byte(`"`+s+`", "padding to sixteen bytes"`), 0
		a, b, n, ok := d.shortString()
		if !ok || n != len(s) || d.pos != len(s)+2 {
			t.Fatalf("shortString(%q) = %d, %v, pos %d", s, n, ok, d.pos)
		}
		if got := d.internShort(a, b, n, internHash(a, b, n)); got != s || !sameString(got, first) {
			t.Errorf("internShort(%q) = %q, not the string intern shared", s, got)
		}
		if got := d.intern([]byte(s)); got != s || !sameString(got, first) {
			t.Errorf("intern(%q) after internShort = %q, not the shared string", s, got)
		}
	}
}

func TestShortString(t *testing.T) {
	// Every length around the two words, with a byte that is not plain
	// ASCII at every place, and with the input ending at every point: a
	// literal is taken exactly when it is plain ASCII of fewer than
	// sixteen bytes whose closing quote is in the input, and it reads as
	// intern reads it.
	for n := 0; n <= 20; n++ {
		base := []byte(strings.Repeat("x", n))
		variants := [][]byte{base}
		for at := 0; at < n; at++ {
			for _, c := range []byte{0x80, 0xC3, 0xFF, '\\', '"', 0x1F, 0x00, 0x7F} {
				v := append([]byte(nil), base...)
				v[at] = c
				variants = append(variants, v)
			}
		}
		for _, v := range variants {
			lit := append(append([]byte{'"'}, v...), `", "a tail of more than sixteen bytes`...)
			for end := 1; end <= len(lit); end++ {
				d := newDecoder(Options{})
				d.buf, d.pos = lit[:end], 0
				a, b, k, ok := d.shortString()
				content, plain := v, true
				if q := bytes.IndexAny(v, "\"\\"); q >= 0 { // the literal's real end
					content, plain = v[:q], v[q] == '"'
				}
				plain = plain && len(content) < 16 && !bytes.ContainsFunc(content, func(r rune) bool { return r < 0x20 || r >= 0x80 })
				if ok {
					s := string(lit[1 : 1+k])
					if !plain || s != string(content) || d.pos != k+2 || end < k+2 {
						t.Fatalf("shortString(%q) took %q, pos %d", lit[:end], s, d.pos)
					}
					if wa, wb := internWords(content); k > 0 && (wa != a || wb != b) {
						t.Fatalf("shortString(%q) words %x %x, internWords %x %x", lit[:end], a, b, wa, wb)
					}
					continue
				}
				if d.pos != 0 {
					t.Fatalf("shortString(%q) refused but moved to %d", lit[:end], d.pos)
				}
				// It may leave any literal to the general path, but only
				// for want of input does it leave a short plain one.
				need := 9 // the opening quote and a word
				if len(content) >= 8 {
					need = 17
				}
				if plain && end >= need {
					t.Fatalf("shortString(%q) refused a short plain string", lit[:end])
				}
			}
		}
	}
}

// sameString reports whether a and b are one string, not just equal ones.
func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}

func TestDecoderDuplicateKeys(t *testing.T) {
	// Objects narrower and wider than wideObject, with a key repeated at
	// every distance, short and long, plain and escaped: each is refused
	// exactly where the old parser refuses it.
	for _, width := range []int{1, 2, 15, 16, 17, wideObject - 1, wideObject, wideObject + 1, 2*wideObject + 3} {
		for _, form := range []string{"k%d", "a_much_longer_key_number_%d_", "k\\u00e9%d", "%d"} {
			keys := make([]string, width)
			for i := range keys {
				keys[i] = fmt.Sprintf(form, i)
			}
			for dup := 0; dup < width; dup += 1 + width/7 {
				var b strings.Builder
				b.WriteString("{")
				for i, k := range keys {
					fmt.Fprintf(&b, `"%s": [%d, {"%s": 0}], `, k, i, k)
				}
				fmt.Fprintf(&b, `"%s": 1}`, keys[dup])
				sameAsOracle(t, []byte(b.String()), Options{})
				sameAsOracle(t, []byte(strings.Replace(b.String(), `"`+keys[dup]+`": 1}`, `"end": 1}`, 1)), Options{})
			}
		}
	}
}

func TestContinuationBytes(t *testing.T) {
	// Lengths on both sides of a word, of a round of four words and of
	// the 63 rounds after which the lanes are added up, from every
	// alignment of text with every kind of byte.
	text := []byte(strings.Repeat("überprüfen 日本語 données \xbf\xff\x80\xc0😀", 700))
	for i := 0; i < 64; i++ {
		for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 2015, 2016, 2017, 2048, 8063, 8064, 8065, len(text) - i} {
			if i+n > len(text) {
				continue
			}
			b := text[i : i+n]
			want := 0
			for _, c := range b {
				if c&0xC0 == 0x80 {
					want++
				}
			}
			if got := continuationBytes(b); got != want {
				t.Fatalf("continuationBytes(text[%d:%d]) = %d, want %d", i, i+n, got, want)
			}
		}
	}
}

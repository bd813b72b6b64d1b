package jsonv

import (
	"bytes"
	"fmt"
	"testing"
	"testing/iotest"
)

// rawContainerRef is RawContainer as it was before it skipped the bytes
// between strings by a table: the byte-at-a-time reference the faster
// scan is held to.
func (d *Decoder) rawContainerRef(dst []byte, max int) ([]byte, error) {
	if err := d.begin(); err != nil {
		return dst, err
	}
	d.skipSpace()
	c, ok := d.peek()
	if !ok {
		return dst, d.fail("unexpected end of input")
	}
	if c != '{' && c != '[' {
		return dst, d.fail("invalid character %s: an object or an array was expected", quoteByte(c))
	}
	d.mark = d.pos
	// Positions are kept from the mark, which reading more input moves.
	depth := 0
	inString := false
	var quote int // where the open string's opening quote is
	for {
		buf, i := d.buf, d.pos
	scan:
		for i < len(buf) {
			if inString {
				// The string's closing quote is the next one that no odd
				// run of backslashes escapes.
				q := bytes.IndexByte(buf[i:], '"')
				if q < 0 {
					i = len(buf)
					break
				}
				i += q
				k := i - 1
				for k > d.mark+quote && buf[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					inString = false
				}
				i++
				continue
			}
			switch buf[i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					i++
					break scan
				}
			case '"':
				inString, quote = true, i-d.mark
			}
			i++
		}
		d.pos = i
		if max > 0 && d.pos-d.mark > max {
			d.mark = -1
			return dst, d.fail("a container longer than %d bytes", max)
		}
		if depth == 0 {
			break
		}
		if !d.fill() {
			d.mark = -1
			return dst, d.fail("unexpected end of input")
		}
	}
	dst = append(dst, d.buf[d.mark:d.pos]...)
	d.mark = -1
	d.consumed++
	return dst, nil
}

// rawCut cuts containers from data with cut (RawContainer or the
// reference) until one is refused, through a reader giving one byte, a
// few or all at a time, and reports every cut and the refusal.
func rawCut(data []byte, reader int, max int, ref bool) string {
	var d *Decoder
	switch reader {
	case 0:
		d = NewBytesDecoder(data, Options{})
	case 1:
		d = NewDecoder(iotest.OneByteReader(bytes.NewReader(data)), Options{})
	default:
		d = NewDecoder(iotest.HalfReader(bytes.NewReader(data)), Options{})
	}
	var out []byte
	for n := 0; n < 8; n++ {
		var raw []byte
		var err error
		if ref {
			raw, err = d.rawContainerRef([]byte("dst:"), max)
		} else {
			raw, err = d.RawContainer([]byte("dst:"), max)
		}
		out = fmt.Appendf(out, "%q %v %d|", raw, err, d.Offset())
		if err != nil {
			break
		}
	}
	return string(out)
}

// FuzzRawContainerMatchesRef: RawContainer cuts out exactly what the
// byte-at-a-time reference cuts out, refuses what it refuses with the same
// message at the same place, and leaves the Decoder at the same offset,
// for any input, whatever size the reads come in.
func FuzzRawContainerMatchesRef(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte(`{"a":"\\`), uint8(3))
	f.Add([]byte(`{"a":"x\\\\\\"}"}{"b":["]"]}[`), uint8(40))
	f.Add([]byte(`[{}] {"a":[1,2]} ["\\\\"] x`), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		for reader := 0; reader < 3; reader++ {
			got := rawCut(data, reader, int(max), false)
			want := rawCut(data, reader, int(max), true)
			if got != want {
				t.Fatalf("%q, max %d, reader %d: RawContainer gives %s, the reference %s", data, max, reader, got, want)
			}
		}
	})
}

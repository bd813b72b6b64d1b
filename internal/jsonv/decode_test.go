package jsonv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// chunkReader hands out its data in pieces of the given sizes (cycling),
// so that every token boundary meets a buffer boundary somewhere.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := r.sizes[r.i%len(r.sizes)]
	r.i++
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// readerParse parses data through NewDecoder over r, like ParseCounted.
func readerParse(r io.Reader, opts Options) (*Value, int, error) {
	d := NewDecoder(r, opts)
	v, err := d.Value()
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return nil, d.Values(), err
	}
	return v, d.Values(), nil
}

// describe renders a parse outcome so that two can be compared: the
// compact text and kinds of the value, or the error text and type.
func describe(v *Value, n int, err error) string {
	if err != nil {
		return fmt.Sprintf("%T %v (%d values)", err, err, n)
	}
	var b strings.Builder
	var walk func(v *Value)
	walk = func(v *Value) {
		b.WriteString(v.Kind.String())
		b.WriteByte(' ')
		switch v.Kind {
		case Array:
			if v.Items == nil {
				b.WriteString("nil-items")
			}
			for _, it := range v.Items {
				walk(it)
			}
		case Object:
			if v.Members == nil {
				b.WriteString("nil-members")
			}
			for _, m := range v.Members {
				b.WriteString(m.Key)
				walk(m.Value)
			}
		}
	}
	walk(v)
	return fmt.Sprintf("%s | %s (%d values)", v.Compact(), b.String(), n)
}

// sameAsOracle checks every way of decoding data against the old parser.
func sameAsOracle(t *testing.T, data []byte, opts Options) {
	t.Helper()
	want := describe(oracleParse(data, opts))
	if got := describe(ParseCounted(data, opts)); got != want {
		t.Fatalf("Parse(%q):\n got %s\nwant %s", data, got, want)
	}
	if got := describe(readerParse(bytes.NewReader(data), opts)); got != want {
		t.Fatalf("Decoder over a reader (%q):\n got %s\nwant %s", data, got, want)
	}
	if got := describe(readerParse(iotest.OneByteReader(bytes.NewReader(data)), opts)); got != want {
		t.Fatalf("Decoder one byte at a time (%q):\n got %s\nwant %s", data, got, want)
	}
	if got := describe(readerParse(&chunkReader{data: data, sizes: []int{3, 1, 7, 2, 5}}, opts)); got != want {
		t.Fatalf("Decoder in odd chunks (%q):\n got %s\nwant %s", data, got, want)
	}
}

var oracleSeeds = []string{
	`{}`, `[]`, `[1,2.0,"x"]`, `{"a":{"b":[null,true]}}`, `"\ud83d\ude00"`, `1e400`, `-0`,
	"\xef\xbb\xbf{}", "\"\xff\"", "\"\\n\xff\"", `{"a": 1, "a": 2}`,
	`{"k0":0,"k1":0,"k2":0,"k3":0,"k4":0,"k5":0,"k6":0,"k7":0,"k8":0,"k9":0,"k10":0,"k11":0,"k12":0,"k13":0,"k14":0,"k15":0,"k16":0,"k3":1}`,
	`[NaN]`, `Infinity`, `-Infinity`, `"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\u00`, `{"\ud800": 1}`,
	"\"a\tb\"", `{} x`, `01`, `1.`, `1e`, `1e+`, `-`, `{"a": [1, 2`, `{'a': 1}`, ``, `"\x"`, `"abc`, `"abc\`, `"\u12`, `"\uZZZZ"`,
	"[\n 1,\n \"é\",\n x]", "{\"a\"\n:\n\"é\u00e9\n", `tru`, `nul`, `[true,false,null]`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`,
	`"` + strings.Repeat("abcdefgh", 10) + `\n` + strings.Repeat("é", 20) + `"`,
	`"` + strings.Repeat("x", 100) + "\x01" + `"`,
	strings.Repeat("[", 70) + strings.Repeat("]", 70),
	`{"a":"\u0000\u001f\"\\\/\b\f\n\r\t"}`, `  42  `, "\t\r\n 7", `[1e5, -1.5E-3, 0.0, 12345678901234567890]`,
}

func TestDecoderMatchesOracle(t *testing.T) {
	for _, s := range oracleSeeds {
		sameAsOracle(t, []byte(s), Options{MaxDepth: 64})
		sameAsOracle(t, []byte(s), Options{MaxValues: 3})
		sameAsOracle(t, []byte(s), Options{})
	}
}

func FuzzDecoderMatchesOracle(f *testing.F) {
	for _, s := range oracleSeeds {
		f.Add([]byte(s), uint8(64), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, depth, values uint8) {
		sameAsOracle(t, data, Options{MaxDepth: int(depth), MaxValues: int(values)})
	})
}

func TestDecoderInternTable(t *testing.T) {
	// Enough distinct short strings, repeating, for the intern table to
	// grow to its largest size, with lengths on both sides of maxShared
	// and of a word, so that every string comes back as written whether
	// its slot held it, held another, or moved when the table grew.
	var b strings.Builder
	b.WriteString("[")
	for i := range 40000 {
		n := i % 7919
		fmt.Fprintf(&b, `{"k%d": "%s", "v": "%0*d"},`, n%300, strings.Repeat("x", n%40), 1+n%35, n)
	}
	b.WriteString(`"end"]`)
	sameAsOracle(t, []byte(b.String()), Options{})
}

func TestDecoderWhitespaceRuns(t *testing.T) {
	// Runs of every length up to three words, of blanks alone and mixed
	// with the other whitespace, before and after every kind of token,
	// with an error at the end to check positions after them.
	for n := 0; n <= 24; n++ {
		for _, ws := range []string{strings.Repeat(" ", n), "\n" + strings.Repeat(" ", n), strings.Repeat(" \t", n/2) + "\r\n" + strings.Repeat(" ", n)} {
			doc := ws + "{" + ws + `"a"` + ws + ":" + ws + "[" + ws + "1" + ws + "," + ws + `"é"` + ws + "]" + ws + "," + ws + `"b":` + ws + "null" + ws + "}" + ws
			sameAsOracle(t, []byte(doc), Options{})
			sameAsOracle(t, []byte(doc+"x"), Options{})
			sameAsOracle(t, []byte(doc[:len(doc)-len(ws)-1]+ws+"x}"), Options{})
		}
	}
}

func TestDecoderLongInputAcrossChunks(t *testing.T) {
	// Strings longer than a read chunk, escapes at chunk edges, and an
	// error position far into the input.
	long := strings.Repeat("ab\\n", 40000)
	doc := `{"x": "` + long + `", "y": [` + strings.Repeat(`"é", `, 30000) + `1], "z": "` + strings.Repeat("q", 200000) + `"}`
	sameAsOracle(t, []byte(doc), Options{})
	sameAsOracle(t, []byte(doc+"\n\n  ]"), Options{})
	sameAsOracle(t, []byte(strings.Replace(doc, `1]`, `1,]`, 1)), Options{})
}

func TestDecoderWalk(t *testing.T) {
	doc := `{"head": {"n": 1}, "items": [{"a": 1}, {"b": [2, 3]}, 4], "skip": [5], "tail": "t"}`
	for _, r := range []io.Reader{strings.NewReader(doc), iotest.OneByteReader(strings.NewReader(doc))} {
		d := NewDecoder(r, Options{})
		var got []string
		err := d.Object(func(key string) error {
			switch key {
			case "items":
				return d.Array(func(i int) error {
					v, err := d.Value()
					if err != nil {
						return err
					}
					got = append(got, fmt.Sprintf("%d:%s", i, v.Compact()))
					return nil
				})
			case "skip":
				return d.Skip()
			default:
				v, err := d.Value()
				if err != nil {
					return err
				}
				got = append(got, key+"="+v.Compact())
				return nil
			}
		})
		if err == nil {
			err = d.Finish()
		}
		if err != nil {
			t.Fatal(err)
		}
		want := `head={"n":1} 0:{"a":1} 1:{"b":[2,3]} 2:4 tail="t"`
		if g := strings.Join(got, " "); g != want {
			t.Errorf("walk = %s, want %s", g, want)
		}
		if d.Values() != 14 {
			t.Errorf("Values = %d, want 14", d.Values())
		}
	}
}

func TestDecoderWalkRefusals(t *testing.T) {
	read := func(d *Decoder) error { _, err := d.Value(); return err }
	tests := []struct {
		name, doc, want string
		walk            func(d *Decoder) error
	}{
		{"not an object", `[1]`, "is not an object", func(d *Decoder) error { return d.Object(func(string) error { return nil }) }},
		{"not an array", `{}`, "is not an array", func(d *Decoder) error { return d.Array(func(int) error { return nil }) }},
		{"syntax before kind", `x`, "invalid character", func(d *Decoder) error { return d.Object(func(string) error { return nil }) }},
		{"value not read", `{"a": 1}`, "was not read", func(d *Decoder) error { return d.Object(func(string) error { return nil }) }},
		{"duplicate key", `{"a": 1, "a": 2}`, `duplicate object key "a"`, func(d *Decoder) error {
			return d.Object(func(string) error { return read(d) })
		}},
		{"error in item names its path", `{"t": [1, {"x": tru}]}`, "(at $.t[1].x)", func(d *Decoder) error {
			return d.Object(func(string) error { return d.Array(func(int) error { return read(d) }) })
		}},
		{"depth counts walked containers", `[[[1]]]`, "nesting deeper than 2", func(d *Decoder) error {
			return d.Array(func(int) error { return d.Array(func(int) error { return read(d) }) })
		}},
		{"callback error returned as is", `[1]`, "stop here", func(d *Decoder) error {
			return d.Array(func(int) error { return errors.New("stop here") })
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tc.doc), Options{MaxDepth: 2})
			err := tc.walk(d)
			if err == nil {
				err = d.Finish()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			// The failure is final.
			if _, again := d.Value(); again == nil || again.Error() != err.Error() {
				t.Errorf("after the failure Value returned %v", again)
			}
		})
	}
}

// failingReader returns some data and then an error.
type failingReader struct{ data []byte }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestDecoderReadErrorWins(t *testing.T) {
	for _, doc := range []string{`{"a": [1, 2`, `{"a": 1}`, `"abc`} {
		_, _, err := readerParse(&failingReader{data: []byte(doc)}, Options{})
		if err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("%s: err = %v, want the read error", doc, err)
		}
		var pe *ParseError
		if errors.As(err, &pe) {
			t.Errorf("%s: a read error reported as a parse error", doc)
		}
	}
}

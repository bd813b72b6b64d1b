package jsonv

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// skipOutcome skips the document held by d and renders the outcome as
// describe renders a refusal, or the values counted.
func skipOutcome(d *Decoder) string {
	err := d.Skip()
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return fmt.Sprintf("%T %v (%d values)", err, err, d.Values())
	}
	return fmt.Sprintf("ok (%d values)", d.Values())
}

// sameSkipAsOracle checks that Skip accepts and refuses what the old
// parser did, with the same error (text, place and path) and count.
func sameSkipAsOracle(t *testing.T, data []byte, opts Options) {
	t.Helper()
	_, n, err := oracleParse(data, opts)
	want := fmt.Sprintf("ok (%d values)", n)
	if err != nil {
		want = fmt.Sprintf("%T %v (%d values)", err, err, n)
	}
	decoders := map[string]*Decoder{
		"bytes":      NewBytesDecoder(data, opts),
		"reader":     NewDecoder(bytes.NewReader(data), opts),
		"one byte":   NewDecoder(iotest.OneByteReader(bytes.NewReader(data)), opts),
		"odd chunks": NewDecoder(&chunkReader{data: data, sizes: []int{3, 1, 7, 2, 5}}, opts),
	}
	for name, d := range decoders {
		if got := skipOutcome(d); got != want {
			t.Fatalf("Skip over %s (%q):\n got %s\nwant %s", name, data, got, want)
		}
	}
}

// wideObject is an object of n members k0..k(n-1), then extra.
func wideObjectText(n int, extra string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&b, `"k%d":{"a":[%d,{"b":1,"c":"\u00e9"}]},`, i, i)
	}
	b.WriteString(extra)
	b.WriteByte('}')
	return b.String()
}

var skipSeeds = append([]string{
	wideObjectText(100, `"k7":1`),
	wideObjectText(100, `"k100":{"a":1,"a":2}`),
	wideObjectText(70, `"z":[1,2,{"k1":0,"k1":0}]`),
	wideObjectText(200, `"last":true`),
	`{"a":{"x":1,"y":2},"b":{"x":1,"y":2},"a":3}`,
	`[{"a":1},{"a":1},{"a":1,"b":{"a":1}}]`,
}, oracleSeeds...)

// TestSkipMatchesOracle: Skip refuses exactly what a tree parse refuses
// (strict grammar, duplicate keys at any width, depth, the value bound,
// UTF-8 and surrogates), at the same place and path.
func TestSkipMatchesOracle(t *testing.T) {
	for _, s := range skipSeeds {
		sameSkipAsOracle(t, []byte(s), Options{MaxDepth: 64})
		sameSkipAsOracle(t, []byte(s), Options{MaxDepth: 2})
		sameSkipAsOracle(t, []byte(s), Options{MaxValues: 3})
		sameSkipAsOracle(t, []byte(s), Options{})
	}
}

func FuzzSkipMatchesOracle(f *testing.F) {
	for _, s := range skipSeeds {
		f.Add([]byte(s), uint8(64), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, depth, values uint8) {
		sameSkipAsOracle(t, data, Options{MaxDepth: int(depth), MaxValues: int(values)})
	})
}

// TestSkipInsideWalk: a member skipped inside Object leaves the walk
// where Value would, and its refusals carry the member's path as Value's.
func TestSkipInsideWalk(t *testing.T) {
	walk := func(in string, skip bool) string {
		d := NewBytesDecoder([]byte(in), Options{})
		var got []string
		err := d.Object(func(key string) error {
			if key == "a" {
				if skip {
					return d.Skip()
				}
				_, err := d.Value()
				return err
			}
			v, err := d.Value()
			if err == nil {
				got = append(got, key+"="+v.Text)
			}
			return err
		})
		if err == nil {
			err = d.Finish()
		}
		if err != nil {
			got = append(got, err.Error())
		}
		return strings.Join(got, " ")
	}
	for _, in := range []string{
		`{"a":[1,{"b":2}],"c":3}`,
		`{"a":[1,{"b":2,"b":3}],"c":3}`,
		`{"a":[1,"\ud800"],"c":3}`,
		`{"a":{"x":[[[]]]},"c":3,"a":1}`,
		`{"c":3,"a":[1,2,x]}`,
	} {
		if got, want := walk(in, true), walk(in, false); got != want {
			t.Errorf("%s: skipped %q, read %q", in, got, want)
		}
	}
}

// TestSkipBuildsNoTree holds Skip to the memory of the keys it must
// remember: skipping 4 MB of small values, or of an object of 400,000
// members, allocates a fraction of what their tree costs (over 80 bytes
// a value, some 150 MB for the list).
func TestSkipBuildsNoTree(t *testing.T) {
	list := "[" + strings.Repeat("0,", 2<<20) + "0]"
	var obj strings.Builder
	obj.WriteByte('{')
	for i := range 400_000 {
		if i > 0 {
			obj.WriteByte(',')
		}
		fmt.Fprintf(&obj, `"%x":0`, i)
	}
	obj.WriteByte('}')
	for name, doc := range map[string]string{"list": list, "object": obj.String()} {
		t.Run(name, func(t *testing.T) {
			data := []byte(`{"unknown":` + doc + `,"k":1}`)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			d := NewDecoder(bytes.NewReader(data), Options{})
			err := d.Object(func(key string) error { return d.Skip() })
			if err == nil {
				err = d.Finish()
			}
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 10*uint64(len(data)) {
				t.Fatalf("skipping %d bytes allocated %d bytes, more than 10 times the text", len(data), alloc)
			}
		})
	}
}

// TestParserRootKeys: a Parser with RootKeys builds only those members of
// the root object, still refusing what Parse refuses in the others.
func TestParserRootKeys(t *testing.T) {
	p := Parser{RootKeys: []string{"a", "c"}}
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"b":[1,{"x":2}],"c":{"b":3}}`, `{"a":1,"c":{"b":3}}`},
		{`{"b":1}`, `{}`},
		{`{"b":1,"b":2}`, `line 1 column 12 (at $): duplicate object key "b"`},
		{`{"b":[1,"\ud800"],"a":1}`, `line 1 column 16 (at $.b[1]): unpaired UTF-16 surrogate \ud800`},
		{`[{"b":1}]`, `[{"b":1}]`},
	} {
		for _, over := range []bool{false, true} {
			var v *Value
			var err error
			if over {
				v, err = p.ParseOver([]byte(tc.in))
			} else {
				v, err = p.Parse([]byte(tc.in))
			}
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = v.Compact()
			}
			if want, _, werr := ParseCounted([]byte(tc.in), Options{}); werr != nil && werr.Error() != got || want != nil && tc.want != got {
				t.Errorf("%s (over %v): got %s, want %s", tc.in, over, got, tc.want)
			}
		}
	}
}

// TestDecoderString: String reads what Value reads of a string, counted
// alike, and refuses anything else.
func TestDecoderString(t *testing.T) {
	d := NewBytesDecoder([]byte(`["a","\u00e9x","\ud800",1]`), Options{})
	var got []string
	err := d.Array(func(i int) error {
		s, err := d.String()
		got = append(got, s)
		return err
	})
	if want := "a éx "; strings.Join(got, " ") != want || err == nil || !strings.Contains(err.Error(), "at $[2]): unpaired UTF-16 surrogate") {
		t.Fatalf("got %q, %v; want %q and the surrogate refused at $[2]", got, err, want)
	}
	d = NewBytesDecoder([]byte(`[1]`), Options{})
	if err := d.Array(func(int) error { _, err := d.String(); return err }); err == nil || !strings.Contains(err.Error(), "not a string") {
		t.Fatalf("a number read as a string: %v", err)
	}
	if d := NewBytesDecoder([]byte(`"a"`), Options{}); d.Values() != 0 {
		t.Fatal("counted before reading")
	} else if _, err := d.String(); err != nil || d.Values() != 1 {
		t.Fatalf("String: %v, %d values", err, d.Values())
	}
}

package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

var rawSeeds = []string{
	`{}`, `[]`, `{"a":1}`, `[1,"x",{"b":[true,null]}]`,
	`{"s":"a \"quoted\" }] string","t":"\\"}`,
	`{"s":"ends in a backslash \\\\","n":-1.5e3}`,
	`{"k":"\\\\\"still inside","z":[[[]]]}`,
	`{"u":"\u00e9 é 日本 \ud83d\ude00"}`,
	"{\n  \"pretty\": [\n    1,\n    2\n  ]\n}",
}

// rawItems cuts every item of the array data with RawContainer, reading it
// through r, and parses each item with Value from a second decoder.
func rawItems(t *testing.T, data string, slow bool) {
	t.Helper()
	var rd = strings.NewReader(data)
	var d *Decoder
	if slow {
		d = NewDecoder(iotest.OneByteReader(rd), Options{})
	} else {
		d = NewDecoder(rd, Options{})
	}
	want, err := Parse([]byte(data), Options{})
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	var got [][]byte
	err = d.Array(func(i int) error {
		raw, err := d.RawContainer(nil, 0)
		got = append(got, raw)
		return err
	})
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if len(got) != len(want.Items) {
		t.Fatalf("%s: %d items, want %d", data, len(got), len(want.Items))
	}
	for i, raw := range got {
		v, err := Parse(raw, Options{})
		if err != nil {
			t.Fatalf("%s: item %d %q: %v", data, i, raw, err)
		}
		if v.Compact() != want.Items[i].Compact() {
			t.Errorf("%s: item %d is %s, want %s", data, i, v.Compact(), want.Items[i].Compact())
		}
		if !strings.Contains(data, string(raw)) || raw[0] != '{' && raw[0] != '[' {
			t.Errorf("%s: item %d %q is not a span of the input", data, i, raw)
		}
	}
}

// TestRawContainer: each container cut out is exactly its text, and
// parses to what Value reads, whatever size the reads come in.
func TestRawContainer(t *testing.T) {
	rawItems(t, "["+strings.Join(rawSeeds, ", ")+"]", false)
	rawItems(t, "["+strings.Join(rawSeeds, ",")+"]", true)
	long := `{"long":"` + strings.Repeat(`x\"`, 100000) + `"}`
	rawItems(t, "["+long+","+long+"]", false)
}

// TestRawContainerMax: a container longer than max is refused once the
// reading window passes max, and one of max bytes or less is not.
func TestRawContainerMax(t *testing.T) {
	item := `{"s":"` + strings.Repeat("x", 200<<10) + `"}`
	for _, tc := range []struct {
		max int
		ok  bool
	}{{0, true}, {len(item), true}, {len(item) - 1, false}, {64 << 10, false}} {
		d := NewDecoder(strings.NewReader("["+item+"]"), Options{})
		err := d.Array(func(int) error {
			raw, err := d.RawContainer(nil, tc.max)
			if err == nil && string(raw) != item {
				t.Errorf("max %d: cut out %d bytes", tc.max, len(raw))
			}
			return err
		})
		if (err == nil) != tc.ok {
			t.Errorf("max %d: %v", tc.max, err)
		}
	}
}

// TestRawContainerRefuses: a scalar is refused unread, and an input that
// ends inside a container or a string is refused.
func TestRawContainerRefuses(t *testing.T) {
	for _, data := range []string{`["a"]`, `[1]`, `[{"a":1}`, `[{"a":"1}]`, `[[[]]`, `[{"a":"\"}]`} {
		d := NewDecoder(strings.NewReader(data), Options{})
		err := d.Array(func(int) error {
			_, err := d.RawContainer(nil, 0)
			return err
		})
		if err == nil {
			err = d.Finish()
		}
		if err == nil {
			t.Errorf("%s: accepted", data)
		}
	}
}

// FuzzRawContainer: whenever Value reads a container, RawContainer cuts out
// the same bytes, which parse to the same value; otherwise it may refuse or
// cut out something Parse refuses, but never hangs or panics.
func FuzzRawContainer(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":"\\`))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := Parse(data, Options{})
		d := NewDecoder(iotest.HalfReader(bytes.NewReader(data)), Options{})
		raw, err := d.RawContainer(nil, 0)
		if err == nil {
			err = d.Finish()
		}
		// The view is the same text, refused the same way.
		dv := NewDecoder(iotest.HalfReader(bytes.NewReader(data)), Options{})
		view, verr := dv.RawContainerView(0)
		if fmt.Sprint(verr) != fmt.Sprint(func() error {
			_, e := NewDecoder(iotest.HalfReader(bytes.NewReader(data)), Options{}).RawContainer(nil, 0)
			return e
		}()) || verr == nil && !bytes.Equal(view, raw) {
			t.Fatalf("%q: RawContainerView = %q, %v; RawContainer %q", data, view, verr, raw)
		}
		if werr != nil || (want.Kind != Object && want.Kind != Array) {
			return
		}
		if err != nil {
			t.Fatalf("%q: Parse reads it, RawContainer refuses: %v", data, err)
		}
		got, err := Parse(raw, Options{})
		if err != nil || got.Compact() != want.Compact() {
			t.Fatalf("%q: cut out %q, which parses to %v (%v)", data, raw, got, err)
		}
		if !bytes.Equal(bytes.TrimSpace(data), raw) {
			t.Fatalf("%q: cut out %q", data, raw)
		}
	})
}

// TestParserMatchesParse: a Parser reused across documents gives what
// Parse gives each, refusals included, and earlier values stay intact.
func TestParserMatchesParse(t *testing.T) {
	docs := append([]string{}, rawSeeds...)
	docs = append(docs, `{"a":1,"a":2}`, `[1,]`, `{"deep":[[[[1]]]]}`, "\xff", `"tail" x`, `{"b":"\ud800"}`)
	for _, s := range rawSeeds {
		docs = append(docs, `{"again":`+s+`}`)
	}
	var p Parser
	p.Options.MaxDepth = 3
	var kept []*Value
	var want []string
	for round := 0; round < 3; round++ {
		for _, doc := range docs {
			got, err := p.Parse([]byte(doc))
			w, werr := Parse([]byte(doc), Options{MaxDepth: 3})
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("%q: Parser: %v, Parse: %v", doc, err, werr)
			}
			if werr != nil {
				continue
			}
			if got.Compact() != w.Compact() {
				t.Fatalf("%q: Parser gives %s, Parse %s", doc, got.Compact(), w.Compact())
			}
			kept, want = append(kept, got), append(want, w.Compact())
		}
	}
	for i, v := range kept {
		if v.Compact() != want[i] {
			t.Fatalf("value %d changed after later parses: %s, want %s", i, v.Compact(), want[i])
		}
	}
	// ParseOver, alone and mixed with Parse, gives what Parse gives each
	// document (it may overwrite what it returned before).
	var over Parser
	over.Options.MaxDepth = 3
	big := `[` + strings.Repeat(`{"k":[1,"s",true,null,{"x":2.5}]},`, 400) + `0]`
	// Objects and arrays longer than a carved block get blocks of their
	// own, and many short ones fill several.
	wide := `{`
	for i := 0; i < 3*carveBlock; i++ {
		wide += fmt.Sprintf(`"k%d":[%d],`, i, i)
	}
	wide += `"end":[` + strings.Repeat(`"i",`, 3*carveBlock) + `0]}`
	docs = append(docs, big, `{"after":"big"}`, big, wide, big, wide)
	for round := 0; round < 4; round++ {
		for i, doc := range docs {
			parse := over.ParseOver
			if (i+round)%5 == 0 {
				parse = over.Parse
			}
			got, err := parse([]byte(doc))
			w, werr := Parse([]byte(doc), Options{MaxDepth: 3})
			if fmt.Sprint(err) != fmt.Sprint(werr) || werr == nil && got.Compact() != w.Compact() {
				t.Fatalf("round %d, %q: ParseOver gives %v (%v), Parse %v (%v)", round, doc, got, err, w, werr)
			}
		}
	}
}

// FuzzParserOver: a Parser that parsed other documents, plainly and over
// one another, parses any input as Parse does.
func FuzzParserOver(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":1,"a":2}`))
	warm := []string{`[` + strings.Repeat(`{"k":[1,"s",{"x":2.5}]},`, 200) + `0]`, `{"z":"` + strings.Repeat("y", 3000) + `"}`, `[1,`}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Parser
		for i, w := range warm {
			if i%2 == 0 {
				p.ParseOver([]byte(w))
			} else {
				p.Parse([]byte(w))
			}
		}
		got, err := p.ParseOver(data)
		want, werr := Parse(data, Options{})
		if fmt.Sprint(err) != fmt.Sprint(werr) || werr == nil && got.Compact() != want.Compact() {
			t.Fatalf("%q: ParseOver gives %v (%v), Parse %v (%v)", data, got, err, want, werr)
		}
		// Nothing of data's parse, refused or not, leaks into the next
		// documents' (the Parser's Decoder is reset, not made anew).
		for _, w := range append(warm[:2:2], string(data)) {
			got, err := p.ParseOver([]byte(w))
			want, werr := Parse([]byte(w), Options{})
			if fmt.Sprint(err) != fmt.Sprint(werr) || werr == nil && got.Compact() != want.Compact() {
				t.Fatalf("%q after %q: ParseOver gives %v (%v), Parse %v (%v)", w, data, got, err, want, werr)
			}
		}
	})
}

// TestParserOverKeepsFewBlocks: documents parsed over one another, small
// and large in turn, leave the Parser no more carved blocks than the
// largest of them needed.
func TestParserOverKeepsFewBlocks(t *testing.T) {
	var p Parser
	long := `[` + strings.Repeat(`0,`, 2*carveBlock) + `0]`
	short := `[` + strings.Repeat(`[0,0],`, carveBlock) + `0]`
	for i := 0; i < 50; i++ {
		for _, doc := range []string{short, long} {
			if _, err := p.ParseOver([]byte(doc)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := len(p.items.spare) + len(p.items.blocks); n > 4 {
		t.Fatalf("%d item blocks kept after 100 documents", n)
	}
}

// TestParserResets: the Decoder a Parser keeps from one document to the
// next carries nothing of the last one but its buffers: a refusal, its
// position, the value count and changed Options all start afresh.
func TestParserResets(t *testing.T) {
	docs := []struct {
		doc  string
		opts Options
	}{
		{"{\n\"a\":\n[1,2,3]}", Options{}},
		{"[1,\n2,", Options{}},
		{`{"a":[1,2,3]}`, Options{MaxValues: 4}},
		{`{"a":[1,2,3]}`, Options{MaxValues: 5}},
		{"\xef\xbb\xbf{}", Options{}},
		{`[[[1]]]`, Options{MaxDepth: 2}},
		{`[[[1]]]`, Options{}},
		{"{\"x\":\n  \"\\q\"}", Options{}},
		{`{"x":"ok"}`, Options{}},
	}
	for _, over := range []bool{false, true} {
		var p Parser
		for round := 0; round < 2; round++ {
			for _, tc := range docs {
				p.Options = tc.opts
				parse := p.Parse
				if over {
					parse = p.ParseOver
				}
				got, err := parse([]byte(tc.doc))
				want, werr := Parse([]byte(tc.doc), tc.opts)
				if fmt.Sprint(err) != fmt.Sprint(werr) || werr == nil && got.Compact() != want.Compact() {
					t.Fatalf("over %v, %q: Parser gives %v (%v), Parse %v (%v)", over, tc.doc, got, err, want, werr)
				}
			}
		}
	}
}

// cutItems cuts every item of the array data with view, reading it
// through r (one byte at a time when slow, half reads when half), and
// returns the texts cut until the first error, and that error.
func cutItems(data []byte, slow bool, view func(d *Decoder) ([]byte, error)) ([]string, error) {
	var r io.Reader = bytes.NewReader(data)
	if slow {
		r = iotest.OneByteReader(r)
	}
	d := NewDecoder(r, Options{})
	var got []string
	err := d.Array(func(int) error {
		text, err := view(d)
		if err == nil {
			got = append(got, string(text))
		}
		return err
	})
	if err == nil {
		err = d.Finish()
	}
	return got, err
}

func laidView(d *Decoder) ([]byte, error) { return d.LaidContainerView(0) }
func rawView(d *Decoder) ([]byte, error)  { return d.RawContainerView(0) }

// TestLaidContainerView: on documents laid out by an indenting writer at
// any indentation, with or without CRLF, and on compact ones (cut the
// plain way), LaidContainerView cuts out what RawContainerView does,
// whatever size the reads come in.
func TestLaidContainerView(t *testing.T) {
	items := append([]string{`{"s":"a line\n    } that is not one"}`, `[["x"],{"y":{}}]`}, rawSeeds...)
	compact := "[" + strings.Join(items, ",") + "]"
	docs := []string{compact}
	for _, indent := range []string{" ", "  ", "    ", strings.Repeat(" ", 70)} {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(compact), "", indent); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b.String(), strings.ReplaceAll(b.String(), "\n", "\r\n"))
	}
	for _, doc := range docs {
		for _, slow := range []bool{false, true} {
			laid, laidErr := cutItems([]byte(doc), slow, laidView)
			raw, rawErr := cutItems([]byte(doc), slow, rawView)
			if laidErr != nil || rawErr != nil {
				t.Fatalf("%q: %v, %v", doc, laidErr, rawErr)
			}
			if !slices.Equal(laid, raw) {
				t.Fatalf("%q (slow %v): cut\n%q\nwant\n%q", doc, slow, laid, raw)
			}
		}
	}
}

// TestLaidContainerViewGuess: a nested container that closes at its
// entry's indentation makes the cut a shorter text, which does not parse;
// a line that never comes, or comes past the limit, is refused.
func TestLaidContainerViewGuess(t *testing.T) {
	doc := "[\n  {\n    \"a\": {\n  },\n    \"b\": 1\n  }\n]"
	laid, _ := cutItems([]byte(doc), false, laidView)
	if want := "{\n    \"a\": {\n  }"; len(laid) == 0 || laid[0] != want {
		t.Fatalf("cut %q, want %q first", laid, want)
	}
	if _, err := Parse([]byte(laid[0]), Options{}); err == nil {
		t.Fatalf("the wrong cut %q parses", laid[0])
	}
	for _, tc := range []struct {
		doc   string
		limit int
	}{{"[\n  {\"a\": 1}\n]", 0}, {"[\n  {\n    \"a\": 1\n  }\n]", 8}, {"[1,\n [2],\n [3]]", 0}} {
		_, err := cutItems([]byte(tc.doc), false, func(d *Decoder) ([]byte, error) { return d.LaidContainerView(tc.limit) })
		if err == nil {
			t.Errorf("%q with limit %d: accepted", tc.doc, tc.limit)
		}
	}
}

// FuzzLaidContainerView: whatever the input, every text LaidContainerView
// cuts out that parses whole is, until the first that does not, the text
// RawContainerView cuts out; it never hangs or panics.
func FuzzLaidContainerView(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte("[\n  " + s + ",\n  " + s + "\n]"))
	}
	f.Add([]byte("[\n  {\n    \"a\": {\n  },\n    \"b\": 1\n  }\n]"))
	f.Add([]byte("[\r\n  [\r\n    1\r\n  ]\r\n]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		laid, _ := cutItems(data, false, laidView)
		raw, _ := cutItems(data, false, rawView)
		for i, text := range laid {
			if _, err := Parse([]byte(text), Options{}); err != nil {
				return
			}
			if i >= len(raw) || raw[i] != text {
				t.Fatalf("%q: item %d cut as %q, which parses; RawContainerView cuts %q", data, i, text, raw)
			}
		}
	})
}

// TestIndexQuote holds indexQuote to bytes.IndexByte for a quote at every
// place of texts around its word boundaries, and for none.
func TestIndexQuote(t *testing.T) {
	fill := []byte{'a', 0xa2, 0x80, 0xff, '#', '!', 0x02, '\\'}
	for n := 0; n <= 40; n++ {
		for q := -1; q < n; q++ {
			s := make([]byte, n)
			for i := range s {
				s[i] = fill[(i*7+q+1)%len(fill)]
			}
			if q >= 0 {
				s[q] = '"'
				if q+3 < n {
					s[q+3] = '"' // a later one changes nothing
				}
			}
			if got, want := indexQuote(s), bytes.IndexByte(s, '"'); got != want {
				t.Fatalf("indexQuote(%q) = %d, want %d", s, got, want)
			}
		}
	}
}

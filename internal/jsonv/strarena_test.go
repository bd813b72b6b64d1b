package jsonv

import (
	"fmt"
	"strings"
	"testing"
)

// TestStrArena: every string the arena hands out reads as what it was
// given, after many more strings of every size filled and replaced its
// chunks, and strings outside its sizes are allocated on their own.
func TestStrArena(t *testing.T) {
	var a strArena
	var got, want []string
	buf := make([]byte, 0, 2*arenaChunk)
	for i := 0; i < 2000; i++ {
		n := (i * 37) % (arenaMax + 200)
		buf = buf[:0]
		for j := 0; j < n; j++ {
			buf = append(buf, byte('a'+(i+j)%26))
		}
		s := a.string(buf)
		// The caller's bytes are reused: the string must not be them.
		for j := range buf {
			buf[j] = '#'
		}
		got = append(got, s)
		want = append(want, string(wantBytes(i, n)))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d changed: %q, want %q", i, got[i], want[i])
		}
	}
	// Sizes the arena leaves out do not touch the current chunk.
	free := len(a.chunk) - a.used
	for _, n := range []int{0, 1, arenaMin, arenaMax + 1, 3 * arenaChunk} {
		if s := a.string(make([]byte, n)); len(s) != n || len(a.chunk)-a.used != free {
			t.Fatalf("a string of %d bytes: len %d, chunk %d -> %d", n, len(s), free, len(a.chunk)-a.used)
		}
	}
}

func wantBytes(i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte('a' + (i+j)%26)
	}
	return b
}

// TestParserKeepsStrings: strings of a document a Parser parsed, long and
// short, with escapes and without, stay what they were after many more
// documents are parsed over it, as a caller keeps a tool's name and
// description after the tree is gone.
func TestParserKeepsStrings(t *testing.T) {
	var p Parser
	type kept struct{ name, desc, esc string }
	var keep []kept
	doc := func(i int) []byte {
		name := fmt.Sprintf("tool_%d_%s", i, strings.Repeat("n", i%90))
		desc := strings.Repeat(fmt.Sprintf("word%d é 日本 ", i), 1+i%150)
		return fmt.Appendf(nil, `{"name":%q,"description":%q,"esc":"%s\n\u00e9\"%d","props":[%q,%q]}`,
			name, desc, strings.Repeat("x", i%100), i, string([]rune(desc)[:min(len([]rune(desc)), 70)]), name+name)
	}
	for i := 0; i < 3000; i++ {
		v, err := p.ParseOver(doc(i))
		if err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			keep = append(keep, kept{v.Get("name").Text, v.Get("description").Text, v.Get("esc").Text})
		}
	}
	for k, i := 0, 0; i < 3000; i += 7 {
		w, err := Parse(doc(i), Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := kept{w.Get("name").Text, w.Get("description").Text, w.Get("esc").Text}
		if keep[k] != want {
			t.Fatalf("document %d: kept %q, want %q", i, keep[k], want)
		}
		k++
	}
}

// TestParserLongStrings: a document of many strings of every length,
// some with escapes, parses through a Parser as Parse parses it, over and
// over, and the values of the Parse calls in between stay intact.
func TestParserLongStrings(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; i < 600; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		s := strings.Repeat(string(rune('a'+i%26)), i*7%(arenaMax+300))
		if i%5 == 0 {
			s += `\"\u00e9\\\ud83d\ude00`
		}
		fmt.Fprintf(&b, `{"k%s":"%s"}`, strings.Repeat("K", i%80), s)
	}
	b.WriteString(`]}`)
	data := []byte(b.String())
	want, err := Parse(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var p Parser
	var kept []*Value
	for round := 0; round < 6; round++ {
		parse := p.ParseOver
		if round%2 == 1 {
			parse = p.Parse
		}
		got, err := parse(data)
		if err != nil || got.Compact() != want.Compact() {
			t.Fatalf("round %d: %v", round, err)
		}
		if round%2 == 1 {
			kept = append(kept, got)
		}
	}
	for _, v := range kept {
		if v.Compact() != want.Compact() {
			t.Fatal("a value of Parse changed after later documents")
		}
	}
}

package benchdata

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSurface(t *testing.T) {
	base, drifted := Surface(30, nil), Surface(30, EveryTenth)
	if !bytes.Equal(base, Surface(30, nil)) {
		t.Fatal("Surface is not deterministic")
	}
	var a, b struct {
		Command string
		Tools   []json.RawMessage
	}
	if err := json.Unmarshal(base, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(drifted, &b); err != nil {
		t.Fatal(err)
	}
	if a.Command != "node" || len(a.Tools) != 30 || len(b.Tools) != 30 {
		t.Fatalf("%q, %d and %d tools", a.Command, len(a.Tools), len(b.Tools))
	}
	for i := range a.Tools {
		same := bytes.Equal(a.Tools[i], b.Tools[i])
		if same == EveryTenth(i) {
			t.Errorf("tool %d: same in both surfaces = %v", i, same)
		}
	}
}

func TestRealistic(t *testing.T) {
	base, drifted := Realistic(200, 30, 20, nil), Realistic(200, 30, 20, EveryTenth)
	if !bytes.Equal(base, Realistic(200, 30, 20, nil)) {
		t.Fatal("Realistic is not deterministic")
	}
	type tool struct {
		Name        string
		Description string
	}
	var a, b struct {
		Command   string
		Tools     []json.RawMessage
		Resources []json.RawMessage
		Prompts   []json.RawMessage
	}
	if err := json.Unmarshal(base, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(drifted, &b); err != nil {
		t.Fatal(err)
	}
	if a.Command != "node" || len(a.Tools) != 200 || len(b.Tools) != 200 || len(a.Resources) != 30 || len(a.Prompts) != 20 {
		t.Fatalf("%q, %d and %d tools, %d resources, %d prompts", a.Command, len(a.Tools), len(b.Tools), len(a.Resources), len(a.Prompts))
	}
	var sorted, nonASCII, paragraphs, changed int
	prev := ""
	for k := range a.Tools {
		var ta, tb tool
		if err := json.Unmarshal(a.Tools[k], &ta); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b.Tools[k], &tb); err != nil {
			t.Fatal(err)
		}
		if ta.Name != tb.Name {
			t.Fatalf("tool %d: %q and %q: a changed tool moved", k, ta.Name, tb.Name)
		}
		if n := len(ta.Description); n < 200 || n > 2000 {
			t.Errorf("tool %q: description of %d bytes", ta.Name, n)
		}
		if ta.Name > prev {
			sorted++
		}
		prev = ta.Name
		if strings.ContainsFunc(ta.Name+ta.Description, func(r rune) bool { return r >= 0x80 }) {
			nonASCII++
		}
		if strings.Contains(ta.Description, "\n\n") {
			paragraphs++
		}
		if !bytes.Equal(a.Tools[k], b.Tools[k]) {
			changed++
		}
	}
	if sorted > 150 || nonASCII < 150 || paragraphs < 20 || changed != 20 {
		t.Errorf("%d tools after a lesser name, %d with non-ASCII text, %d of several paragraphs, %d changed", sorted, nonASCII, paragraphs, changed)
	}
}

func TestRealisticUTF8(t *testing.T) {
	if s := Realistic(300, 50, 50, EveryTenth); !utf8.Valid(s) || bytes.Contains(s, []byte(`\ufffd`)) || bytes.ContainsRune(s, utf8.RuneError) {
		t.Fatal("the realistic surface is not valid UTF-8 throughout")
	}
}

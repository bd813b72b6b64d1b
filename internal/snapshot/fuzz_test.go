package snapshot

import (
	"bytes"
	"testing"
)

// FuzzDecode: Decode never panics, and a snapshot it accepts writes as a
// canonical text that reads back to the same text (Marshal is a fixed
// point after one pass).
func FuzzDecode(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"url": "https://x", "tools": [{"name": "a", "inputSchema": {"enum": [1, 1.0, -0e1]}}]}`))
	f.Add([]byte(`{"command": "a", "tools": [{"name": "a", "x": {}}], "y": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		text := Marshal(s.Surface)
		again, err := Decode(bytes.NewReader(text))
		if err != nil {
			t.Fatalf("canonical text does not read back: %v\n%s", err, text)
		}
		if got := Marshal(again.Surface); !bytes.Equal(got, text) {
			t.Fatalf("canonical text changes on rewrite:\n%s\n---\n%s", text, got)
		}
	})
}

// FuzzHasHigh: the word-at-a-time test agrees with a byte loop.
func FuzzHasHigh(f *testing.F) {
	f.Add("plain ascii text here")
	f.Add("tab\there and DEL \x7f")
	f.Add("émoji🙂 and more ASCII after it")
	f.Fuzz(func(t *testing.T, s string) {
		want := false
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x7f {
				want = true
			}
		}
		if got := hasHigh(s); got != want {
			t.Fatalf("hasHigh(%q) = %v, want %v", s, got, want)
		}
	})
}

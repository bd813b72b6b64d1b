package jsonv

import (
	"strings"
	"testing"
)

// TestHoldKeepsTextAcrossFills checks that Held returns a value's text as
// it stands in the input, though the value spans many reads of it.
func TestHoldKeepsTextAcrossFills(t *testing.T) {
	item := `{"a": [1, 2, {"b": "` + strings.Repeat("x", 3*readChunk) + `"}], "c": null}`
	doc := `[ ` + item + ` , ` + item + `]`
	d := NewDecoder(strings.NewReader(doc), Options{})
	n := 0
	err := d.Array(func(int) error {
		d.Next()
		d.Hold()
		if _, err := d.Value(); err != nil {
			return err
		}
		if got := string(d.Held()); got != item {
			t.Errorf("item %d: held %d bytes, want %d", n, len(got), len(item))
		}
		n++
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("%d items, %v", n, err)
	}
	if d.Held() != nil {
		t.Fatal("Held without Hold is not empty")
	}
}

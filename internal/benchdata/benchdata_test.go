package benchdata

import (
	"bytes"
	"encoding/json"
	"testing"
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

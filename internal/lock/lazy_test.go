package lock

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/canon"
)

// TestReadFileLazy checks that a lock read lazily verifies as the plain
// read does and keeps no skeleton text, that LoadDiffering reads the
// skeletons of exactly the tools whose schemas differ, as the plain read
// has them, and that it refuses a lock written to since it was read.
func TestReadFileLazy(t *testing.T) {
	dir := t.TempDir()
	aText := Marshal(buildDemo(t))
	// The second tool's skeleton (and so its schema hash, as a pin from
	// a changed schema gives it) differs in B; the lock is then resealed.
	b := buildDemo(t)
	b.Tools[1].InputSchemaHash = "sha256:" + strings.Repeat("0", 64)
	b.Tools[1].SchemaSkeleton = b.Tools[0].SchemaSkeleton
	reseal(t, b)
	aPath, bPath := filepath.Join(dir, "a.lock"), filepath.Join(dir, "b.lock")
	for p, text := range map[string][]byte{aPath: aText, bPath: Marshal(b)} {
		if err := os.WriteFile(p, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	la, ax, err := ReadFileLazy(ctx, aPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ax.Close()
	lb, _, err := ReadFileLazy(ctx, bPath, ax)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []*Lock{la, lb} {
		if err := Verify(l); err != nil {
			t.Fatalf("lazy lock does not verify: %v", err)
		}
		for i, tool := range l.Tools {
			if !tool.unloaded || !tool.SchemaSkeleton.IsZero() {
				t.Fatalf("tool %d read with its skeleton", i)
			}
		}
	}
	if err := LoadDiffering(ctx, la, lb); err != nil {
		t.Fatal(err)
	}
	pa, _ := ReadFile(aPath)
	pb, _ := ReadFile(bPath)
	for _, c := range []struct{ lazy, plain *Lock }{{la, pa}, {lb, pb}} {
		if c.lazy.Tools[0].unloaded != true || c.lazy.Tools[1].unloaded {
			t.Fatalf("loaded: %v %v, want only the second tool", !c.lazy.Tools[0].unloaded, !c.lazy.Tools[1].unloaded)
		}
		if got, want := c.lazy.Tools[1].SchemaSkeleton.Text(), c.plain.Tools[1].SchemaSkeleton.Text(); got != want {
			t.Fatalf("skeleton loaded %s, the plain read's %s", got, want)
		}
		if err := Verify(c.lazy); err != nil {
			t.Fatalf("loaded lock does not verify: %v", err)
		}
	}
	// Written to between the read and the load: refused.
	la, ax2, err := ReadFileLazy(ctx, aPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	ax2.Close()
	lb, _, err = ReadFileLazy(ctx, bPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(bPath, bytes.Clone(Marshal(b)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := LoadDiffering(ctx, la, lb); err == nil || !strings.Contains(err.Error(), "changed while it was being read") {
		t.Fatalf("err = %v, want the lock refused as changed", err)
	}
}

// reseal recomputes l's entry and overall digests.
func reseal(t *testing.T, l *Lock) {
	t.Helper()
	for i := range l.Tools {
		l.Tools[i].memo = nil
		d, err := toolDigest(&canon.Hasher{}, l.Tools[i], l.SchemaVersion)
		if err != nil {
			t.Fatal(err)
		}
		l.Tools[i].EntryDigest = d
	}
	var err error
	if l.OverallDigest, err = OverallDigest(l); err != nil {
		t.Fatal(err)
	}
}

// TestDiffering holds what LoadDiffering loads to its definition, entry
// by entry: the unloaded entries of each list whose schema hashes differ
// from those of an entry of the same name in the other, for random lists
// in name order and out of it, with repeated names.
func TestDiffering(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	list := func() []Tool {
		tools := make([]Tool, r.IntN(12))
		for i := range tools {
			tools[i] = Tool{
				Name:             string(rune('a' + r.IntN(5))),
				InputSchemaHash:  string(rune('0' + r.IntN(2))),
				OutputSchemaHash: string(rune('0' + r.IntN(2))),
				unloaded:         r.IntN(2) == 0,
			}
		}
		if r.IntN(2) == 0 {
			slices.SortStableFunc(tools, func(x, y Tool) int { return strings.Compare(x.Name, y.Name) })
		}
		return tools
	}
	want := func(tools, others []Tool) []int {
		var need []int
		for i, t := range tools {
			for _, o := range others {
				if t.unloaded && o.Name == t.Name && (o.InputSchemaHash != t.InputSchemaHash || o.OutputSchemaHash != t.OutputSchemaHash) {
					need = append(need, i)
					break
				}
			}
		}
		return need
	}
	loads := 0
	for range 2000 {
		a, b := list(), list()
		ga, gb := differing(a, b)
		if wa, wb := want(a, b), want(b, a); !slices.Equal(ga, wa) || !slices.Equal(gb, wb) {
			t.Fatalf("a %v\nb %v\nloads %v, %v; want %v, %v", a, b, ga, gb, wa, wb)
		}
		loads += len(ga) + len(gb)
	}
	if loads == 0 {
		t.Fatal("no case loads anything: the comparison is empty")
	}
}

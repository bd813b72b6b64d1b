package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// vectorDirs are the drift corpora: the reference's ($WARDEN_VECTORS or
// ../shared/vectors beside the repository) and the repository's own.
func vectorDirs(t *testing.T) []string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	shared := os.Getenv("WARDEN_VECTORS")
	if shared == "" {
		shared = filepath.Join(root, "..", "shared", "vectors")
	}
	return []string{shared, filepath.Join(root, "vectors")}
}

// TestItemsOnDriftVectors explains the items of every drift vector from
// its current surface (a vector has no baseline surface, only a lock): no
// item changes, every explanation is bounded, and an added tool's current
// side is shown.
func TestItemsOnDriftVectors(t *testing.T) {
	n := 0
	for _, dir := range vectorDirs(t) {
		files, _ := filepath.Glob(filepath.Join(dir, "cases", "drift-*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := jsonv.Parse(data, jsonv.Options{})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			base, err := lock.FromValue(doc.Get("lock"))
			if err != nil {
				continue // a vector about a lock the reader refuses
			}
			s, err := surface.FromVector(doc.Get("surface"))
			if err != nil {
				continue
			}
			cur, err := lock.Build(s)
			if err != nil {
				continue
			}
			n++
			t.Run(filepath.Base(f), func(t *testing.T) {
				items := drift.Compare(base, cur)
				before := fmt.Sprintf("%+v", items)
				exps := Items(items, nil, s)
				if got := fmt.Sprintf("%+v", items); got != before {
					t.Fatalf("items changed")
				}
				checkBounded(t, exps)
				for i, it := range items {
					if it.Class == drift.ClassToolAdded && exps[i].Current == nil {
						t.Errorf("%s: added tool without its current side", it.Target)
					}
					if !strings.HasPrefix(it.Target, drift.ToolPrefix) && !strings.HasPrefix(it.Target, drift.ResourcePrefix) &&
						!strings.HasPrefix(it.Target, drift.PromptPrefix) && !exps[i].Empty() {
						t.Errorf("%s %s: explained %+v", it.Class, it.Target, exps[i])
					}
				}
			})
		}
	}
	if n == 0 {
		t.Skip("no drift vectors found")
	}
}

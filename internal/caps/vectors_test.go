package caps

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// vectorsDir is the reference corpus: $WARDEN_VECTORS, or ../shared/vectors
// next to the module root (the directory holding go.mod).
func vectorsDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("WARDEN_VECTORS"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("getwd: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "vectors")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

func readJSON(t *testing.T, path string) *jsonv.Value {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	v, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return v
}

// TestDeriveMatchesDigestVectors recomputes the capabilities of every tool in
// every digest vector and compares them with the reference's expectation.
func TestDeriveMatchesDigestVectors(t *testing.T) {
	dir := vectorsDir(t)
	manifest := filepath.Join(dir, "manifest.json")
	if _, err := os.Stat(manifest); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("conformance vectors not found at %s (set WARDEN_VECTORS to run this test)", dir)
	}
	m := readJSON(t, manifest)
	tools := 0
	for _, entry := range m.Get("vectors").Items {
		if k, _ := entry.Get("kind").Str(); k != "digest" {
			continue
		}
		file, _ := entry.Get("file").Str()
		id, _ := entry.Get("id").Str()
		c := readJSON(t, filepath.Join(dir, filepath.FromSlash(file)))
		s, err := surface.FromVector(c.Get("surface"))
		if err != nil {
			t.Fatalf("%s: surface: %v", id, err)
		}
		want := map[string][]string{}
		for _, e := range c.Get("expect").Get("tools").Items {
			name, _ := e.Get("name").Str()
			var flags []string
			for _, f := range e.Get("capabilities").Items {
				flag, _ := f.Str()
				flags = append(flags, flag)
			}
			want[name] = flags
		}
		for _, tool := range s.Tools {
			w, ok := want[tool.Name]
			if !ok {
				t.Errorf("%s: tool %q has no expected entry", id, tool.Name)
				continue
			}
			schema := tool.InputSchema
			if schema != nil && schema.Kind != jsonv.Object {
				schema = nil
			}
			got := Derive(tool.Name, schema)
			if !slices.Equal(got, w) && !(len(got) == 0 && len(w) == 0) {
				t.Errorf("%s: Derive(%q) = %q, want %q", id, tool.Name, got, w)
			}
			tools++
		}
	}
	if tools == 0 {
		t.Fatal("the corpus holds no digest vector tools; the comparison checked nothing")
	}
	t.Logf("checked %d tools", tools)
}

package conformance

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReferenceCorpus runs the reference implementation's corpus. It reads
// ../shared/vectors (or $WARDEN_VECTORS) and skips, saying so, when absent.
func TestReferenceCorpus(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := DefaultDir(root, os.Getenv)
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		t.Skipf("no reference corpus at %s (set %s): %v", dir, EnvVar, err)
	}
	results, err := Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range results {
		kinds[r.Kind]++
		if r.Err != nil {
			t.Errorf("%s", FailureLine(r))
		}
	}
	for _, k := range Kinds {
		if kinds[k] == 0 {
			t.Errorf("corpus has no %s cases", k)
		}
	}
	line, _ := Summary(results)
	t.Log(line)
}

func TestRunRefusesBadManifest(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, m := range map[string]string{
		"count mismatch": `{"count": 2, "vectors": [{"id": "canonical/a", "kind": "canonical", "file": "cases/a.json"}]}`,
		"unknown kind":   `{"count": 1, "vectors": [{"id": "x/a", "kind": "x", "file": "cases/a.json"}]}`,
		"duplicate id":   `{"count": 2, "vectors": [{"id": "canonical/a", "kind": "canonical", "file": "a"}, {"id": "canonical/a", "kind": "canonical", "file": "b"}]}`,
		"not json":       `{`,
	} {
		write(m)
		if _, err := Run(dir); err == nil {
			t.Errorf("%s: Run accepted the manifest", name)
		}
	}
}

func TestMissingCaseFileFails(t *testing.T) {
	dir := t.TempDir()
	m := `{"count": 1, "vectors": [{"id": "canonical/a", "kind": "canonical", "file": "cases/canonical-a.json"}]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	results, err := Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Err == nil {
		t.Fatalf("a missing case file must fail its case: %+v", results)
	}
}

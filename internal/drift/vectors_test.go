package drift

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// repoRoot finds the module root (the directory holding go.mod) above the
// test's working directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("getwd: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// sharedVectors is the reference corpus: $WARDEN_VECTORS, or ../shared/vectors
// next to the repository root.
func sharedVectors(t testing.TB) string {
	if d := os.Getenv("WARDEN_VECTORS"); d != "" {
		return d
	}
	return filepath.Join(repoRoot(t), "..", "shared", "vectors")
}

// driftCaseFiles lists the drift cases of a corpus directory: the manifest's
// drift entries when there is a manifest, plus any cases/drift-*.json file
// it does not list yet (our own cases land before the manifest is updated).
func driftCaseFiles(dir string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	switch {
	case err == nil:
		m, err := jsonv.Parse(data, jsonv.Options{})
		if err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
		vs := m.Get("vectors")
		if vs == nil || vs.Kind != jsonv.Array {
			return nil, errors.New("manifest: vectors is not an array")
		}
		for _, v := range vs.Items {
			if k, _ := v.Get("kind").Str(); k != "drift" {
				continue
			}
			f, ok := v.Get("file").Str()
			if !ok {
				return nil, errors.New("manifest: drift entry without file")
			}
			p := filepath.Join(dir, filepath.FromSlash(f))
			files = append(files, p)
			seen[p] = true
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("manifest: %w", err)
	}
	glob, err := filepath.Glob(filepath.Join(dir, "cases", "drift-*.json"))
	if err != nil {
		return nil, fmt.Errorf("glob: %w", err)
	}
	for _, p := range glob {
		if !seen[p] {
			files = append(files, p)
		}
	}
	return files, nil
}

// driftCase is one parsed drift vector.
type driftCase struct {
	id       string
	baseline *lock.Lock
	current  *lock.Lock
	expect   []string
}

// loadDriftCase parses a drift case file: the baseline through the strict
// lock reader (which does not re-verify stored digests, so the stale
// entry_digest of drift/schema-modified-v1-fallback is accepted), and the
// current lock built from the surface.
func loadDriftCase(path string) (*driftCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if k, _ := doc.Get("kind").Str(); k != "drift" {
		return nil, fmt.Errorf("kind %q is not drift", k)
	}
	id, _ := doc.Get("id").Str()
	b, err := lock.FromValue(doc.Get("lock"))
	if err != nil {
		return nil, fmt.Errorf("baseline lock: %w", err)
	}
	s, err := surface.FromVector(doc.Get("surface"))
	if err != nil {
		return nil, fmt.Errorf("surface: %w", err)
	}
	c, err := lock.Build(s)
	if err != nil {
		return nil, fmt.Errorf("build current lock: %w", err)
	}
	exp := doc.Get("expect")
	if exp == nil || exp.Kind != jsonv.Array {
		return nil, errors.New("expect is not an array")
	}
	dc := &driftCase{id: id, baseline: b, current: c, expect: []string{}}
	for i, e := range exp.Items {
		class, ok1 := e.Get("drift_class").Str()
		sev, ok2 := e.Get("severity").Str()
		target, ok3 := e.Get("target").Str()
		d := e.Get("detail")
		if !ok1 || !ok2 || !ok3 || (!d.IsNull() && d.Kind != jsonv.String) || len(e.Members) != 4 {
			return nil, fmt.Errorf("expect[%d] is not {drift_class, severity, target, detail}", i)
		}
		detail := "null"
		if !d.IsNull() {
			detail = d.Text
		}
		dc.expect = append(dc.expect, fmt.Sprintf("%s|%s|%s|%s", class, sev, target, detail))
	}
	return dc, nil
}

// runDriftCorpus runs every drift case of dir and returns how many passed.
func runDriftCorpus(t *testing.T, dir string) (passed, total int) {
	files, err := driftCaseFiles(dir)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	for _, f := range files {
		total++
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		ok := t.Run(name, func(t *testing.T) {
			dc, err := loadDriftCase(f)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			got := itemStrings(Compare(dc.baseline, dc.current))
			if !slices.Equal(got, dc.expect) {
				t.Errorf("%s:\n got  %s\n want %s", dc.id, strings.Join(got, "\n      "), strings.Join(dc.expect, "\n      "))
			}
		})
		if ok {
			passed++
		}
	}
	return passed, total
}

// TestReferenceDriftVectors runs every drift case of the reference corpus.
func TestReferenceDriftVectors(t *testing.T) {
	dir := sharedVectors(t)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("reference vectors not found at %s (set WARDEN_VECTORS to the corpus directory): %v", dir, err)
	}
	passed, total := runDriftCorpus(t, dir)
	if total == 0 {
		t.Fatalf("no drift cases found in %s", dir)
	}
	t.Logf("reference drift vectors: %d/%d passed", passed, total)
}

// TestOwnDriftVectors runs the drift cases in the repository's vectors/.
func TestOwnDriftVectors(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "vectors")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no vectors/ directory in the repository: %v", err)
	}
	passed, total := runDriftCorpus(t, dir)
	if total == 0 {
		t.Fatalf("no drift cases found in %s", dir)
	}
	t.Logf("own drift vectors: %d/%d passed", passed, total)
}

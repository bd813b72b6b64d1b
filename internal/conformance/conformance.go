// Package conformance runs a corpus of MCP Lock Format conformance vectors
// (manifest.json + cases/, the format of the reference's vectors/ directory)
// through warden's public entry points: the canonicalizer, the lock builder,
// the drift engine and the lock reader.
package conformance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// Kinds are the four case kinds a manifest may name.
var Kinds = []string{"canonical", "digest", "drift", "malformed"}

// Result is the outcome of one case; Err is nil when it passed.
type Result struct {
	ID   string
	Kind string
	Err  error
}

// EnvVar names the environment variable that overrides the reference corpus
// location.
const EnvVar = "WARDEN_VECTORS"

// DefaultDir returns the reference corpus directory: $WARDEN_VECTORS, else
// ../shared/vectors relative to root.
func DefaultDir(root string, getenv func(string) string) string {
	if d := getenv(EnvVar); d != "" {
		return d
	}
	return filepath.Join(root, "..", "shared", "vectors")
}

// Run loads dir/manifest.json, checks it, and runs every case. The error is
// for a corpus that cannot be run at all (missing or inconsistent manifest);
// failing cases are reported in the results.
func Run(dir string) ([]Result, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("read corpus manifest: %w", err)
	}
	m, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", filepath.Join(dir, "manifest.json"), err)
	}
	vectors := m.Get("vectors")
	if vectors == nil || vectors.Kind != jsonv.Array {
		return nil, fmt.Errorf("manifest %s: vectors is not an array", dir)
	}
	if c := m.Get("count"); c == nil || c.Text != fmt.Sprint(len(vectors.Items)) {
		return nil, fmt.Errorf("manifest %s: count does not match the %d vectors", dir, len(vectors.Items))
	}
	seen := map[string]bool{}
	var results []Result
	for i, v := range vectors.Items {
		id, _ := v.Get("id").Str()
		kind, _ := v.Get("kind").Str()
		file, _ := v.Get("file").Str()
		if id == "" || file == "" || !isKind(kind) {
			return nil, fmt.Errorf("manifest %s: vectors[%d] needs id, a known kind and file", dir, i)
		}
		if seen[id] {
			return nil, fmt.Errorf("manifest %s: duplicate id %q", dir, id)
		}
		seen[id] = true
		results = append(results, Result{ID: id, Kind: kind, Err: runFile(filepath.Join(dir, filepath.FromSlash(file)), id, kind)})
	}
	return results, nil
}

func isKind(k string) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

func runFile(path, id, kind string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	c, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		return fmt.Errorf("parse case: %w", err)
	}
	if got, _ := c.Get("id").Str(); got != id {
		return fmt.Errorf("case id %q does not match manifest id %q", got, id)
	}
	if got, _ := c.Get("kind").Str(); got != kind {
		return fmt.Errorf("case kind %q does not match manifest kind %q", got, kind)
	}
	switch kind {
	case "canonical":
		return runCanonical(c)
	case "digest":
		return runDigest(c)
	case "drift":
		return runDrift(c)
	default:
		return runMalformed(c)
	}
}

func runCanonical(c *jsonv.Value) error {
	expect := c.Get("expect")
	want, _ := expect.Get("jcs").Str()
	wantHash, _ := expect.Get("sha256").Str()
	got, err := canon.Canonical(c.Get("input"))
	if err != nil {
		return err
	}
	if string(got) != want {
		return fmt.Errorf("jcs: got %s, want %s", clip(string(got)), clip(want))
	}
	if h := canon.HashBytes(got); h != wantHash {
		return fmt.Errorf("sha256: got %s, want %s", h, wantHash)
	}
	return nil
}

func runDigest(c *jsonv.Value) error {
	s, err := surface.FromVector(c.Get("surface"))
	if err != nil {
		return err
	}
	l, err := lock.Build(s)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	expect := c.Get("expect")
	got := lock.ToValue(l)
	if err := sameJSON("server.command_digest", jsonv.NewString(l.Server.CommandDigest), expect.Get("server").Get("command_digest")); err != nil {
		return err
	}
	for _, key := range []string{"tools", "resources", "prompts"} {
		want := expect.Get(key)
		if want != nil && want.Kind == jsonv.Array {
			for _, e := range want.Items {
				// The reference harness drops a null inspection key before comparing.
				if e.Has("inspection") && e.Get("inspection").IsNull() {
					e.Delete("inspection")
				}
			}
		}
		if err := sameJSON(key, got.Get(key), want); err != nil {
			return err
		}
	}
	return sameJSON("overall_digest", jsonv.NewString(l.OverallDigest), expect.Get("overall_digest"))
}

func runDrift(c *jsonv.Value) error {
	base, err := lock.FromValue(c.Get("lock"))
	if err != nil {
		return fmt.Errorf("read baseline: %w", err)
	}
	s, err := surface.FromVector(c.Get("surface"))
	if err != nil {
		return err
	}
	cur, err := lock.Build(s)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	items := drift.Compare(base, cur)
	got := make([]*jsonv.Value, len(items))
	for i, it := range items {
		detail := jsonv.NewNull()
		if it.Detail != nil {
			detail = jsonv.NewString(*it.Detail)
		}
		got[i] = jsonv.NewObject(
			jsonv.M("drift_class", jsonv.NewString(it.Class)),
			jsonv.M("severity", jsonv.NewString(it.Severity)),
			jsonv.M("target", jsonv.NewString(it.Target)),
			jsonv.M("detail", detail),
		)
	}
	return sameJSON("drift", jsonv.NewArray(got...), c.Get("expect"))
}

func runMalformed(c *jsonv.Value) error {
	switch {
	case c.Has("lock"):
		if _, err := lock.Parse(c.Get("lock").AppendCompact(nil)); err == nil {
			return errors.New("lock reader accepted a malformed lock")
		}
	case c.Has("lock_text"):
		text, _ := c.Get("lock_text").Str()
		if _, err := lock.Parse([]byte(text)); err == nil {
			return errors.New("lock reader accepted malformed lock text")
		}
	case c.Has("input_json"):
		text, _ := c.Get("input_json").Str()
		v, err := jsonv.Parse([]byte(text), jsonv.Options{})
		if err != nil {
			return nil
		}
		if _, err := canon.Canonical(v); err == nil {
			return errors.New("canonicalizer produced a digest for a value it must refuse")
		}
	case c.Has("lock_verify"):
		// warden's extension: a lock the reader accepts but the self-check
		// (lock.Verify, which check and approve run before anything else)
		// must refuse: it does not reproduce its own digests.
		l, err := lock.Parse(c.Get("lock_verify").AppendCompact(nil))
		if err != nil {
			return fmt.Errorf("the lock reader refused it, so the self-check is not reached: %w", err)
		}
		if err := lock.Verify(l); err == nil {
			return errors.New("the lock self-check accepted a lock that does not reproduce its digests")
		}
	case c.Has("surface"):
		// warden's extension: a surface the lock builder must refuse.
		s, err := surface.FromVector(c.Get("surface"))
		if err != nil {
			return nil
		}
		if _, err := lock.Build(s); err == nil {
			return errors.New("lock builder accepted a surface it must refuse")
		}
	default:
		return errors.New("malformed case has none of lock, lock_text, input_json, lock_verify, surface")
	}
	return nil
}

// sameJSON compares two values structurally (object key order ignored, array
// order kept) by their canonical text, and describes the first difference.
func sameJSON(what string, got, want *jsonv.Value) error {
	if want == nil {
		return fmt.Errorf("%s: case has no expected value", what)
	}
	g, err1 := canon.Canonical(got)
	w, err2 := canon.Canonical(want)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if string(g) == string(w) {
		return nil
	}
	return fmt.Errorf("%s: %s", what, firstDifference(got, want))
}

// firstDifference walks both values and names the first path where they
// disagree, with both sides clipped.
func firstDifference(got, want *jsonv.Value) string {
	var walk func(p jsonv.Path, g, w *jsonv.Value) string
	walk = func(p jsonv.Path, g, w *jsonv.Value) string {
		gc, _ := canon.Canonical(orNull(g))
		wc, _ := canon.Canonical(orNull(w))
		if string(gc) == string(wc) {
			return ""
		}
		switch {
		case g != nil && w != nil && g.Kind == jsonv.Array && w.Kind == jsonv.Array:
			if len(g.Items) != len(w.Items) {
				return fmt.Sprintf("%s: got %d items, want %d: got %s, want %s", p, len(g.Items), len(w.Items), clip(string(gc)), clip(string(wc)))
			}
			for i := range g.Items {
				if d := walk(p.Index(i), g.Items[i], w.Items[i]); d != "" {
					return d
				}
			}
		case g != nil && w != nil && g.Kind == jsonv.Object && w.Kind == jsonv.Object:
			for _, m := range w.Members {
				if d := walk(p.Key(m.Key), g.Get(m.Key), m.Value); d != "" {
					return d
				}
			}
			for _, m := range g.Members {
				if !w.Has(m.Key) {
					return fmt.Sprintf("%s: unexpected key %q", p, m.Key)
				}
			}
		}
		return fmt.Sprintf("%s: got %s, want %s", p, clip(string(gc)), clip(string(wc)))
	}
	return walk(jsonv.Path{}, got, want)
}

func orNull(v *jsonv.Value) *jsonv.Value {
	if v == nil {
		return jsonv.NewNull()
	}
	return v
}

func clip(s string) string {
	const max = 160
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Summary renders the closing line every runner prints.
func Summary(results []Result) (line string, failed int) {
	passed := 0
	for _, r := range results {
		if r.Err == nil {
			passed++
		} else {
			failed++
		}
	}
	return fmt.Sprintf("%d passed, %d failed", passed, failed), failed
}

// FailureLine renders one failing case as a single line.
func FailureLine(r Result) string {
	msg := strings.ReplaceAll(r.Err.Error(), "\n", " ")
	return fmt.Sprintf("FAIL %s: %s", r.ID, msg)
}

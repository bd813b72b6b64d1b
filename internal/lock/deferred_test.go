package lock

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/jsonv"
)

// demoTools returns the demo surface's tools, built whole with the text
// BuildToolText renders for each.
func demoTools(t testing.TB) (tools []Tool, texts [][]byte) {
	t.Helper()
	s := demoSurfaceOf(t)
	b := NewBuilder()
	for _, st := range s.Tools {
		e, text, err := b.BuildToolText(st, caps.Analyze(st.Name, st.InputSchema), nil, func([]byte) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		tools, texts = append(tools, e), append(texts, text)
	}
	return tools, texts
}

// readDeferredTaking reads the lock at path deferred, takes every demo
// tool whose text it finds, and finishes it; it returns the lock or the
// refusal, and how many tools were taken.
func readDeferredTaking(t testing.TB, path string, tools []Tool, texts [][]byte) (*Lock, int, error) {
	t.Helper()
	d, err := ReadFileDeferred(context.Background(), path)
	if err != nil {
		return nil, 0, err
	}
	taken := 0
	var buf []byte
	for i, text := range texts {
		if slot := d.Find(text, &buf); slot >= 0 {
			d.Take(slot, tools[i])
			taken++
		}
	}
	l, err := d.Finish(context.Background())
	return l, taken, err
}

// readDeferredFound is readDeferredTaking with the tools built by
// Builder.BuildToolFound, so that those taken stand without their
// skeletons' text: it returns the lock once Verify has been run on it as
// it stands (verified, the error of that) and Load has read them again.
func readDeferredFound(t testing.TB, path string) (l *Lock, taken int, verified, err error) {
	t.Helper()
	s := demoSurfaceOf(t)
	d, err := ReadFileDeferred(context.Background(), path)
	if err != nil {
		return nil, 0, nil, err
	}
	d.LeaveUnloaded()
	b := NewBuilder()
	var buf []byte
	for _, st := range s.Tools {
		e, _, slot, err := b.BuildToolFound(st, caps.Analyze(st.Name, st.InputSchema), nil, d, func(text []byte) int { return d.Find(text, &buf) })
		if err != nil {
			t.Fatal(err)
		}
		if slot >= 0 {
			d.Take(slot, e)
			taken++
		}
	}
	if l, err = d.Finish(context.Background()); err != nil {
		return nil, taken, nil, err
	}
	verified = Verify(l)
	return l, taken, verified, l.Load(context.Background())
}

// TestReadFileDeferredIsReadFile checks that a lock read deferred, the
// demo tools taken for the entries whose text is theirs, is the lock the
// plain read gives, refusal and verification alike, for the cases of
// TestReadFileIndexedIsReadFile; that the entries of the lock pinned
// from the surface are all taken; and that an entry whose skeleton was
// edited, its digests recomputed to match, is not taken, so that it
// still drifts.
func TestReadFileDeferredIsReadFile(t *testing.T) {
	tools, texts := demoTools(t)
	aText := Marshal(buildDemo(t))
	s := string(aText)
	for i, text := range texts {
		if !strings.Contains(s, string(text)) {
			t.Fatalf("tool %d's text is not in the lock:\n%s", i, text)
		}
	}
	first := strings.Index(s, "\n    {")
	second := first + 1 + strings.Index(s[first+1:], "\n    {")
	end := strings.Index(s, "\n  ],")
	entry0 := strings.TrimSuffix(s[first:second], ",")
	cases := map[string]struct {
		text  string
		taken int // of the demo's two tools; -1: refused
	}{
		"same":                 {s, 2},
		"description changed":  {string(flipAfter(t, aText, `"description_hash": "sha256:`, 0)), 1},
		"entry digest":         {string(flipAfter(t, aText, `"entry_digest": "sha256:`, 0)), 1},
		"skeleton changed":     {strings.Replace(s, `"required": false`, `"required": true`, 1), 1},
		"renamed":              {strings.Replace(s, `"name": "`, `"name": "x`, 1), 1},
		"overall digest":       {string(flipAfter(t, aText, `"overall_digest": "sha256:`, 0)), 2},
		"entries swapped":      {s[:first] + strings.TrimSuffix(s[second:end], ",") + "," + entry0 + s[end:], 2},
		"entry repeated":       {s[:second] + entry0 + "," + s[second:], 2},
		"schema level 3":       {strings.Replace(s, `"schema_version": 4`, `"schema_version": 3`, 1), 0},
		"tools first":          {toolsFirst(s, end), 0},
		"inspection":           {strings.Replace(s, `"input_schema_hash"`, `"inspection": {"a": 1}, "input_schema_hash"`, 1), 1},
		"duplicate key":        {strings.Replace(s, `"input_schema_hash"`, `"name": "x", "input_schema_hash"`, 1), -1},
		"entry not an object":  {s[:first] + "\n    [1, 2]," + s[first:], -1},
		"truncated":            {s[:second+40], -1},
		"bad utf-8":            {strings.Replace(s, `"name": "`, "\"name\": \"\xff", 1), -1},
		"trailing data":        {s + "{}", -1},
		"accepted tools error": {strings.Replace(s, `"rotation_count": 0`, `"rotation_count": 0, "accepted_list_errors": [{"list": "tools", "code": -32601}]`, 1), -1},
		// Laid out otherwise (see TestReadFileIndexedIsReadFile): read
		// the plain way, so nothing is taken.
		"nested closes at the entry's indentation": {laidEarly(t, s), 0},
		"laid early and bad utf-8":                 {strings.Replace(laidEarly(t, s), `"name": "`, "\"name\": \"\xff", 2), -1},
		"entry on one line":                        {s[:first] + compactEntry(t, entry0) + s[second-1:], 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "b.lock")
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			want, wantErr := ReadFile(p)
			got, taken, gotErr := readDeferredTaking(t, p, tools, texts)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("err = %v, the plain read's %v", gotErr, wantErr)
			}
			if wantErr != nil {
				if tc.taken >= 0 {
					t.Fatalf("refused: %v", wantErr)
				}
				return
			}
			if taken != tc.taken {
				t.Errorf("%d tools taken, want %d", taken, tc.taken)
			}
			if !bytes.Equal(Marshal(got), Marshal(want)) {
				t.Fatalf("lock read differs from the plain read's")
			}
			if g, w := fmt.Sprint(Verify(got)), fmt.Sprint(Verify(want)); g != w {
				t.Fatalf("Verify = %s, of the plain read %s", g, w)
			}
			// The same with the entries taken left without their
			// skeletons' text, then read again.
			found, n, verified, err := readDeferredFound(t, p)
			if err != nil || n != tc.taken {
				t.Fatalf("left unloaded: %d taken, %v", n, err)
			}
			if g, w := fmt.Sprint(verified), fmt.Sprint(Verify(want)); g != w {
				t.Fatalf("left unloaded: Verify = %s, of the plain read %s", g, w)
			}
			if !bytes.Equal(Marshal(found), Marshal(want)) {
				t.Fatalf("left unloaded and read again: differs from the plain read's")
			}
		})
	}
	t.Run("skeleton edited, digests recomputed", func(t *testing.T) {
		l := buildDemo(t)
		l.Tools[0].SchemaSkeleton = jsonv.CompactRawString(strings.Replace(l.Tools[0].SchemaSkeleton.Text(), `"required":false`, `"required":true`, 1))
		d, err := toolDigest(&canon.Hasher{}, l.Tools[0], l.SchemaVersion)
		if err != nil {
			t.Fatal(err)
		}
		l.Tools[0].EntryDigest = d
		if l.OverallDigest, err = OverallDigest(l); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "b.lock")
		if err := os.WriteFile(p, Marshal(l), 0o644); err != nil {
			t.Fatal(err)
		}
		got, taken, err := readDeferredTaking(t, p, tools, texts)
		if err != nil || Verify(got) != nil {
			t.Fatalf("read: %v, verify: %v", err, Verify(got))
		}
		if taken != 1 || got.Tools[0].SchemaSkeleton.Text() == tools[0].SchemaSkeleton.Text() {
			t.Fatalf("%d taken; the edited skeleton reads as %s", taken, got.Tools[0].SchemaSkeleton.Text())
		}
	})
	t.Run("written to after the deferred read", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "b.lock")
		if err := os.WriteFile(p, aText, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ReadFileDeferred(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		var buf []byte
		for i, text := range texts {
			if slot := d.Find(text, &buf); slot >= 0 {
				d.Take(slot, tools[i])
			}
		}
		// Another lock, written in place: Finish reads it the plain way.
		time.Sleep(10 * time.Millisecond)
		other := strings.Replace(s, `"required": false`, `"required": true`, 1)
		if err := os.WriteFile(p, []byte(other), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := d.Finish(context.Background())
		want, wantErr := ReadFile(p)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || err == nil && !bytes.Equal(Marshal(got), Marshal(want)) {
			t.Fatalf("Finish = %v, the plain read of the new file %v", err, wantErr)
		}
	})
}

// FuzzReadFileDeferred holds a deferred read, the demo tools taken where
// their text is found, to the plain read: the same lock, or the same
// refusal.
func FuzzReadFileDeferred(f *testing.F) {
	aText := Marshal(buildDemo(f))
	f.Add(aText)
	f.Add(bytes.Replace(aText, []byte(`"required": false`), []byte(`"required": true`), 1))
	f.Fuzz(func(t *testing.T, text []byte) {
		tools, texts := demoTools(t)
		p := filepath.Join(t.TempDir(), "b.lock")
		if err := os.WriteFile(p, text, 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantErr := ReadFile(p)
		got, _, gotErr := readDeferredTaking(t, p, tools, texts)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("err = %v, the plain read's %v", gotErr, wantErr)
		}
		if wantErr == nil {
			if !bytes.Equal(Marshal(got), Marshal(want)) {
				t.Fatal("lock differs from the plain read's")
			}
			if g, w := fmt.Sprint(Verify(got)), fmt.Sprint(Verify(want)); g != w {
				t.Fatalf("Verify = %s, of the plain read %s", g, w)
			}
		}
		found, _, verified, err := readDeferredFound(t, p)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("left unloaded: err = %v, the plain read's %v", err, wantErr)
		}
		if wantErr == nil {
			if g, w := fmt.Sprint(verified), fmt.Sprint(Verify(want)); g != w {
				t.Fatalf("left unloaded: Verify = %s, of the plain read %s", g, w)
			}
			if !bytes.Equal(Marshal(found), Marshal(want)) {
				t.Fatal("left unloaded and read again: differs from the plain read's")
			}
		}
	})
}

// TestEntryKey checks which edits of an entry text change its key. Only
// the ends are hashed, so an edit in the middle keeps the key: Find must
// then tell the texts apart byte for byte, which the "skeleton changed"
// case of TestReadFileDeferredIsReadFile holds it to (its edit is in the
// middle of the demo's first entry, as checked here).
func TestEntryKey(t *testing.T) {
	_, texts := demoTools(t)
	text := texts[0]
	if len(text) <= 2*entryKeyEnds {
		t.Fatalf("the demo's first entry is %d bytes: too short to have a middle", len(text))
	}
	if at := bytes.Index(text, []byte(`"required": false`)); at < entryKeyEnds || at >= len(text)-entryKeyEnds {
		t.Fatalf("the skeleton edit of TestReadFileDeferredIsReadFile is at byte %d of %d, not in the middle", at, len(text))
	}
	edit := func(at int) []byte {
		b := bytes.Clone(text)
		b[at] ^= 1
		return b
	}
	seed := maphash.MakeSeed()
	key := entryKey(seed, text)
	cases := []struct {
		name string
		text []byte
		same bool
	}{
		{"equal text", bytes.Clone(text), true},
		{"first byte", edit(0), false},
		{"last of the head", edit(entryKeyEnds - 1), false},
		{"first of the tail", edit(len(text) - entryKeyEnds), false},
		{"last byte", edit(len(text) - 1), false},
		{"middle", edit(len(text) / 2), true},
		{"one byte longer", append(bytes.Clone(text[:len(text)/2]), text[len(text)/2-1:]...), false},
		{"short text", text[:100], false},
	}
	for _, tc := range cases {
		if got := entryKey(seed, tc.text) == key; got != tc.same {
			t.Errorf("%s: same key %v, want %v", tc.name, got, tc.same)
		}
	}
	if entryKey(seed, text[:100]) != entryKey(seed, bytes.Clone(text[:100])) {
		t.Error("a short text's key is not its copy's")
	}
}

// TestBuildToolFoundLoads checks that the entries BuildToolFound takes from
// a deferred lock stand without their skeletons' text until Load reads
// them from the lock, that the lock then is the plain read's, that such an
// entry is never written or hashed as if its skeletons were null, and that
// Load refuses a file changed since it was read.
func TestBuildToolFoundLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warden.lock")
	if err := os.WriteFile(path, Marshal(buildDemo(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := demoSurfaceOf(t)
	read := func() (*Lock, []Tool) {
		d, err := ReadFileDeferred(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		d.LeaveUnloaded()
		b := NewBuilder()
		var built []Tool
		var buf []byte
		for _, st := range s.Tools {
			e, _, slot, err := b.BuildToolFound(st, caps.Analyze(st.Name, st.InputSchema), nil, d, func(text []byte) int { return d.Find(text, &buf) })
			if err != nil || slot < 0 || e.Whole() {
				t.Fatalf("tool %q: slot %d, whole %v, %v", st.Name, slot, e.Whole(), err)
			}
			d.Take(slot, e)
			built = append(built, e)
		}
		l, err := d.Finish(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return l, built
	}
	l, built := read()
	if err := Verify(l); err != nil {
		t.Fatalf("an unloaded lock verifies by its memoised digests: %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("an unloaded entry was written")
			}
		}()
		Marshal(l)
	}()
	if err := l.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	want, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Tools {
		if got, w := l.Tools[i], want.Tools[i]; !got.Whole() || got.SchemaSkeleton != w.SchemaSkeleton || got.OutputSchemaSkeleton != w.OutputSchemaSkeleton || got.EntryDigest != w.EntryDigest {
			t.Fatalf("tool %d loaded is not the plain read's", i)
		}
	}
	if !bytes.Equal(Marshal(l), Marshal(want)) {
		t.Fatal("the lock loaded does not write as the plain read does")
	}
	// The built lock's entries read again from the lock too.
	cur := &Lock{SchemaVersion: CurrentSchemaVersion, Tools: built}
	if err := cur.Load(context.Background()); err != nil || !cur.Tools[0].Whole() {
		t.Fatalf("built entries: %v", err)
	}

	l, _ = read()
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(path, append(Marshal(want), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.Load(context.Background()); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("Load of a changed file: %v", err)
	}
}

package lock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// flipAfter changes the character after the n-th (from 0) occurrence of
// marker in text.
func flipAfter(t *testing.T, text []byte, marker string, n int) []byte {
	t.Helper()
	at := 0
	for i := 0; i <= n; i++ {
		k := bytes.Index(text[at:], []byte(marker))
		if k < 0 {
			t.Fatalf("no %d-th %q", n, marker)
		}
		at += k + len(marker)
	}
	out := bytes.Clone(text)
	if out[at] == '0' {
		out[at] = '1'
	} else {
		out[at] = '0'
	}
	return out
}

// laidEarly is the lock text s with the first skeleton record's
// constraints closed at the indentation of the tool entries, a layout
// the same lock can have (whitespace only) that no writer of locks gives.
func laidEarly(t *testing.T, s string) string {
	t.Helper()
	re := regexp.MustCompile(`("additionalProperties": (?:true|false)\n) +}`)
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		t.Fatal("no constraints to lay out")
	}
	return s[:loc[3]] + "    }" + s[loc[1]:]
}

// compactEntry is the text of a tool entry (from its leading newline and
// indentation) with the entry itself compact, on one line.
func compactEntry(t *testing.T, entry string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(strings.TrimSpace(entry))); err != nil {
		t.Fatal(err)
	}
	return "\n    " + b.String()
}

// TestReadFileIndexedIsReadFile checks that reading a lock against the
// index of another gives what the plain read gives, lock and refusal and
// verification alike, for locks that share entries' text with the first,
// differ in some, are tampered with or malformed; and that shared entries
// are taken from the first lock.
func TestReadFileIndexedIsReadFile(t *testing.T) {
	dir := t.TempDir()
	aText := Marshal(buildDemo(t))
	aPath := filepath.Join(dir, "a.lock")
	if err := os.WriteFile(aPath, aText, 0o644); err != nil {
		t.Fatal(err)
	}
	a, ax, err := ReadFileIndexed(context.Background(), aPath, nil)
	if err != nil || ax == nil {
		t.Fatalf("read A: %v (index %v)", err, ax != nil)
	}
	if err := Verify(a); err != nil {
		t.Fatal(err)
	}
	if plain, err := ReadFile(aPath); err != nil || !bytes.Equal(Marshal(plain), Marshal(a)) {
		t.Fatalf("A read indexed is not A read plainly: %v", err)
	}
	if len(a.Tools) < 2 {
		t.Fatalf("the demo lock has %d tools", len(a.Tools))
	}
	s := string(aText)
	first := strings.Index(s, "\n    {")
	second := first + 1 + strings.Index(s[first+1:], "\n    {")
	end := strings.Index(s, "\n  ],")
	if first < 0 || second <= first || end < second {
		t.Fatalf("cannot find the tool entries in:\n%s", s)
	}
	entry0 := strings.TrimSuffix(s[first:second], ",")
	cases := map[string]string{
		"same":                s,
		"description changed": string(flipAfter(t, aText, `"description_hash": "sha256:`, 0)),
		"input schema hash":   string(flipAfter(t, aText, `"input_schema_hash": "sha256:`, 1)),
		"entry digest":        string(flipAfter(t, aText, `"entry_digest": "sha256:`, 0)),
		"skeleton changed":    strings.Replace(s, `"required": false`, `"required": true`, 1),
		"renamed":             strings.Replace(s, `"name": "`, `"name": "x`, 1),
		"overall digest":      string(flipAfter(t, aText, `"overall_digest": "sha256:`, 0)),
		"entries swapped":     s[:first] + strings.TrimSuffix(s[second:end], ",") + "," + entry0 + s[end:],
		"entry repeated":      s[:second] + entry0 + "," + s[second:],
		"schema level 3":      strings.Replace(s, `"schema_version": 4`, `"schema_version": 3`, 1),
		"tools first":         toolsFirst(s, end),
		"inspection":          strings.Replace(s, `"input_schema_hash"`, `"inspection": {"a": 1}, "input_schema_hash"`, 1),
		"duplicate key":       strings.Replace(s, `"input_schema_hash"`, `"name": "x", "input_schema_hash"`, 1),
		"entry not an object": s[:first] + "\n    [1, 2]," + s[first:],
		"truncated":           s[:second+40],
		"bad utf-8":           strings.Replace(s, `"name": "`, "\"name\": \"\xff", 1),
		"trailing data":       s + "{}",
		// Laid out otherwise than warden and the reference lay a lock:
		// cut where the indentation says, the entry does not read whole,
		// and the lock is read the plain way.
		"nested closes at the entry's indentation": laidEarly(t, s),
		"laid early and bad utf-8":                 strings.Replace(laidEarly(t, s), `"name": "`, "\"name\": \"\xff", 2),
		"entry on one line":                        s[:first] + compactEntry(t, entry0) + s[second-1:],
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "b.lock")
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			want, wantErr := ReadFile(p)
			got, _, gotErr := ReadFileIndexed(context.Background(), p, ax)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("err = %v, the plain read's %v", gotErr, wantErr)
			}
			if wantErr != nil {
				t.Logf("refused: %v", wantErr)
				return
			}
			t.Logf("read; Verify: %v", Verify(want))
			if !bytes.Equal(Marshal(got), Marshal(want)) {
				t.Fatalf("lock read differs from the plain read's")
			}
			if g, w := fmt.Sprint(Verify(got)), fmt.Sprint(Verify(want)); g != w {
				t.Fatalf("Verify = %s, of the plain read %s", g, w)
			}
		})
	}
	// The entries of an identical lock are A's own.
	p := filepath.Join(dir, "b.lock")
	if err := os.WriteFile(p, aText, 0o644); err != nil {
		t.Fatal(err)
	}
	b, _, err := ReadFileIndexed(context.Background(), p, ax)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Tools {
		if unsafe.StringData(b.Tools[i].SchemaSkeleton.Text()) != unsafe.StringData(a.Tools[i].SchemaSkeleton.Text()) {
			t.Errorf("tool %d was read again, not taken from A", i)
		}
	}
}

// toolsFirst moves the tools array of the lock text s, which ends at
// end, before every other member.
func toolsFirst(s string, end int) string {
	ts := strings.Index(s, `"tools": `)
	arr := s[ts+len(`"tools": `) : end+4]
	rest := s[:ts] + strings.TrimLeft(s[end+5:], "\n ")
	return "{\"tools\": " + arr + "," + rest[1:]
}

// FuzzReadFileIndexed holds a read against the index of the demo lock to
// the plain read: the same lock, or the same refusal.
func FuzzReadFileIndexed(f *testing.F) {
	aText := Marshal(buildDemo(f))
	f.Add(aText)
	f.Add(flipAfter(&testing.T{}, aText, `"entry_digest": "sha256:`, 0))
	dir := f.TempDir()
	aPath := filepath.Join(dir, "a.lock")
	if err := os.WriteFile(aPath, aText, 0o644); err != nil {
		f.Fatal(err)
	}
	_, ax, err := ReadFileIndexed(context.Background(), aPath, nil)
	if err != nil || ax == nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		p := filepath.Join(t.TempDir(), "b.lock")
		if err := os.WriteFile(p, text, 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantErr := ReadFile(p)
		got, _, gotErr := ReadFileIndexed(context.Background(), p, ax)
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
	})
}

// sharedWithA counts the tools of b whose skeleton text is a's own
// string: entries taken from A's index rather than read again.
func sharedWithA(a, b *Lock) int {
	n := 0
	for i := range b.Tools {
		if i < len(a.Tools) && unsafe.StringData(b.Tools[i].SchemaSkeleton.Text()) == unsafe.StringData(a.Tools[i].SchemaSkeleton.Text()) {
			n++
		}
	}
	return n
}

// TestRawIndexTakesOnlyWhatItChecked checks that an entry is taken from
// A's index only when its text is A's as A was read: not after A's file
// was written to (in place, the same length), not when the index's hash
// points at an entry of other text, not once the index is closed; the
// lock read is then the plain read's all the same.
func TestRawIndexTakesOnlyWhatItChecked(t *testing.T) {
	dir := t.TempDir()
	aText := Marshal(buildDemo(t))
	aPath, bPath := filepath.Join(dir, "a.lock"), filepath.Join(dir, "b.lock")
	for _, p := range []string{aPath, bPath} {
		if err := os.WriteFile(p, aText, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(t *testing.T) (*Lock, *RawIndex) {
		t.Helper()
		a, ax, err := ReadFileIndexed(context.Background(), aPath, nil)
		if err != nil || ax == nil {
			t.Fatalf("read A: %v (index %v)", err, ax != nil)
		}
		t.Cleanup(func() { ax.Close() })
		return a, ax
	}
	readB := func(t *testing.T, a *Lock, ax *RawIndex, wantShared int) {
		t.Helper()
		b, _, err := ReadFileIndexed(context.Background(), bPath, ax)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(Marshal(b), aText) {
			t.Fatal("B read is not B")
		}
		if got := sharedWithA(a, b); got != wantShared {
			t.Fatalf("%d of %d tools taken from A, want %d", got, len(b.Tools), wantShared)
		}
	}
	t.Run("unchanged", func(t *testing.T) {
		a, ax := read(t)
		readB(t, a, ax, len(a.Tools))
	})
	t.Run("A written to", func(t *testing.T) {
		a, ax := read(t)
		// The same bytes written again: only the file's change time
		// tells that what is read again may not be what was checked.
		time.Sleep(10 * time.Millisecond)
		f, err := os.OpenFile(aPath, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(aText[:8], 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, ok := ax.file.Stamp(); !ok {
			t.Skip("no change times on this platform")
		}
		readB(t, a, ax, 0)
	})
	t.Run("hash collision", func(t *testing.T) {
		a, ax := read(t)
		// Every key of the index points at text of the same length one
		// byte further on: the hash and the length agree, the bytes do
		// not.
		for k, e := range ax.entries {
			e.off++
			ax.entries[k] = e
		}
		readB(t, a, ax, 0)
	})
	t.Run("closed", func(t *testing.T) {
		a, ax := read(t)
		if err := ax.Close(); err != nil {
			t.Fatal(err)
		}
		readB(t, a, ax, 0)
	})
}

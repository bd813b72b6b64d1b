package lock

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/surface"
)

// streamWrite writes l through a StreamWriter with its tools added in the
// given order, after announcing head (nil: nothing announced), and returns
// the file's bytes.
func streamWrite(t *testing.T, l *Lock, order []int, head *Lock) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "warden.lock")
	w := NewStreamWriter(path)
	if head != nil {
		w.Provisional(head)
	}
	for _, i := range order {
		if err := w.Add(l.Tools[i].Name, AppendToolText(nil, &l.Tools[i])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(l, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	assertNoTemp(t, filepath.Dir(path))
	return data
}

// assertNoTemp fails when a temporary file is left in dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestStreamWriterMatchesMarshal holds the streamed file to Marshal's bytes
// whatever the order the tools arrive in and whatever head was announced:
// the direct path (in order, head right), and the rewrite after tools out
// of order, after a head that changed, and without a head.
func TestStreamWriterMatchesMarshal(t *testing.T) {
	for name, l := range streamLocks(t) {
		if len(l.Tools) == 0 {
			continue
		}
		want := Marshal(l)
		n := len(l.Tools)
		inOrder := make([]int, n)
		for i := range inOrder {
			inOrder[i] = i
		}
		reversed := make([]int, n)
		for i := range reversed {
			reversed[i] = n - 1 - i
		}
		shuffled := rand.New(rand.NewPCG(1, 2)).Perm(n)
		otherServer := *l
		otherServer.Server.Args = append([]string{"--other"}, l.Server.Args...)
		otherVersion := *l
		otherVersion.WardenVersion = l.WardenVersion + "-old"
		for _, tc := range []struct {
			what  string
			order []int
			head  *Lock
		}{
			{"in order", inOrder, l},
			{"reversed", reversed, l},
			{"shuffled", shuffled, l},
			{"no head", inOrder, nil},
			{"head with another server", inOrder, &otherServer},
			{"head with another version", shuffled, &otherVersion},
		} {
			if got := streamWrite(t, l, tc.order, tc.head); !bytes.Equal(got, want) {
				t.Errorf("%s, %s: the streamed file differs from Marshal:\n%s", name, tc.what, firstDifference(got, want))
			}
		}
	}
}

// firstDifference shows where two texts part.
func firstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-80)
	return "got  …" + string(got[from:min(len(got), i+80)]) + "\nwant …" + string(want[from:min(len(want), i+80)])
}

// TestStreamWriterNoTools: a lock without tools is written whole at Finish.
func TestStreamWriterNoTools(t *testing.T) {
	l := urlLock(t, "https://example.com/mcp")
	l.Tools = []Tool{}
	if got := streamWrite(t, l, nil, l); !bytes.Equal(got, Marshal(l)) {
		t.Errorf("differs from Marshal:\n%s", firstDifference(got, Marshal(l)))
	}
}

// TestStreamWriterFailuresKeepOldLock: an abort, a failing check, a size
// past the limit and a lock that does not match the tools written all
// leave the existing lock as it was and no temporary file behind.
func TestStreamWriterFailuresKeepOldLock(t *testing.T) {
	l := genLock(t, 12)
	old := []byte("the old lock\n")
	refusal := errors.New("refused by the check")
	for _, tc := range []struct {
		what   string
		max    int64
		check  func() error
		mangle func(l *Lock) *Lock
		abort  bool
		want   string
	}{
		{what: "abort", abort: true, want: "aborted"},
		{what: "check fails", check: func() error { return refusal }, want: refusal.Error()},
		{what: "too large", max: 4096, want: "more than the"},
		{what: "a tool missing", mangle: func(l *Lock) *Lock {
			m := *l
			m.Tools = m.Tools[1:]
			return &m
		}, want: "tools were written but the lock has"},
		{what: "another tool", mangle: func(l *Lock) *Lock {
			m := *l
			m.Tools = append([]Tool{}, l.Tools...)
			m.Tools[0].Name = "zz-not-written"
			return &m
		}, want: "was written but the lock has"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "warden.lock")
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			w := NewStreamWriter(path)
			if tc.max > 0 {
				w.max = tc.max
			}
			// Out of order, so that the "another tool" case reaches the
			// rewrite that compares names.
			order := []int{1, 0}
			for i := 2; i < len(l.Tools); i++ {
				order = append(order, i)
			}
			for _, i := range order {
				w.Add(l.Tools[i].Name, AppendToolText(nil, &l.Tools[i]))
			}
			final := l
			if tc.mangle != nil {
				final = tc.mangle(l)
			}
			var err error
			if tc.abort {
				w.Abort()
				err = w.Finish(final, nil)
			} else {
				err = w.Finish(final, tc.check)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Finish: %v, want an error containing %q", err, tc.want)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
				t.Errorf("the old lock was replaced: %q", got)
			}
			assertNoTemp(t, dir)
		})
	}
}

// TestBuildToolText: the text BuildToolText renders from the schema walk is
// AppendToolText of the entry BuildAnalyzedTool builds, and the entry it
// returns is that entry when keep says so, else its name and digest only.
func TestBuildToolText(t *testing.T) {
	s := genSurface(t, 30)
	s.Tools = append(s.Tools, surface.Tool{Name: "no-schema"}, surface.Tool{Name: "out", OutputSchema: jsonv.NewObject(jsonv.M("properties", jsonv.NewObject(jsonv.M("r", jsonv.NewObject(jsonv.M("type", jsonv.NewString("number"))))))), InputSchema: jsonv.NewInt(5)})
	b := NewBuilder()
	for _, tool := range s.Tools {
		want, err := b.BuildAnalyzedTool(tool, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantText := AppendToolText([]byte("x"), &want)
		for _, keep := range []bool{true, false} {
			got, text, err := b.BuildToolText(tool, nil, []byte("x"), func([]byte) bool { return keep })
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(text, wantText) {
				t.Fatalf("%s: text differs:\n%s", tool.Name, firstDifference(text, wantText))
			}
			whole := fmt.Sprint(got.Name, got.SchemaSkeleton, got.OutputSchemaSkeleton, got.Capabilities, got.InputSchemaHash, got.EntryDigest) ==
				fmt.Sprint(want.Name, want.SchemaSkeleton, want.OutputSchemaSkeleton, want.Capabilities, want.InputSchemaHash, want.EntryDigest)
			if keep && !whole {
				t.Errorf("%s: kept entry is not whole: %+v", tool.Name, got)
			}
			if !keep && (got.Name != want.Name || got.EntryDigest != want.EntryDigest || !got.SchemaSkeleton.IsZero() || got.InputSchemaHash != "") {
				t.Errorf("%s: cut-down entry is %+v", tool.Name, got)
			}
		}
	}
}

// TestToolBreaks: the constant breaks toolWith writes are pyfmt's
// newlines at the levels of a tool entry.
func TestToolBreaks(t *testing.T) {
	for _, tc := range []struct {
		got   string
		level int
	}{{itemBreak, 2}, {memberBreak, 3}, {capabilityBreak, 4}} {
		if want := string(pyfmt.Newline(nil, lockIndent, tc.level)); tc.got != want {
			t.Errorf("level %d: %q, want %q", tc.level, tc.got, want)
		}
	}
}

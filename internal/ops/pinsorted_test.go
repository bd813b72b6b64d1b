package ops

import (
	"bytes"
	"context"
	"errors"
	"hash/maphash"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/snapshot"
)

// TestPinSurfaceSortedMatchesPlain: a pin from a surface file, which
// writes the lock once (in one pass when the tools come sorted, else
// reading them again in the lock's order), writes byte for byte the lock
// (and snapshot) of the plain read one entry at a time that writes the
// tools where they land and again in order at the end (standard input
// takes that path), on the realistic unsorted surface and on a sorted
// one, with several cores and with one.
func TestPinSurfaceSortedMatchesPlain(t *testing.T) {
	t.Run("unsorted", func(t *testing.T) {
		testPinSurfaceSortedMatchesPlain(t, benchdata.Realistic(300, 30, 15, benchdata.EveryTenth), errUnsorted)
	})
	t.Run("sorted", func(t *testing.T) {
		testPinSurfaceSortedMatchesPlain(t, benchdata.Surface(200, benchdata.EveryTenth), nil)
	})
}

// testPinSurfaceSortedMatchesPlain is TestPinSurfaceSortedMatchesPlain on
// the surface text, whose read in one pass must fail with wantInOrder.
func testPinSurfaceSortedMatchesPlain(t *testing.T, text []byte, wantInOrder error) {
	path := writeSurface(t, string(text))
	at := func() time.Time { return time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC) }
	pin := func(t *testing.T, surfacePath string, noSnapshot bool) (lockText, snapText []byte) {
		t.Helper()
		lockPath := filepath.Join(t.TempDir(), "warden.lock")
		o := PinOptions{Surface: surfacePath, Stdin: bytes.NewReader(text), LockPath: lockPath, Version: "test", Now: at, NoSnapshot: noSnapshot}
		if _, err := Pin(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		lockText, err := os.ReadFile(lockPath)
		if err != nil {
			t.Fatal(err)
		}
		if !noSnapshot {
			if snapText, err = os.ReadFile(snapshot.Path(lockPath)); err != nil {
				t.Fatal(err)
			}
		}
		return lockText, snapText
	}
	// The file is read in one pass or the sorted way, never the plain way
	// after a refusal.
	sink := newLockSink(filepath.Join(t.TempDir(), "warden.lock"), "test")
	if _, err := readSurfaceInOrder(context.Background(), path, 0, 2, sink); !errors.Is(err, wantInOrder) {
		t.Fatalf("readSurfaceInOrder: %v, want %v", err, wantInOrder)
	}
	sink.restart()
	// The tools built ahead while the first pass reads (none, some, every
	// one the prebuilder gets to) make no difference to the lock or the
	// snapshot texts.
	var firstLock []byte
	var firstSnap []snapshot.ToolText
	for _, budget := range []int{0, 16 << 10, 256 << 10, prebuildBudget} {
		sink := newLockSink(filepath.Join(t.TempDir(), "warden.lock"), "test")
		sink.snapshot = true
		b, err := readSurfaceSorted(context.Background(), path, 0, 2, budget, sink)
		if err != nil {
			t.Fatalf("readSurfaceSorted, budget %d: %v", budget, err)
		}
		snap := sink.snapshotParts(b.protocol).Tools
		l := b.lock
		l.Findings = b.findings
		l.Pin = lock.NewPin(lock.PinInfo{Version: "test", Now: at()}, l.OverallDigest)
		if err := sink.w.Finish(l, nil); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(sink.path)
		if err != nil {
			t.Fatal(err)
		}
		if firstLock == nil {
			firstLock, firstSnap = got, snap
			continue
		}
		if !bytes.Equal(got, firstLock) {
			t.Errorf("budget %d: the lock (%d bytes) differs from the one read without a prebuilder (%d)", budget, len(got), len(firstLock))
		}
		if len(snap) != len(firstSnap) {
			t.Fatalf("budget %d: %d snapshot texts, want %d", budget, len(snap), len(firstSnap))
		}
		for i := range snap {
			if snap[i].Name != firstSnap[i].Name || !bytes.Equal(snap[i].Text, firstSnap[i].Text) {
				t.Errorf("budget %d: snapshot text %d (%q) differs", budget, i, snap[i].Name)
			}
		}
	}
	for _, procs := range []int{runtime.GOMAXPROCS(0), 1} {
		for _, noSnapshot := range []bool{true, false} {
			prev := runtime.GOMAXPROCS(procs)
			wantLock, wantSnap := pin(t, "-", noSnapshot)
			gotLock, gotSnap := pin(t, path, noSnapshot)
			runtime.GOMAXPROCS(prev)
			if !bytes.Equal(gotLock, wantLock) || !bytes.Equal(gotSnap, wantSnap) {
				t.Errorf("GOMAXPROCS %d, no snapshot %v: the lock (%d and %d bytes) or snapshot (%d and %d) differs from the plain read's", procs, noSnapshot, len(gotLock), len(wantLock), len(gotSnap), len(wantSnap))
			}
		}
	}
}

// TestReadSurfaceSortedFallsBack: a surface whose tool names need more
// than a plain scan (escapes, a name after other members, none at all, a
// repeat), or with a tool that fails to build, is read the plain way and
// gives what that gives.
func TestReadSurfaceSortedFallsBack(t *testing.T) {
	for name, tools := range map[string]string{
		"escaped name":    `{"name": "z"}, {"name": "caf\u00e9"}, {"name": "a\"b"}`,
		"escaped key":     `{"name": "z"}, {"n\u0061me": "a"}`,
		"name last":       `{"inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}}, "description": "x]}\"", "name": "m"}, {"name": "b"}`,
		"no name":         `{"name": "z"}, {"description": "d"}`,
		"repeated":        `{"name": "z"}, {"name": "a"}, {"name": "z"}`,
		"number for name": `{"name": "z"}, {"name": 7}`,
		// Built ahead on the other core, and again in the second pass.
		"a tool fails": `{"name": "z"}, {"name": "a", "annotations": 5}, {"name": "b"}`,
	} {
		t.Run(name, func(t *testing.T) {
			text := `{"command": "node", "tools": [` + tools + `]}`
			lockPath := filepath.Join(t.TempDir(), "warden.lock")
			_, gotErr := Pin(context.Background(), PinOptions{Surface: writeSurface(t, text), LockPath: lockPath, Version: "test", NoSnapshot: true})
			plainPath := filepath.Join(t.TempDir(), "warden.lock")
			_, wantErr := Pin(context.Background(), PinOptions{Surface: "-", Stdin: strings.NewReader(text), LockPath: plainPath, Version: "test", NoSnapshot: true})
			if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && !strings.Contains(gotErr.Error(), strings.TrimPrefix(wantErr.Error(), "surface file (standard input): "))) {
				t.Fatalf("got %v, want %v", gotErr, wantErr)
			}
		})
	}
}

// TestRawToolName: the name a plain scan finds, or none.
func TestRawToolName(t *testing.T) {
	for text, want := range map[string]string{
		`{"name": "read_file"}`: "read_file",
		` { "description" : "a \"name\": \"x\" } ]", "inputSchema": {"properties": {"name": {"enum": ["q", {"name": "r"}]}}}, "name" : "données 📁" } `: "données 📁",
		`{"annotations": null, "n": 1.5e3, "t": true, "name": "b"}`:                                                                                    "b",
		`{"name": "caf\u00e9"}`:       "",
		`{"nam\u0065": "x"}`:          "",
		`{"name": 3}`:                 "",
		`{"other": "x"}`:              "",
		`{"other": "x", `:             "",
		`["name", "x"]`:               "",
		`{"name": "a` + "\xff" + `"}`: "",
	} {
		got, ok := rawToolName([]byte(text))
		if got != want || ok != (want != "") {
			t.Errorf("rawToolName(%s) = %q, %v; want %q", text, got, ok, want)
		}
	}
}

// TestBuildSortedRefusesChangedFile: a tool text that no longer matches
// what the first pass read fails the sorted read (for the plain one).
func TestBuildSortedRefusesChangedFile(t *testing.T) {
	tool := `{"name": "a", "description": "d"}`
	path := writeSurface(t, tool)
	seed := maphash.MakeSeed()
	sink := newLockSink(filepath.Join(t.TempDir(), "warden.lock"), "test")
	defer sink.w.Abort()
	refs := []toolRef{{name: "a", n: len(tool), sum: maphash.String(seed, tool) + 1}}
	var sc findings.Scanner
	if err := buildSorted(context.Background(), path, refs, seed, prebuilt{}, lock.NewBuilder(), &sc, 2, sink); !errors.Is(err, errRefused) {
		t.Fatalf("got %v, want errRefused", err)
	}
}

package ops

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/mask"
	"github.com/wardenlock/warden/internal/snapshot"
	"github.com/wardenlock/warden/internal/surface"
	"github.com/wardenlock/warden/internal/testserver"
)

// snapSurface is a surface file with unsorted tools, an enum, an
// annotation, a resource and a prompt.
const snapSurface = `{"command": "node", "args": ["s.js"], "protocolVersion": "2025-06-18", "tools": [
 {"name": "write_file", "description": "Writes a file to disk.", "inputSchema": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["overwrite", "append"]}, "path": {"type": "string"}}, "required": ["path"]}, "annotations": {"destructiveHint": true}},
 {"name": "read_file", "description": "Reads a file.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}
], "resources": [{"uri": "file:///r", "name": "r"}], "prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}`

// pinSurface pins the surface file at surfacePath into lockPath and returns
// the result, failing the test on an error.
func pinSurface(t *testing.T, surfacePath, lockPath string, o PinOptions) *PinResult {
	t.Helper()
	o.Surface, o.LockPath = surfacePath, lockPath
	res, err := Pin(context.Background(), o)
	if err != nil {
		t.Fatalf("pin: %v", err)
	}
	return res
}

// TestPinWritesSnapshot: a pin, from a capture or a surface file (whose
// lock is streamed), writes the canonical snapshot of what it pinned
// beside the lock; pinning the same surface again writes the same bytes;
// check and diff then return the verified surfaces.
func TestPinWritesSnapshot(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	cases := []struct {
		name string
		pin  func(lockPath string) (*PinResult, error)
	}{
		{"capture", func(lockPath string) (*PinResult, error) {
			return Pin(context.Background(), PinOptions{Target: Target{Argv: []string{demo}}, LockPath: lockPath, Version: "test"})
		}},
		{"surface file", func(lockPath string) (*PinResult, error) {
			return Pin(context.Background(), PinOptions{Surface: writeSurface(t, snapSurface), LockPath: lockPath, Version: "test"})
		}},
		{"surface file, many unsorted tools", func(lockPath string) (*PinResult, error) {
			return Pin(context.Background(), PinOptions{Surface: writeSurface(t, strings.ReplaceAll(surfaceText(300, nil), "sk-", "sk")), LockPath: lockPath, Version: "test"})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lockPath := filepath.Join(t.TempDir(), "warden.lock")
			res, err := c.pin(lockPath)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(filepath.Dir(lockPath), "warden.surface.json")
			if res.Snapshot != want {
				t.Fatalf("Snapshot = %q, want %q", res.Snapshot, want)
			}
			first, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.pin(lockPath); err != nil {
				t.Fatal(err)
			}
			second, _ := os.ReadFile(want)
			if !bytes.Equal(first, second) {
				t.Fatalf("a second pin of the same surface wrote other snapshot text:\n%s\n---\n%s", first, second)
			}
			// The snapshot is what the lock commits to, and reads as a
			// surface file that pins the same lock.
			l, err := lock.ReadFile(lockPath)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := snapshot.ReadFile(context.Background(), want)
			if err != nil {
				t.Fatal(err)
			}
			if err := snapshot.Verify(snap, l); err != nil {
				t.Fatal(err)
			}
			again := filepath.Join(t.TempDir(), "again.lock")
			pinSurface(t, want, again, PinOptions{NoSnapshot: true})
			if l2, _ := lock.ReadFile(again); l2.OverallDigest != l.OverallDigest {
				t.Fatalf("the snapshot as a surface file pins another digest")
			}
			d, err := Diff(context.Background(), lockPath, lockPath)
			if err != nil || d.ASurface == nil || d.BSurface == nil || len(d.ASurface.Tools) != len(l.Tools) {
				t.Fatalf("Diff = %+v, %v; want both surfaces", d, err)
			}
		})
	}
}

// TestStreamedSnapshotMatchesMarshal: the snapshot a streamed pin writes
// is snapshot.Marshal of the surface the file holds, byte for byte, and
// Check of the same file against it keeps the baseline's surface.
func TestStreamedSnapshotMatchesMarshal(t *testing.T) {
	text := strings.ReplaceAll(surfaceText(200, nil), "sk-", "sk")
	path := writeSurface(t, text)
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	pinSurface(t, path, lockPath, PinOptions{})
	v, err := jsonv.Parse([]byte(text), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(snapshot.Path(lockPath))
	if want := snapshot.Marshal(s); !bytes.Equal(got, want) {
		t.Fatalf("streamed snapshot differs from Marshal")
	}
	res, err := Check(context.Background(), CheckOptions{LockPath: lockPath, Surface: path})
	if err != nil {
		t.Fatal(err)
	}
	if res.BaselineSurface == nil || len(res.BaselineSurface.Tools) != 200 || res.CurrentSurface != nil || !res.CurrentSurfacePartial {
		t.Fatalf("clean check of a surface file: baseline %v, current %v, partial %v", res.BaselineSurface != nil, res.CurrentSurface, res.CurrentSurfacePartial)
	}
}

// TestCheckSurfaceKeepsDrifted: a check of a surface file that drifted
// returns the drifted tools (and only those) as the current surface, and
// a candidate snapshot that verifies against the candidate lock.
func TestCheckSurfaceKeepsDrifted(t *testing.T) {
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	pinSurface(t, writeSurface(t, snapSurface), lockPath, PinOptions{})
	changed := writeSurface(t, strings.Replace(snapSurface, "Reads a file.", "Reads a file. Also sends it away.", 1))
	res, err := Check(context.Background(), CheckOptions{LockPath: lockPath, Surface: changed})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Drift) == 0 || res.CurrentSurface == nil || len(res.CurrentSurface.Tools) != 1 || res.CurrentSurface.Tools[0].Name != "read_file" {
		t.Fatalf("drift %v, current %+v", res.Drift, res.CurrentSurface)
	}
	if got := res.CurrentSurface.Tools[0].DescriptionText(); got != "Reads a file. Also sends it away." {
		t.Fatalf("current description %q", got)
	}
	if d := res.BaselineSurface.Tools[0].DescriptionText(); d != "Reads a file." {
		t.Fatalf("baseline description %q", d)
	}
	cand, err := Candidate(context.Background(), res, CandidateOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	candPath := filepath.Join(filepath.Dir(lockPath), "warden.candidate.lock")
	if err := lock.WriteFile(candPath, cand); err != nil {
		t.Fatal(err)
	}
	sp, err := WriteCandidateSnapshot(context.Background(), res, candPath, SnapshotOptions{})
	if err != nil || sp != filepath.Join(filepath.Dir(lockPath), "warden.candidate.surface.json") {
		t.Fatalf("WriteCandidateSnapshot = %q, %v", sp, err)
	}
	if _, err := Diff(context.Background(), lockPath, candPath); err != nil {
		t.Fatalf("the candidate snapshot does not verify: %v", err)
	}
}

// TestTamperedSnapshotRefused: check and diff refuse a snapshot edited in
// any way the lock commits to, with exit-2 text naming the difference,
// before anything is launched.
func TestTamperedSnapshotRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the marker server is a POSIX shell command")
	}
	cases := []struct{ name, old, new, want string }{
		{"description edited", `"Reads a file."`, `"Reads a file, harmlessly."`, `tool "read_file": description_hash`},
		{"enum value edited", `"append"`, `"prepend"`, `tool "write_file": input_schema_hash`},
		{"tool removed", "", "", `tool "write_file" is in the lock but not in the snapshot`},
		{"unknown key added", `"name": "read_file",`, `"name": "read_file", "approvedBy": "security",`, `$.tools[0].approvedBy is not part of a surface`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			lockPath := filepath.Join(dir, "warden.lock")
			pinSurface(t, writeSurface(t, snapSurface), lockPath, PinOptions{})
			sp := snapshot.Path(lockPath)
			text, _ := os.ReadFile(sp)
			var edited string
			if c.old == "" {
				// Cut the second tool out whole.
				s := string(text)
				start := strings.Index(s, ",\n    {\n      \"name\": \"write_file\"")
				end := strings.Index(s, "\n  ],\n  \"resources\"")
				edited = s[:start] + s[end:]
			} else {
				if !bytes.Contains(text, []byte(c.old)) {
					t.Fatalf("snapshot lacks %q", c.old)
				}
				edited = strings.Replace(string(text), c.old, c.new, 1)
			}
			if err := os.WriteFile(sp, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(dir, "launched")
			_, err := Check(context.Background(), CheckOptions{LockPath: lockPath, Target: Target{Argv: []string{"sh", "-c", "touch " + marker}}})
			if err == nil || !strings.HasPrefix(err.Error(), "snapshot does not match lock: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("check: %v, want a mismatch naming %q", err, c.want)
			}
			if _, serr := os.Stat(marker); serr == nil {
				t.Fatal("check launched the server before refusing the snapshot")
			}
			if _, err := Diff(context.Background(), lockPath, lockPath); err == nil || !strings.HasPrefix(err.Error(), "snapshot does not match lock: ") {
				t.Fatalf("diff: %v", err)
			}
			if _, err := Check(context.Background(), CheckOptions{LockPath: lockPath, Surface: writeSurface(t, snapSurface)}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("check --surface: %v", err)
			}
		})
	}
}

// TestNoSnapshot: --no-snapshot writes none and removes the one of the
// lock it replaces; a lock without a snapshot checks and diffs as before.
func TestNoSnapshot(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	sp := snapshot.Path(lockPath)
	pinSurface(t, writeSurface(t, snapSurface), lockPath, PinOptions{})
	if !snapshot.Exists(sp) {
		t.Fatal("no snapshot")
	}
	res := pinSurface(t, writeSurface(t, snapSurface), lockPath, PinOptions{NoSnapshot: true})
	if snapshot.Exists(sp) || res.Snapshot != "" || res.RemovedSnapshot != sp {
		t.Fatalf("--no-snapshot: exists %v, result %+v", snapshot.Exists(sp), res)
	}
	if _, err := Pin(context.Background(), PinOptions{Target: Target{Argv: []string{demo}}, LockPath: lockPath, NoSnapshot: true}); err != nil {
		t.Fatal(err)
	}
	if snapshot.Exists(sp) {
		t.Fatal("a captured pin with NoSnapshot wrote one")
	}
	c, err := Check(context.Background(), CheckOptions{LockPath: lockPath, Target: Target{Argv: []string{demo}}})
	if err != nil || len(c.Drift) != 0 || c.BaselineSurface != nil || c.CurrentSurface == nil {
		t.Fatalf("check without a snapshot: %+v, %v", c, err)
	}
	d, err := Diff(context.Background(), lockPath, lockPath)
	if err != nil || d.ASurface != nil || d.BSurface != nil {
		t.Fatalf("diff without a snapshot: %+v, %v", d, err)
	}
}

// TestSnapshotSecretScreen: a pin whose snapshot would hold a secret is
// refused, naming where (never the value), and writes neither file;
// AllowSecretInSnapshot writes it; a value handed to the server is
// refused alike.
func TestSnapshotSecretScreen(t *testing.T) {
	secret := "ghp_" + strings.Repeat("Zq9x", 9)
	text := strings.Replace(snapSurface, "Reads a file.", "Reads a file. Token: "+secret, 1)
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	_, err := Pin(context.Background(), PinOptions{Surface: writeSurface(t, text), LockPath: lockPath})
	var se *snapshot.SecretError
	if !errors.As(err, &se) || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "$.tools[0].description (") {
		t.Fatalf("pin: %v", err)
	}
	if _, serr := os.Stat(lockPath); serr == nil || snapshot.Exists(snapshot.Path(lockPath)) {
		t.Fatal("a refused pin wrote a file")
	}
	if ents, _ := os.ReadDir(filepath.Dir(lockPath)); len(ents) != 0 {
		t.Fatalf("a refused pin left %d files", len(ents))
	}
	pinSurface(t, writeSurface(t, text), lockPath, PinOptions{AllowSecretInSnapshot: true})
	if !snapshot.Exists(snapshot.Path(lockPath)) {
		t.Fatal("AllowSecretInSnapshot wrote no snapshot")
	}
	// A description is not in the lock: only the snapshot's screen sees
	// a handed value there.
	handed := mask.New()
	handed.Add("token-0123456789")
	other := filepath.Join(t.TempDir(), "warden.lock")
	_, err = Pin(context.Background(), PinOptions{Surface: writeSurface(t, strings.Replace(snapSurface, "Reads a file.", "Reads with token-0123456789.", 1)), LockPath: other, Handed: handed})
	if err == nil || !strings.Contains(err.Error(), "$.tools[0].description (a value handed to the server") || strings.Contains(err.Error(), "token-0123456789") {
		t.Fatalf("handed value: %v", err)
	}
}

// TestFailedPinKeepsBoth: a pin that fails after its snapshot is staged
// (the lock would store a secret) leaves the old lock and the old
// snapshot as they were, and no temporary file.
func TestFailedPinKeepsBoth(t *testing.T) {
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	pinSurface(t, writeSurface(t, snapSurface), lockPath, PinOptions{})
	oldLock, _ := os.ReadFile(lockPath)
	oldSnap, _ := os.ReadFile(snapshot.Path(lockPath))
	// The tool's name is stored verbatim in the lock: the lock screen
	// refuses it, after the snapshot screen (told to allow it) passed.
	bad := strings.Replace(snapSurface, `"name": "read_file"`, `"name": "read ghp_`+strings.Repeat("Zq9x", 9)+`"`, 1)
	for _, surfaceText := range []string{bad, strings.Replace(bad, `"command": "node", `, "", 1)} {
		_, err := Pin(context.Background(), PinOptions{Surface: writeSurface(t, surfaceText), LockPath: lockPath, AllowSecretInSnapshot: true})
		if err == nil {
			t.Fatal("the pin did not fail")
		}
		if l, _ := os.ReadFile(lockPath); !bytes.Equal(l, oldLock) {
			t.Fatal("a failed pin changed the lock")
		}
		if s, _ := os.ReadFile(snapshot.Path(lockPath)); !bytes.Equal(s, oldSnap) {
			t.Fatal("a failed pin changed the snapshot")
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Fatalf("a failed pin left %d files", len(ents))
		}
	}
}

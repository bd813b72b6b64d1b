package ops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
)

// TestCheckSurfaceTakesBuiltEntries checks that check --surface, which
// takes for each lock entry whose text is the one a surface tool renders
// that built tool (lock.Deferred), reports what comparing the lock read
// the plain way with the surface reports, refusals included, for a lock
// pinned from the surface, one pinned from a changed surface, one whose
// skeleton was edited with its digests recomputed to match (it must
// still drift: the entry the lock holds is not the one the surface
// gives), one tampered with, and a lock at schema level 3.
func TestCheckSurfaceTakesBuiltEntries(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	surf := write("s.json", diffSurface(nil))
	pin := func(name, surface string) string {
		l := filepath.Join(dir, name+".lock")
		if _, err := Pin(context.Background(), PinOptions{Surface: surface, LockPath: l, Version: "test", NoSnapshot: true}); err != nil {
			t.Fatal(err)
		}
		return l
	}
	base := pin("base", surf)
	baseText, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	changed := pin("changed", write("c.json", diffSurface(func(i int, s string) string {
		if i == 3 {
			return strings.Replace(s, `"content": {"type": "string"}`, `"content": {"type": "integer"}`, 1)
		}
		return s
	})))
	// The first tool's skeleton says its first property is required, and
	// the entry and overall digests say so too.
	edited := func() string {
		l, err := lock.ReadFile(base)
		if err != nil {
			t.Fatal(err)
		}
		sk := l.Tools[0].SchemaSkeleton.Text()
		l.Tools[0].SchemaSkeleton = jsonv.CompactRawString(strings.Replace(sk, `"required":false`, `"required":true`, 1))
		h := &canon.Hasher{}
		if l.Tools[0].EntryDigest, err = h.Hash(lock.ToolBody(l.Tools[0], l.SchemaVersion)); err != nil {
			t.Fatal(err)
		}
		if l.OverallDigest, err = lock.OverallDigest(l); err != nil {
			t.Fatal(err)
		}
		if err := lock.Verify(l); err != nil {
			t.Fatal(err)
		}
		return write("edited.lock", string(lock.Marshal(l)))
	}()
	// The first tool twice: as pinned, and with another input schema.
	repeated := func() string {
		l, err := lock.ReadFile(base)
		if err != nil {
			t.Fatal(err)
		}
		other := l.Tools[0]
		other.SchemaSkeleton = jsonv.CompactRawString(strings.Replace(other.SchemaSkeleton.Text(), `"required":false`, `"required":true`, 1))
		other.InputSchemaHash = "sha256:" + strings.Repeat("0", 64)
		h := &canon.Hasher{}
		if other.EntryDigest, err = h.Hash(lock.ToolBody(other, l.SchemaVersion)); err != nil {
			t.Fatal(err)
		}
		l.Tools = append(l.Tools[:1], append([]lock.Tool{other}, l.Tools[1:]...)...)
		if l.OverallDigest, err = lock.OverallDigest(l); err != nil {
			t.Fatal(err)
		}
		return write("repeated.lock", string(lock.Marshal(l)))
	}()
	tampered := write("tampered.lock", strings.Replace(string(baseText), `"required": false`, `"required": true`, 1))
	level3 := write("v3.lock", strings.Replace(string(baseText), `"schema_version": 4`, `"schema_version": 3`, 1))
	for name, lockPath := range map[string]string{"same": base, "changed": changed, "edited": edited, "tampered": tampered, "schema level 3": level3, "repeated name": repeated} {
		t.Run(name, func(t *testing.T) {
			res, err := Check(context.Background(), CheckOptions{Surface: surf, LockPath: lockPath})
			// What the plain read gives.
			want, wantErr := func() ([]drift.Item, error) {
				l, err := lock.ReadFile(lockPath)
				if err == nil {
					err = verifyLock(lockPath, l)
				}
				if err != nil {
					return nil, err
				}
				b, err := readSurface(context.Background(), surf, nil, 0, nil)
				if err != nil {
					return nil, err
				}
				return drift.Compare(l, b.lock), nil
			}()
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("err = %v, want %v", err, wantErr)
			}
			if err != nil {
				return
			}
			if !reflect.DeepEqual(res.Drift, want) {
				t.Fatalf("drift\n got %v\nwant %v", res.Drift, want)
			}
			if (name == "same") != (len(want) == 0) {
				t.Fatalf("%d drift items", len(want))
			}
			if name == "same" {
				requireTaken(t, res)
			}
			// Read again, the lock is the lock read the plain way.
			if err := res.Load(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(lockPath); err != nil || string(lock.Marshal(res.Baseline)) != string(got) {
				t.Fatalf("the lock loaded does not write back as its file (%v)", err)
			}
		})
	}
}

// TestCheckSurfaceTakesWhileLockRead checks a surface of 2,000 tools
// against its own lock: the first tools are built long before the lock
// has been cut into entries, and are looked up once it has (toolPool's
// later); every tool is taken, however the two reads interleave.
func TestCheckSurfaceTakesWhileLockRead(t *testing.T) {
	dir := t.TempDir()
	surf := filepath.Join(dir, "s.json")
	if err := os.WriteFile(surf, benchdata.Realistic(2000, 20, 10, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	l := filepath.Join(dir, "s.lock")
	if _, err := Pin(context.Background(), PinOptions{Surface: surf, LockPath: l, Version: "test", NoSnapshot: true}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		res, err := Check(context.Background(), CheckOptions{Surface: surf, LockPath: l})
		if err != nil || len(res.Drift) != 0 {
			t.Fatalf("check: %v, %d drift items", err, len(res.Drift))
		}
		requireTaken(t, res)
	}
}

// requireTaken fails unless every tool entry of a clean check's lock is the
// one built from the surface: left without its skeletons' text on both
// sides (lock.Builder.BuildToolFound), or, found only once the lock was
// read, the very text built.
func requireTaken(t *testing.T, res *CheckResult) {
	t.Helper()
	for i := range res.Baseline.Tools {
		b, c := &res.Baseline.Tools[i], &res.Current.Tools[i]
		switch {
		case !b.Whole() && !c.Whole():
		case b.Whole() && c.Whole() && b.SchemaSkeleton.Len() > 0 && unsafe.StringData(b.SchemaSkeleton.Text()) == unsafe.StringData(c.SchemaSkeleton.Text()):
		default:
			t.Fatalf("tool %d of the lock was read, not taken from the surface", i)
		}
	}
}

// TestCandidateAfterSurfaceCheck: the candidate lock of a check of a
// surface file, most of whose entries were taken from the lock without
// their skeletons' text, holds the tools a pin of that surface writes;
// and once the lock file has changed, the entries are not read from it.
func TestCandidateAfterSurfaceCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, text []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, text, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pin := func(surface, lockPath string) *lock.Lock {
		if _, err := Pin(context.Background(), PinOptions{Surface: surface, LockPath: lockPath, Version: "test", NoSnapshot: true}); err != nil {
			t.Fatal(err)
		}
		l, err := lock.ReadFile(lockPath)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	lockPath := filepath.Join(dir, "warden.lock")
	pin(write("s.json", benchdata.Realistic(300, 3, 2, nil)), lockPath)
	changed := write("c.json", benchdata.Realistic(300, 3, 2, func(i int) bool { return i%100 == 7 }))
	want := pin(changed, filepath.Join(dir, "want.lock"))

	res, err := Check(context.Background(), CheckOptions{Surface: changed, LockPath: lockPath})
	if err != nil || len(res.Drift) == 0 {
		t.Fatalf("check: %v, %d drift items", err, len(res.Drift))
	}
	unloaded := 0
	for i := range res.Current.Tools {
		if !res.Current.Tools[i].Whole() {
			unloaded++
		}
	}
	if unloaded == 0 {
		t.Fatal("no entry was taken without its skeletons: the case is not tested")
	}
	cand, err := Candidate(context.Background(), res, CandidateOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	got := *cand
	got.Pin, want.Pin = lock.Pin{}, lock.Pin{}
	if a, b := string(lock.Marshal(&got)), string(lock.Marshal(want)); a != b {
		t.Fatal("the candidate's entries differ from those a pin of the surface writes")
	}

	res, err = Check(context.Background(), CheckOptions{Surface: changed, LockPath: lockPath})
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	write("warden.lock", append(text, '\n'))
	if _, err := Candidate(context.Background(), res, CandidateOptions{Version: "test"}); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("candidate from a lock file changed since the check: %v", err)
	}
}

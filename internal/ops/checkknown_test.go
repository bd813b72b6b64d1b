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
	tampered := write("tampered.lock", strings.Replace(string(baseText), `"required": false`, `"required": true`, 1))
	level3 := write("v3.lock", strings.Replace(string(baseText), `"schema_version": 4`, `"schema_version": 3`, 1))
	for name, lockPath := range map[string]string{"same": base, "changed": changed, "edited": edited, "tampered": tampered, "schema level 3": level3} {
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
				for i := range res.Baseline.Tools {
					b, c := res.Baseline.Tools[i].SchemaSkeleton.Text(), res.Current.Tools[i].SchemaSkeleton.Text()
					if unsafe.StringData(b) != unsafe.StringData(c) {
						t.Fatalf("tool %d of the lock was read, not taken from the surface", i)
					}
				}
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
		for i := range res.Baseline.Tools {
			b, c := res.Baseline.Tools[i].SchemaSkeleton.Text(), res.Current.Tools[i].SchemaSkeleton.Text()
			if unsafe.StringData(b) != unsafe.StringData(c) {
				t.Fatalf("tool %d of the lock was read, not taken from the surface", i)
			}
		}
	}
}

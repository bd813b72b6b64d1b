package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// surfaceText is a surface of n tools; bad maps a tool index to the JSON
// that replaces that tool.
func surfaceText(n int, bad map[int]string) string {
	var b strings.Builder
	b.WriteString(`{"tools": [`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if s, ok := bad[i]; ok {
			b.WriteString(s)
			continue
		}
		// Unsorted names, secrets and capabilities, so that order,
		// findings and stored-secret checks all have work to do.
		fmt.Fprintf(&b, `{"name": "t%03d_write_file", "description": "writes sk-%024d", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "enum": ["a", "b%d"]}, "content": {"type": "string"}}, "required": ["path"]}}`, (i*37)%n, i, i)
	}
	b.WriteString(`], "resources": [{"uri": "file:///r"}], "prompts": [{"name": "p"}], "command": "node", "args": ["s.js"]}`)
	return b.String()
}

func writeSurface(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "surface.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadSurfaceParallelIsSequential: building tools on several
// goroutines gives the lock and findings of building them one by one, and
// reports the same error: the earliest failing tool's, before a later
// refusal.
func TestReadSurfaceParallelIsSequential(t *testing.T) {
	deep := `{"name": "deep", "inputSchema": ` + strings.Repeat(`{"a":`, 600) + `1` + strings.Repeat(`}`, 600) + `}`
	cases := []struct{ name, text, want string }{
		{"clean", surfaceText(300, nil), ""},
		{"tool fails", surfaceText(300, map[int]string{70: deep}), "surface: tools[70]: tool \"deep\": inputSchema"},
		{"tool fails before refusal", surfaceText(300, map[int]string{70: deep, 200: `7`}), "surface: tools[70]: tool \"deep\""},
		{"refusal before tool fails", surfaceText(300, map[int]string{20: `7`, 200: deep}), "surface: tools[20] is not an object"},
		{"duplicate after tool fails", surfaceText(300, map[int]string{50: deep, 60: `{"name": "t000_write_file"}`}), "surface: tools[50]: tool \"deep\""},
		{"JSON error after all", surfaceText(300, map[int]string{70: deep}) + "x", "not a valid surface document"},
		{"JSON error in a tool", surfaceText(300, map[int]string{120: `{"name": "x", "description": "\q"}`}), "not a valid surface document"},
		{"duplicate", surfaceText(300, map[int]string{60: `{"name": "t000_write_file"}`}), "appears more than once"},
		{"nested to the limit", surfaceText(300, map[int]string{9: nested(9997)}), ""},
		{"nested past the limit", surfaceText(300, map[int]string{9: nested(9998)}), "nesting deeper than 10000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSurface(t, tc.text)
			one, err1 := readSurfaceOn(context.Background(), path, nil, 0, 1, nil, nil, false)
			if tc.want == "" && (err1 != nil || len(one.lock.Tools) != 300 || len(one.findings) == 0) {
				t.Fatalf("clean surface: %v", err1)
			}
			if tc.want != "" && (err1 == nil || !strings.Contains(err1.Error(), tc.want)) {
				t.Fatalf("error %v, want %q", err1, tc.want)
			}
			for _, n := range []int{2, 5} {
				many, errN := readSurfaceOn(context.Background(), path, nil, 0, n, nil, nil, false)
				if fmt.Sprint(err1) != fmt.Sprint(errN) {
					t.Fatalf("%d workers: error %v, one worker: %v", n, errN, err1)
				}
				// Tools cut out unparsed and decoded by the workers: the
				// same lock, or errRefused for whatever refusal.
				cut, errC := readSurfaceOn(context.Background(), path, nil, 0, n, nil, nil, true)
				if (err1 == nil) != (errC == nil) || err1 != nil && !errors.Is(errC, errRefused) {
					t.Fatalf("%d workers decoding: error %v, one worker: %v", n, errC, err1)
				}
				if err1 != nil {
					continue
				}
				for _, b := range []*built{many, cut} {
					if !bytes.Equal(lock.Marshal(one.lock), lock.Marshal(b.lock)) || fmt.Sprint(one.findings) != fmt.Sprint(b.findings) {
						t.Fatalf("%d workers build another lock or other findings", n)
					}
				}
			}
			// readSurface falls back to the plain read for the refusal.
			if _, err := readSurface(context.Background(), path, nil, 0, nil); fmt.Sprint(err) != fmt.Sprint(err1) {
				t.Fatalf("readSurface: error %v, want %v", err, err1)
			}
		})
	}
}

// nested is a tool with an unknown member of n nested arrays, the
// innermost holding 1: as a surface's tools item, its 1 sits 3+n deep.
func nested(n int) string {
	return `{"name": "nested", "x": ` + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + `}`
}

// TestPinSurfaceRefusesStoredSecret: a surface whose stored strings hold
// a secret is refused as a capture's would be.
func TestPinSurfaceRefusesStoredSecret(t *testing.T) {
	text := `{"command": "node", "args": ["s.js"], "tools": [{"name": "t", "inputSchema": {"properties": {"k": {"enum": ["ghp_` + strings.Repeat("a", 36) + `"]}}}}]}`
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	_, err := Pin(context.Background(), PinOptions{Surface: writeSurface(t, text), LockPath: lockPath})
	var se *StoredSecretError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "$.tools[0].schema_skeleton.props.k.enum[0]") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(lockPath); err == nil {
		t.Fatal("a lock was written")
	}
}

// TestReadSurfaceCancelled: a cancelled context reads nothing.
func TestReadSurfaceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readSurface(ctx, writeSurface(t, surfaceText(10, nil)), nil, 0, nil); !errors.Is(err, ErrCancelled) {
		t.Fatalf("err = %v", err)
	}
}

// TestReadSurfaceMatchesBuild: a surface file read entry by entry, and a
// captured surface built by buildCaptured, make the lock and findings of
// lock.Build and findings.Scan.
func TestReadSurfaceMatchesBuild(t *testing.T) {
	text := surfaceText(120, map[int]string{7: `{"name": "shell_exec", "inputSchema": 5}`, 9: `{"name": "run", "inputSchema": {"properties": {"command": {"type": "string", "default": "AKIA` + strings.Repeat("Q", 16) + `"}}}}`})
	got, err := readSurfaceOn(context.Background(), writeSurface(t, text), nil, 0, 3, nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonv.Parse([]byte(text), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	want := &built{lock: l, findings: findings.Scan(s)}
	captured, err := buildCaptured(s, "build")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lock.Marshal(captured.lock), lock.Marshal(want.lock)) || fmt.Sprint(captured.findings) != fmt.Sprint(want.findings) {
		t.Error("buildCaptured differs from lock.Build and findings.Scan")
	}
	if !bytes.Equal(lock.Marshal(got.lock), lock.Marshal(want.lock)) {
		t.Error("the lock differs from lock.Build's")
	}
	if fmt.Sprint(got.findings) != fmt.Sprint(want.findings) || len(got.findings) == 0 {
		t.Errorf("findings differ:\n%v\n%v", got.findings, want.findings)
	}
}

// TestDiffReadsBothReportsAFirst: diff reads its two locks at once; when
// both are refused, A's refusal is the one reported, as when it read A
// first.
func TestDiffReadsBothReportsAFirst(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.lock")
	if _, err := Pin(context.Background(), PinOptions{Surface: writeSurface(t, surfaceText(5, nil)), LockPath: good, NoSnapshot: true}); err != nil {
		t.Fatal(err)
	}
	badA, badB := filepath.Join(dir, "a.lock"), filepath.Join(dir, "b.lock")
	for _, p := range []string{badA, badB} {
		if err := os.WriteFile(p, []byte(`{"schema_version": 4}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ a, b, want string }{
		{badA, badB, badA},
		{good, badB, badB},
		{badA, good, badA},
	} {
		_, err := Diff(context.Background(), tc.a, tc.b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Diff(%s, %s): err = %v, want it to name %s", filepath.Base(tc.a), filepath.Base(tc.b), err, filepath.Base(tc.want))
		}
	}
	if res, err := Diff(context.Background(), good, good); err != nil || len(res.Drift) != 0 {
		t.Fatalf("%v, %v", res, err)
	}
}

// TestPinSurfaceStreamedMatchesMarshal: pin --surface writes its lock while
// it reads the surface; the file holds exactly lock.Marshal of the lock it
// returns, whether the tools come sorted after the server (written in
// place) or unsorted before it (written again around them at the end).
func TestPinSurfaceStreamedMatchesMarshal(t *testing.T) {
	var sorted strings.Builder
	sorted.WriteString(`{"command": "npx", "args": ["-y", "pkg"], "tools": [`)
	for i := 0; i < 60; i++ {
		if i > 0 {
			sorted.WriteString(", ")
		}
		fmt.Fprintf(&sorted, `{"name": "t%03d", "description": "d%d", "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "maxLength": %d}}}}`, i, i, i)
	}
	sorted.WriteString(`]}`)
	for name, text := range map[string]string{
		"sorted, server first":  sorted.String(),
		"unsorted, server last": surfaceText(90, nil),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			lockPath := filepath.Join(dir, "warden.lock")
			res, err := Pin(context.Background(), PinOptions{Surface: writeSurface(t, text), LockPath: lockPath, Version: "test", AllowSecretInLock: true, NoSnapshot: true})
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(lockPath)
			if err != nil {
				t.Fatal(err)
			}
			// The returned lock's tools are cut down to name and digest:
			// the file must be the lock built from the surface in full.
			b, err := readSurface(context.Background(), writeSurface(t, text), nil, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			full := *res.Lock
			full.Tools = b.lock.Tools
			if want := lock.Marshal(&full); !bytes.Equal(got, want) {
				t.Errorf("the file differs from lock.Marshal of the pinned lock (%d and %d bytes)", len(got), len(want))
			}
			for i, tool := range res.Lock.Tools {
				if tool.Name != full.Tools[i].Name || tool.EntryDigest != full.Tools[i].EntryDigest {
					t.Errorf("tools[%d] is %s %s, want %s %s", i, tool.Name, tool.EntryDigest, full.Tools[i].Name, full.Tools[i].EntryDigest)
				}
			}
			if len(res.Lock.Tools) < 60 {
				t.Errorf("%d tools", len(res.Lock.Tools))
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("files left beside the lock: %v", entries)
			}
		})
	}
}

// TestPinSurfaceFailureKeepsLock: a pin --surface that fails after it has
// started writing (a tool that cannot be built, a refusal of the document
// after the tools) leaves the existing lock as it was and nothing beside it.
func TestPinSurfaceFailureKeepsLock(t *testing.T) {
	for name, text := range map[string]string{
		"a tool fails":       surfaceText(50, map[int]string{40: `{"name": "bad", "annotations": 5}`}),
		"bad JSON after":     strings.TrimSuffix(surfaceText(50, nil), "}") + `, "x": }`,
		"no server":          strings.Replace(surfaceText(50, nil), `"command": "node", "args": ["s.js"]`, `"y": 1`, 1),
		"stored secret":      strings.Replace(surfaceText(50, nil), `"enum": ["a", `, `"enum": ["ghp_`+strings.Repeat("a", 36)+`", `, 1),
		"duplicate tool":     surfaceText(50, map[int]string{30: `{"name": "t000_write_file"}`}),
		"server is not text": strings.Replace(surfaceText(50, nil), `"command": "node"`, `"command": 5`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			lockPath := filepath.Join(dir, "warden.lock")
			old := []byte("old\n")
			if err := os.WriteFile(lockPath, old, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Pin(context.Background(), PinOptions{Surface: writeSurface(t, text), LockPath: lockPath}); err == nil {
				t.Fatal("pinned")
			}
			if got, _ := os.ReadFile(lockPath); !bytes.Equal(got, old) {
				t.Errorf("the lock was replaced")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("files left beside the lock: %v", entries)
			}
		})
	}
}

// TestPinSurfaceScreensLikeStoredSecrets: the stored-secret check of a
// streamed pin, which walks only the tools screened where they were built,
// finds what storedSecrets finds walking the whole lock.
func TestPinSurfaceScreensLikeStoredSecrets(t *testing.T) {
	token := "ghp_" + strings.Repeat("b", 36)
	text := surfaceText(40, map[int]string{
		3:  `{"name": "` + token + `"}`,
		17: `{"name": "m", "inputSchema": {"properties": {"k": {"enum": ["x", "` + token + `"]}}}}`,
		29: `{"name": "a", "outputSchema": {"properties": {"o": {"enum": ["` + token + `"]}}}}`,
	})
	path := writeSurface(t, text)
	_, err := Pin(context.Background(), PinOptions{Surface: path, LockPath: filepath.Join(t.TempDir(), "warden.lock")})
	var got *StoredSecretError
	if !errors.As(err, &got) {
		t.Fatalf("err = %v", err)
	}
	b, err := readSurface(context.Background(), path, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want *StoredSecretError
	if !errors.As(storedSecrets(b.lock), &want) || len(want.Where) < 3 {
		t.Fatalf("storedSecrets found %v", want)
	}
	if fmt.Sprint(got.Where) != fmt.Sprint(want.Where) {
		t.Errorf("streamed pin found\n%v\nstoredSecrets finds\n%v", got.Where, want.Where)
	}
}

// TestPaceGC: a streamed pin or a lazy diff paces collection by a memory
// limit and puts the collector back as it was; settings made by the user
// are kept.
func TestPaceGC(t *testing.T) {
	if pct := debug.SetGCPercent(100); pct != 100 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		debug.SetGCPercent(pct)
		t.Skip("GOGC or GOMEMLIMIT is set for this process")
	}
	restore := paceGC(streamMemoryLimit)
	pct, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
	restore()
	// Again, after someone else set the collector: nothing more.
	debug.SetGCPercent(150)
	restore()
	if got := debug.SetGCPercent(100); got != 150 {
		t.Errorf("a second restore set GOGC to %d", got)
	}
	if pct != -1 || limit != streamMemoryLimit {
		t.Errorf("while streaming: GOGC %d, limit %d; want off and %d", pct, limit, streamMemoryLimit)
	}
	if pct, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); pct != 100 || limit != math.MaxInt64 {
		t.Errorf("after: GOGC %d, limit %d; want 100 and none", pct, limit)
	}

	debug.SetGCPercent(300)
	defer debug.SetGCPercent(100)
	paceGC(streamMemoryLimit)()
	if pct, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); pct != 300 || limit != math.MaxInt64 {
		t.Errorf("a user's GOGC=300 became %d, limit %d", pct, limit)
	}
}

// TestCheckSurfaceLockRefusalFirst: check --surface reads the surface while
// it reads the lock, but a refused lock is still what is reported, before
// anything the surface would be refused for.
func TestCheckSurfaceLockRefusalFirst(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.lock")
	goodSurface := writeSurface(t, surfaceText(20, nil))
	if _, err := Pin(context.Background(), PinOptions{Surface: goodSurface, LockPath: good, AllowSecretInLock: true, NoSnapshot: true}); err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(dir, "tampered.lock")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tampered, bytes.Replace(data, []byte(`"fs-write"`), []byte(`"network"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	badSurface := writeSurface(t, `{"tools": [}`)
	for _, tc := range []struct {
		lock, surface, want string
	}{
		{filepath.Join(dir, "absent.lock"), badSurface, "absent.lock"},
		{tampered, badSurface, "does not verify"},
		{good, badSurface, "not a valid surface document"},
	} {
		_, err := Check(context.Background(), CheckOptions{LockPath: tc.lock, Surface: tc.surface})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("check %s with %s: %v, want an error naming %q", filepath.Base(tc.lock), filepath.Base(tc.surface), err, tc.want)
		}
	}
	res, err := Check(context.Background(), CheckOptions{LockPath: good, Surface: goodSurface})
	if err != nil || len(res.Drift) != 0 {
		t.Fatalf("clean check: %v, %d drift items", err, len(res.Drift))
	}
}

// TestReadSurfaceHugeTool: a tool too long to be cut out whole
// (surface.MaxRawTool) makes the file be read the plain way, to the same
// lock.
func TestReadSurfaceHugeTool(t *testing.T) {
	huge := `{"name": "huge", "description": "` + strings.Repeat("long words ", surface.MaxRawTool/10) + `"}`
	path := writeSurface(t, surfaceText(40, map[int]string{20: huge}))
	if _, err := readSurfaceOn(context.Background(), path, nil, 0, 2, nil, nil, true); !errors.Is(err, errRefused) {
		t.Fatalf("cut out: %v, want errRefused", err)
	}
	got, err := readSurface(context.Background(), path, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := readSurfaceOn(context.Background(), path, nil, 0, 1, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lock.Marshal(got.lock), lock.Marshal(want.lock)) {
		t.Error("the lock differs from the plain read's")
	}
}

// TestPacedMemoryLimit: the limit is twice the share of the files' bytes
// (a file that cannot be read counts nothing), and never below the floor.
func TestPacedMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small"), filepath.Join(dir, "large")
	for path, size := range map[string]int64{small: 1 << 20, large: 300 << 20} {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		// Sparse: the size is all that is looked at.
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	for _, tc := range []struct {
		share float64
		paths []string
		want  int64
	}{
		{0.4, []string{small}, minPacedMemoryLimit},
		{0.4, []string{small, filepath.Join(dir, "missing")}, minPacedMemoryLimit},
		{0.4, []string{large}, 240 << 20},
		{0.25, []string{large, small}, 301 << 19},
	} {
		if got := pacedMemoryLimit(tc.share, tc.paths...); got != tc.want {
			t.Errorf("pacedMemoryLimit(%v, %v) = %d, want %d", tc.share, tc.paths, got, tc.want)
		}
	}
}

// TestPinMemoryLimit: a streamed pin on one core paces collection at
// streamMemoryLimit; with a core for a prebuilder, the limit also holds
// twice what that may keep.
func TestPinMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		workers int
		want    int64
	}{
		{1, 32 << 20},
		{2, 40 << 20},
		{8, 40 << 20},
	} {
		if got := pinMemoryLimit(tc.workers); got != tc.want {
			t.Errorf("pinMemoryLimit(%d) = %d, want %d", tc.workers, got, tc.want)
		}
	}
}

package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/testserver"
)

// peakHeap runs f and returns the peak growth of the heap in use while it
// ran, sampled every millisecond. The collector runs at 10% growth
// meanwhile: the heap in use then follows what f keeps, not how far the
// collector's pacing let garbage pile up, which depends on how loaded the
// machine is.
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > peak.Load() {
				peak.Store(m.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return peak.Load()
}

// TestReadSurfaceHostile reads surface files built to cost memory: a
// large member nobody reads (at the top, inside a tool, a resource, a
// prompt), a tool name that is a long list, a million minimal tools. A
// file is read both ways (cut out on every core, and one entry at a time
// as standard input is), and either reads (unknown members are ignored)
// or is refused with one line, at a few times its size, not the forty
// times a tree of small values costs (1.1 GB for 20 MB).
func TestReadSurfaceHostile(t *testing.T) {
	zeros := "[" + strings.Repeat("0,", 3<<20) + "0]"
	var keys strings.Builder
	keys.WriteByte('{')
	for i := 0; keys.Len() < 6<<20; i++ {
		fmt.Fprintf(&keys, `"%x":0,`, i)
	}
	keys.WriteString(`"":0}`)
	tool := `{"name": "t", "inputSchema": {"type": "object"}}`
	var minimal, uris strings.Builder
	for i := range 600_000 {
		fmt.Fprintf(&minimal, `{"name":"%x"},`, i)
		fmt.Fprintf(&uris, `{"uri":"%x"},`, i)
	}
	tests := []struct {
		name, text, want string
	}{
		{"top zeros", `{"command": "node", "zz": ` + zeros + `, "tools": [` + tool + `]}`, ""},
		{"top keys", `{"command": "node", "zz": ` + keys.String() + `, "tools": [` + tool + `]}`, ""},
		{"tool zeros", `{"command": "node", "tools": [{"name": "t", "zz": ` + zeros + `}]}`, ""},
		{"tool keys", `{"command": "node", "tools": [{"zz": ` + keys.String() + `, "name": "t"}]}`, ""},
		{"resource zeros", `{"command": "node", "resources": [{"uri": "u", "zz": ` + zeros + `}]}`, ""},
		{"prompt zeros", `{"command": "node", "prompts": [{"name": "p", "zz": ` + zeros + `}]}`, ""},
		{"name a list", `{"command": "node", "tools": [{"name": ` + zeros + `}]}`, "tools[0]: tool name is missing or not a string"},
		{"schema of small values", `{"command": "node", "tools": [{"name": "t", "inputSchema": {"enum": ` + zeros + `}}]}`, "$.tools[0].inputSchema holds more than 131072 JSON values"},
		{"many tools", `{"command": "node", "tools": [` + minimal.String() + `{"name":""}]}`, "surface: more than 10000 tools (the limit is --max-items)"},
		{"many resources", `{"command": "node", "resources": [` + uris.String() + `{"uri":""}]}`, "surface: more than 10000 resources (the limit is --max-items)"},
	}
	for _, tc := range tests {
		path := writeSurface(t, tc.text)
		for _, stdin := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stdin=%v", tc.name, stdin), func(t *testing.T) {
				var err error
				peak := peakHeap(func() {
					if stdin {
						_, err = readSurface(context.Background(), "-", strings.NewReader(tc.text), 0, nil)
					} else {
						_, err = readSurface(context.Background(), path, nil, 0, nil)
					}
				})
				switch {
				case tc.want == "" && err != nil:
					t.Fatalf("refused: %v", err)
				case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
					t.Fatalf("error = %v, want one line with %q", err, tc.want)
				}
				const slack = 8 << 20
				if size := uint64(len(tc.text)); peak > 10*size+slack {
					t.Fatalf("reading %d bytes peaked at %d bytes of heap (%.1f times the file)", size, peak, float64(peak)/float64(size))
				}
				t.Logf("%d bytes: peak heap %.1f times the file", len(tc.text), float64(peak)/float64(len(tc.text)))
			})
		}
	}
}

// TestReadSurfaceMaxItems: the item bound is the caller's, as a
// capture's --max-items.
func TestReadSurfaceMaxItems(t *testing.T) {
	path := writeSurface(t, `{"command": "node", "prompts": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}`)
	if _, err := readSurface(context.Background(), path, nil, 3, nil); err != nil {
		t.Fatal(err)
	}
	_, err := readSurface(context.Background(), path, nil, 2, nil)
	if want := "surface: more than 2 prompts (the limit is --max-items)"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

// TestSignalStopsBigLockRead runs the real warden on a lock that takes
// seconds to read (a member of millions of keys, each remembered for the
// duplicate check) and sends SIGINT once it is reading: warden exits 2
// with its cancelled line well before the read would have finished.
// Before, the signal was acted on only after the whole parse.
func TestSignalStopsBigLockRead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX")
	}
	if testing.Short() {
		t.Skip("builds warden and reads a 60 MB lock")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "warden")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = testserver.RepoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	surfacePath := filepath.Join(dir, "surface.json")
	if err := os.WriteFile(surfacePath, []byte(`{"command": "node", "tools": [{"name": "t"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(dir, "warden.lock")
	run := exec.Command(bin, "pin", "--lock", lockPath, "--surface", surfacePath)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("pin: %v\n%s", err, out)
	}
	base, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	var keys bytes.Buffer
	keys.WriteString(`{"zz": {`)
	for i := 0; keys.Len() < 60<<20; i++ {
		fmt.Fprintf(&keys, `"%x":0,`, i)
	}
	keys.WriteString(`"":0}, `)
	keys.Write(base[1:])
	if err := os.WriteFile(lockPath, keys.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(signal time.Duration) (code int, stderr string, took time.Duration) {
		cmd := exec.Command(bin, "check", "--lock", lockPath, "--surface", surfacePath)
		var errBuf bytes.Buffer
		cmd.Stderr = &errBuf
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if signal > 0 {
			time.AfterFunc(signal, func() { cmd.Process.Signal(syscall.SIGINT) })
		}
		err := cmd.Wait()
		took = time.Since(start)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, errBuf.String(), took
	}
	code, stderr, full := check(0)
	if code != 0 {
		t.Fatalf("the lock does not check: exit %d, %s", code, stderr)
	}
	if full < time.Second {
		t.Skipf("the whole read took %v, too little to tell a prompt stop from the end", full)
	}
	after := full / 10
	code, stderr, took := check(after)
	if code != 2 || stderr != "error: cancelled: SIGINT received\n" {
		t.Fatalf("exit %d, stderr %q; want 2 and one cancelled line", code, stderr)
	}
	if took-after > full/3 {
		t.Fatalf("exited %v after SIGINT; the whole read takes %v", took-after, full)
	}
	t.Logf("whole read %v; exited %v after SIGINT", full, took-after)
}

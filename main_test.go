package main

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/testserver"
)

// TestWatchSignals: the first signal cancels with the signal as the cause
// and does not exit; the second exits at once with 128+signal.
func TestWatchSignals(t *testing.T) {
	ch := make(chan os.Signal, 2)
	done := make(chan struct{})
	defer close(done)
	ctx, cancel := context.WithCancelCause(context.Background())
	exited := make(chan int, 1)
	var stderr syncBuffer
	go watchSignals(ch, done, cancel, &stderr, func(code int) { exited <- code })

	ch <- os.Interrupt
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first signal did not cancel")
	}
	if cause := context.Cause(ctx); cause == nil || cause.Error() != "SIGINT received" {
		t.Fatalf("cause = %v", cause)
	}
	select {
	case code := <-exited:
		t.Fatalf("the first signal exited (%d)", code)
	case <-time.After(50 * time.Millisecond):
	}
	ch <- syscall.SIGTERM
	select {
	case code := <-exited:
		if code != 143 {
			t.Fatalf("exit code %d, want 143", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not exit")
	}
	if got := stderr.String(); got != "error: SIGTERM received again; exiting at once\n" {
		t.Fatalf("stderr %q", got)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// buildWarden builds this command into a temporary directory, static as
// the release and the README build it.
func buildWarden(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX")
	}
	bin := filepath.Join(t.TempDir(), "warden")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBuiltWardenIsStatic: the warden the tests run is the static build
// the release ships and the README gives, whatever CGO_ENABLED the
// environment sets: its build settings record CGO_ENABLED=0. (A cgo build
// resets a forked child's signal handlers through libc, the path on which
// concurrent starts crashed with "morestack on g0".)
func TestBuiltWardenIsStatic(t *testing.T) {
	t.Setenv("CGO_ENABLED", "1")
	bin := buildWarden(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	cgo := ""
	for _, s := range info.Settings {
		if s.Key == "CGO_ENABLED" {
			cgo = s.Value
		}
	}
	if cgo != "0" {
		t.Errorf("the test harness built warden with CGO_ENABLED=%q, want 0", cgo)
	}
}

// exitCode is the exit code cmd.Wait reported: -1 for death by a signal
// or a failure to wait.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// wait waits for cmd up to d and returns its exit code, or fails.
func wait(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitCode(err)
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("warden did not exit within %s", d)
		return -1
	}
}

// TestSignalAfterCaptureWritesNoLock sends SIGTERM to a real warden pin
// once the server has answered what the capture asks (lingerserver, which
// declares tools only, signals its parent after its tool list). Before,
// pin went on to write the lock and exit 0; now it exits 2 with one
// "cancelled" line and writes nothing.
func TestSignalAfterCaptureWritesNoLock(t *testing.T) {
	bin := buildWarden(t)
	// The server signals warden once it has answered the tool list: the
	// capture is in (or is being read), and nothing may be written after.
	// warden ends a server as soon as the answers are in, so the signal
	// must come from inside the exchange; the lists still to come are
	// held back long enough for the signal to be handled on a loaded
	// machine (which once let the lock be written first).
	linger := testserver.Build(t, "testdata/servers/lingerserver")
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "pin", "--lock", lockPath, "--", linger, "-term-parent-after", "tools/list", "-term-grace", "500ms")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	code := wait(t, cmd, time.Minute)
	if code != 2 || stdout.Len() != 0 || stderr.String() != "error: cancelled: SIGTERM received\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and one cancelled line", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(lockPath); err == nil {
		t.Fatal("pin wrote the lock after SIGTERM")
	}
	if entries, _ := os.ReadDir(filepath.Dir(lockPath)); len(entries) != 0 {
		t.Fatalf("leftovers: %v", entries)
	}
}

// TestSecondSignalEndsProcess holds a real warden where the first signal
// cannot stop it (the Action blocked opening a GITHUB_OUTPUT that is a FIFO
// nobody reads): the first SIGINT leaves it running, the second ends it at
// once with exit 130. Before, every further signal was swallowed.
func TestSecondSignalEndsProcess(t *testing.T) {
	bin := buildWarden(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "output")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd := exec.Command(bin, "action")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GITHUB_WORKSPACE=" + dir, "GITHUB_OUTPUT=" + fifo, "INPUT_SERVER_CMD=a|b"}
	cmd.Dir = dir
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- exitCode(cmd.Wait()) }()
	defer cmd.Process.Kill()
	// Let it reach the blocking open (it fails on its input at once).
	time.Sleep(time.Second)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		t.Fatalf("the first SIGINT ended the process (exit %d, stderr %q); it should only cancel", code, stderr.String())
	case <-time.After(500 * time.Millisecond):
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 130 || !strings.Contains(stderr.String(), "error: SIGINT received again; exiting at once") {
			t.Fatalf("exit %d, stderr %q; want 130", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second SIGINT did not end the process")
	}
}

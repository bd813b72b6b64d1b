//go:build linux

package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readPid reads the PID a fixture wrote to a pidfile.
func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pidfile: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestCaptureKillsSetsidChild: a server's child in a session of its own is
// outside the process group but inside the process tree, and must not
// outlive the capture.
func TestCaptureKillsSetsidChild(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	mustCapture(t, Options{Argv: raw(t, "setsid-child", "-pidfile", pidfile)})
	pid := readPid(t, pidfile)
	if !eventually(func() bool { return processGone(pid) }) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("setsid child %d outlived the capture", pid)
	}
}

// reaperHelperEnv carries the argv for TestReaperHelperProcess.
const reaperHelperEnv = "WARDEN_TEST_REAPER_ARGV"

// TestReaperHelperProcess is not a test: TestCaptureReaperEndsDaemon runs
// the test binary as this function, a process of its own that may become a
// subreaper (which a test binary sharing its children with other tests must
// not).
func TestReaperHelperProcess(t *testing.T) {
	raw := os.Getenv(reaperHelperEnv)
	if raw == "" {
		t.Skip("helper process for TestCaptureReaperEndsDaemon")
	}
	var argv []string
	if err := json.Unmarshal([]byte(raw), &argv); err != nil {
		os.Exit(3)
	}
	var r *Reaper
	if os.Getenv("WARDEN_TEST_REAPER_OFF") == "" {
		r = NewReaper()
		if !r.Enabled() {
			os.Exit(4)
		}
	}
	parallel, rounds := 1, 1
	if n, err := strconv.Atoi(os.Getenv(reaperParallelEnv)); err == nil {
		parallel, rounds = n, 3
	}
	for range rounds {
		errs := make(chan error, parallel)
		for range parallel {
			go func() {
				_, err := Capture(context.Background(), Options{Argv: argv, Reaper: r, Timeout: 20 * time.Second})
				errs <- err
			}()
		}
		failed := false
		for range parallel {
			if err := <-errs; err != nil {
				fmt.Fprintln(os.Stderr, err)
				failed = true
			}
		}
		if failed {
			os.Exit(5)
		}
	}
	os.Exit(0)
}

// reaperParallelEnv, when set to N, makes TestReaperHelperProcess run N
// captures at once, three times over.
const reaperParallelEnv = "WARDEN_TEST_REAPER_PARALLEL"

// TestCaptureReaperParallelStarts: many captures at once under one Reaper,
// as pin --config --jobs runs them. Before, a capture that ended swept a
// server another capture had just forked and not yet registered as a
// leader, and killed it as an orphan ("broken pipe; server exited
// (signal: killed)" on about half the servers of a 60-server config);
// now starts and sweeps take the same lock, and every capture succeeds.
func TestCaptureReaperParallelStarts(t *testing.T) {
	t.Parallel()
	argv, err := json.Marshal(raw(t, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestReaperHelperProcess$")
	cmd.Env = append(os.Environ(), reaperHelperEnv+"="+string(argv), reaperParallelEnv+"=48")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("48 captures at once under one Reaper: %v\n%s", err, out)
	}
}

// TestStartRegistersUnderStartLock: a stdio server is started and
// registered as a Reaper leader with startMu held, the lock a sweep takes
// too, so no sweep sees the server between its fork and its registration,
// and no two servers are forked at once. Not parallel: another test's
// start would hold the lock and hide a start that does not.
func TestStartRegistersUnderStartLock(t *testing.T) {
	r := &Reaper{leaders: map[int]int{}} // not a subreaper: the test binary shares its children
	called := false
	mustCapture(t, Options{Argv: raw(t, "clean"), Reaper: r, started: func(pid int) {
		called = true
		if startMu.TryLock() {
			startMu.Unlock()
			t.Error("the server was registered without startMu held")
		}
		r.mu.Lock()
		n := r.leaders[pid]
		r.mu.Unlock()
		if n != 1 {
			t.Errorf("leader %d registered %d times when the start returned, want 1", pid, n)
		}
	}})
	if !called {
		t.Fatal("the started hook was not called")
	}
	if len(r.leaders) != 0 {
		t.Errorf("leaders left after the capture: %v", r.leaders)
	}
}

// TestCaptureReaperEndsDaemon: a server that double-forks leaves a daemon
// that is nobody's descendant by the time the capture ends. As a child
// subreaper warden inherits it and ends it; without the Reaper it survives,
// which shows the test can fail.
func TestCaptureReaperEndsDaemon(t *testing.T) {
	t.Parallel()
	for _, withReaper := range []bool{true, false} {
		pidfile := filepath.Join(t.TempDir(), "daemon.pid")
		argv, err := json.Marshal(raw(t, "double-fork", "-pidfile", pidfile))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run", "^TestReaperHelperProcess$")
		cmd.Env = append(os.Environ(), reaperHelperEnv+"="+string(argv))
		if !withReaper {
			cmd.Env = append(cmd.Env, "WARDEN_TEST_REAPER_OFF=1")
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("helper process (reaper %v): %v\n%s", withReaper, err, out)
		}
		pid := readPid(t, pidfile)
		gone := eventually(func() bool { return processGone(pid) })
		if !gone {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if gone != withReaper {
			t.Errorf("reaper %v: daemon %d gone = %v", withReaper, pid, gone)
		}
	}
}

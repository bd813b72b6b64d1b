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
)

// demoLock copies the committed demo lock into a temporary directory.
func demoLock(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "warden.lock")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCancelledBeforeLaunchOrWrite runs every operation under a context
// cancelled the way main cancels it on SIGTERM. None launches the server
// (a command that would leave a marker) or writes a file, and each returns
// an error wrapping ErrCancelled that names the cause. Before, check and
// pin launched the server anyway and approve rewrote the lock.
func TestCancelledBeforeLaunchOrWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the marker server is a POSIX shell command")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "spawned")
	server := Target{Argv: []string{"sh", "-c", "touch " + marker}}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("SIGTERM received"))

	lockPath := demoLock(t)
	before, _ := os.ReadFile(lockPath)
	newLock := filepath.Join(dir, "new.lock")
	tests := []struct {
		name string
		op   func() error
	}{
		{"check", func() error {
			_, err := Check(ctx, CheckOptions{Target: server, LockPath: lockPath})
			return err
		}},
		{"pin", func() error {
			_, err := Pin(ctx, PinOptions{Target: server, LockPath: newLock})
			return err
		}},
		{"capture", func() error {
			_, err := Capture(ctx, server)
			return err
		}},
		{"approve", func() error {
			_, err := Rotate(ctx, RotateOptions{LockPath: lockPath, Approver: "mallory"})
			return err
		}},
		{"diff", func() error {
			_, err := Diff(ctx, lockPath, lockPath)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op()
			if !errors.Is(err, ErrCancelled) || err.Error() != "cancelled: SIGTERM received" {
				t.Fatalf("error = %v, want %q", err, "cancelled: SIGTERM received")
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the server was launched after cancellation")
			}
			if _, err := os.Stat(newLock); err == nil {
				t.Fatal("a lock was written after cancellation")
			}
			if after, _ := os.ReadFile(lockPath); !bytes.Equal(after, before) {
				t.Fatal("the lock was rewritten after cancellation")
			}
		})
	}
}

func TestCancelledNamesTheCause(t *testing.T) {
	if err := Cancelled(context.Background()); err != nil {
		t.Fatalf("live context: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	if err := Cancelled(ctx); !errors.Is(err, ErrCancelled) || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("expired context: %v", err)
	}
}

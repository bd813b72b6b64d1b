package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunCancelledWritesNothing runs the Action under a context cancelled
// as main cancels it on SIGTERM (a cancelled workflow run): it exits 2 with
// a "cancelled" line, launches nothing and writes nothing — no lock, no
// SARIF, no summary, no outputs.
func TestRunCancelledWritesNothing(t *testing.T) {
	demoLock, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{ModeCheck, ModePin} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t)
			marker := filepath.Join(h.ws, "spawned")
			script := "#!/bin/sh\ntouch " + marker + "\n"
			if err := os.WriteFile(filepath.Join(h.ws, "server"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			if mode == ModeCheck {
				if err := os.WriteFile(filepath.Join(h.ws, "warden.lock"), demoLock, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			h.input("server-cmd", "./server")
			h.input("mode", mode)
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errors.New("SIGTERM received"))
			var stdout, stderr strings.Builder
			code := Run(ctx, func(k string) string { return h.vars[k] }, &stdout, &stderr, "0.0.0-test")
			if code != ExitError || !strings.Contains(stderr.String(), "error: cancelled: SIGTERM received") {
				t.Fatalf("exit %d, stderr %q", code, stderr.String())
			}
			for _, p := range []string{h.outputPath, h.summaryPath} {
				if data, _ := os.ReadFile(p); len(data) != 0 {
					t.Errorf("%s written after cancellation:\n%s", filepath.Base(p), data)
				}
			}
			for _, name := range []string{"spawned", "warden.sarif"} {
				if _, err := os.Stat(filepath.Join(h.ws, name)); err == nil {
					t.Errorf("%s exists after cancellation", name)
				}
			}
			if mode == ModePin {
				if _, err := os.Stat(filepath.Join(h.ws, "warden.lock")); err == nil {
					t.Error("pin wrote a lock after cancellation")
				}
			}
		})
	}
}

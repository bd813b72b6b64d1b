// Package ops carries out warden's operations — pin, check, diff, approve —
// as functions that return structured results. The CLI (internal/cli) and the
// GitHub Action entrypoint (internal/action) are thin layers over it that
// differ only in how they take input and present output.
package ops

import (
	"context"
	"errors"
	"time"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

// Target says which server to capture and how.
type Target struct {
	// Argv is the stdio launch (command first); empty when URL is set.
	Argv []string
	// URL is the streamable HTTP endpoint; empty for stdio.
	URL string
	// Headers are extra HTTP headers as "Name: value"; a value written
	// "${NAME}" is read from the environment variable NAME.
	Headers []string
	// Env names variables passed to a stdio server beyond the allowlist:
	// "NAME" copies warden's own value, "NAME=VALUE" sets one.
	Env []string
	// Timeout bounds the whole capture (0 means 30 s).
	Timeout time.Duration
	// MaxPages bounds each list's cursor chain (0 means 256).
	MaxPages int
	// MaxMessageBytes bounds one JSON-RPC message (0 means 16 MiB).
	MaxMessageBytes int64
}

// PinOptions configure Pin.
type PinOptions struct {
	Target   Target
	LockPath string
	Approve  bool
	Approver string
	// Version is warden's version, written to the lock.
	Version string
	// Now is the clock (tests fix it); nil means time.Now.
	Now func() time.Time
}

// PinResult is what Pin wrote.
type PinResult struct {
	Lock     *lock.Lock
	Findings []lock.Finding
}

// CheckOptions configure Check.
type CheckOptions struct {
	Target   Target
	LockPath string
	Version  string
}

// CheckResult is the outcome of a check: the stored baseline, the lock built
// from the fresh capture, the drift between them and the current surface's
// static findings.
type CheckResult struct {
	Baseline *lock.Lock
	Current  *lock.Lock
	Drift    []drift.Item
	Findings []lock.Finding
}

// ErrNotImplemented marks operations still being built.
var ErrNotImplemented = errors.New("not implemented yet")

// Pin captures the target, builds a lock with embedded findings and writes it
// atomically to o.LockPath. A failed capture writes nothing.
func Pin(ctx context.Context, o PinOptions) (*PinResult, error) {
	return nil, ErrNotImplemented
}

// Check reads and validates the lock before spawning anything, captures the
// target, and compares.
func Check(ctx context.Context, o CheckOptions) (*CheckResult, error) {
	return nil, ErrNotImplemented
}

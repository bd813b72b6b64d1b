//go:build unix

package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/testserver"
)

const eraPkg = "testdata/servers/eraserver"

// pinLegacyLock pins target (a launch after "--", or --url) with
// --protocol legacy into a lock in dir and checks that the lock records the
// 2025 era: the lock of a server pinned before it moved to 2026-07-28.
func pinLegacyLock(t *testing.T, dir string, target ...string) string {
	t.Helper()
	lockPath := filepath.Join(dir, "warden.lock")
	code, out, errs := run(t, append([]string{"pin", "--lock", lockPath, "--protocol", "legacy"}, target...)...)
	if code != ExitClean {
		t.Fatalf("pin --protocol legacy: exit %d\n%s%s", code, out, errs)
	}
	l, err := lock.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if l.Pin.MCPProtocolVersion != "2025-11-25" {
		t.Fatalf("the 2025-era pin recorded %q", l.Pin.MCPProtocolVersion)
	}
	if len(l.Tools) != 2 || len(l.Resources) != 1 || len(l.Prompts) != 1 {
		t.Fatalf("lock has %d tools, %d resources, %d prompts", len(l.Tools), len(l.Resources), len(l.Prompts))
	}
	return lockPath
}

// wantCleanCheck runs check under the default --protocol and requires exit 0
// and the clean line.
func wantCleanCheck(t *testing.T, lockPath string, target ...string) {
	t.Helper()
	code, out, errs := run(t, append([]string{"check", "--lock", lockPath}, target...)...)
	if code != ExitClean || out != "OK no drift vs "+lockPath+"\n" {
		t.Errorf("check: exit %d, want 0 and clean\n%s%s", code, out, errs)
	}
}

// TestMigratedServerChecksCleanStdio is issue 22's first "done when" over
// stdio: a lock pinned in the 2025 era from a dual server checks clean
// against the same launch once the server speaks only 2026-07-28, however
// it refuses initialize. The launch is a script whose target changes
// between pin and check, so that the lock's launch is the check's.
func TestMigratedServerChecksCleanStdio(t *testing.T) {
	t.Parallel()
	era := testserver.Build(t, eraPkg)
	dir := t.TempDir()
	launcher := filepath.Join(dir, "server.sh")
	serve := func(args ...string) {
		t.Helper()
		script := "#!/bin/sh\nexec " + era + " " + strings.Join(args, " ") + "\n"
		if err := os.WriteFile(launcher, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	serve("-era", "dual")
	lockPath := pinLegacyLock(t, dir, "--", launcher)
	// Sequential: every shape is served behind the one launch the lock
	// records.
	for _, shape := range []string{"-32022", "-32022-bare", "-32020", "-32601", "-32600", "-32602", "version", "exit", "accept"} {
		t.Run(strings.TrimPrefix(shape, "-"), func(t *testing.T) {
			serve("-era", "modern", "-refuse-initialize", "'"+shape+"'")
			wantCleanCheck(t, lockPath, "--", launcher)
		})
	}
}

// TestMigratedServerChecksCleanHTTP is the same over streamable HTTP: the
// dual server is pinned at one address, then each modern-only shape is
// served at the same address (each subtest's server stops with it).
func TestMigratedServerChecksCleanHTTP(t *testing.T) {
	t.Parallel()
	era := testserver.Build(t, eraPkg)
	addr, dir := freeAddr(t), t.TempDir()
	var lockPath string
	t.Run("pin", func(t *testing.T) {
		url := testserver.StartHTTP(t, era, "-era", "dual", "-http", addr)
		lockPath = pinLegacyLock(t, dir, "--url", url)
	})
	if lockPath == "" {
		t.FailNow()
	}
	for _, shape := range []string{"-32022", "-32022-bare", "-32020", "-32601", "-32600", "-32602", "version", "accept", "initialized-400", "http-404"} {
		t.Run(strings.TrimPrefix(shape, "-"), func(t *testing.T) {
			url := testserver.StartHTTP(t, era, "-era", "modern", "-refuse-initialize", shape, "-http", addr)
			wantCleanCheck(t, lockPath, "--url", url)
		})
	}
}

// freeAddr returns a loopback address with a port nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprintf("127.0.0.1:%d", ln.Addr().(*net.TCPAddr).Port)
}

// TestGoSDKServerMigratedChecksClean is the headline migration: a
// server on the Go SDK v1.8.0, pinned in the 2025 era, that restricts itself
// to 2026-07-28 (SupportedProtocolVersions) behind stateless streamable HTTP.
// It still answers initialize, then refuses notifications/initialized with
// HTTP 400; the check of the old lock must be clean.
func TestGoSDKServerMigratedChecksClean(t *testing.T) {
	t.Parallel()
	sdk := testserver.Build(t, "testdata/servers/sdkserver")
	addr, dir := freeAddr(t), t.TempDir()
	var lockPath string
	t.Run("pin", func(t *testing.T) {
		url := testserver.StartHTTP(t, sdk, "-stateless", "-http", addr)
		lockPath = filepath.Join(dir, "warden.lock")
		code, out, errs := run(t, "pin", "--lock", lockPath, "--protocol", "legacy", "--url", url)
		if code != ExitClean {
			t.Fatalf("pin --protocol legacy: exit %d\n%s%s", code, out, errs)
		}
		if l, err := lock.ReadFile(lockPath); err != nil || l.Pin.MCPProtocolVersion != "2025-11-25" {
			t.Fatalf("the 2025-era pin: %v, %+v", err, l)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	url := testserver.StartHTTP(t, sdk, "-versions", "2026-07-28", "-stateless", "-http", addr)
	wantCleanCheck(t, lockPath, "--url", url)
}

// TestSlowStartersPin is issue 22's items 2 and 3 end to end, under the
// default --timeout: a dual server slow only on its first start (npx's
// first download) pins 2026-07-28, not the 2025 era of its warm restart,
// and a modern-only server that needs 11 s to start pins at all; each lock
// then checks clean.
func TestSlowStartersPin(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("each pin waits 11 to 12 s for a slow start")
	}
	era := testserver.Build(t, eraPkg)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"dual-first-start-12s", []string{"-era", "dual", "-first-start-delay", "12s"}},
		{"dual-first-answer-12s", []string{"-era", "dual", "-first-answer-delay", "12s"}},
		{"modern-start-11s", []string{"-era", "modern", "-start-delay", "11s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			argv := append([]string{"--", era, "-marker", filepath.Join(dir, "warm")}, tc.args...)
			lockPath := filepath.Join(dir, "warden.lock")
			code, out, errs := run(t, append([]string{"pin", "--lock", lockPath}, argv...)...)
			if code != ExitClean {
				t.Fatalf("pin: exit %d\n%s%s", code, out, errs)
			}
			l, err := lock.ReadFile(lockPath)
			if err != nil {
				t.Fatal(err)
			}
			if l.Pin.MCPProtocolVersion != "2026-07-28" {
				t.Errorf("a slow first start pinned %q, want 2026-07-28", l.Pin.MCPProtocolVersion)
			}
			wantCleanCheck(t, lockPath, argv...)
		})
	}
}

//go:build unix

package capture

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/testserver"
)

// TestCaptureRetriesRefusedSameVersion: a -32022 whose data.supported lists
// the very 2026-07-28 warden sent is answered by sending again, once; a
// server that refuses twice fails, naming both.
func TestCaptureRetriesRefusedSameVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		refusals string
		ok       bool
	}{
		{"once", "1", true},
		{"twice", "2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			argv, lines := eraLog(t, "-era", "modern", "-refuse-discover", tc.refusals)
			s, err := run(t, Options{Argv: argv})
			if !tc.ok {
				wantFailure(t, err, Failed, "server/discover: server answered JSON-RPC error -32022", "twice, although it lists it as supported", "(captured as a 2026-07-28 server")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.ProtocolVersion != ModernProtocolVersion || toolNames(s) != eraTools {
				t.Errorf("captured %s with tools %s", s.ProtocolVersion, toolNames(s))
			}
			if n := countLines(lines(), "server/discover"); n != 2 {
				t.Errorf("%d server/discover requests, want 2", n)
			}
			if n := countLines(lines(), "spawn"); n != 1 {
				t.Errorf("%d processes, want 1", n)
			}
		})
	}
}

// TestCaptureUnadvertisedLegacyLists: in the 2025 era a list the server did
// not advertise is still asked for (what it serves anyway is locked, as the
// reference locks it), but an error, a result without the list, or silence
// on its first page is its empty section, never a failure. An advertised
// list keeps failing on any of these.
func TestCaptureUnadvertisedLegacyLists(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer    string
		resources int
	}{
		{"error", 0},
		{"empty", 0},
		{"silent", 0},
		{"items", 1},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			t.Parallel()
			argv, lines := eraLog(t, "-era", "legacy", "-lists", "tools", "-unadvertised", tc.answer)
			s := mustCapture(t, Options{Argv: argv, Timeout: 20 * time.Second})
			if s.ProtocolVersion != "2025-11-25" || toolNames(s) != eraTools {
				t.Errorf("captured %s with tools %s", s.ProtocolVersion, toolNames(s))
			}
			if len(s.Resources) != tc.resources || len(s.Prompts) != tc.resources {
				t.Errorf("%d resources and %d prompts, want %d each", len(s.Resources), len(s.Prompts), tc.resources)
			}
			got := lines()
			if countLines(got, "resources/list") != 1 || countLines(got, "prompts/list") != 1 {
				t.Errorf("requests %v: want one resources/list and one prompts/list", got)
			}
		})
	}
	t.Run("advertised-list-errors-fail", func(t *testing.T) {
		t.Parallel()
		// A modern server's legacy-shaped answers are not at issue here:
		// the accept shape answers initialize, then every list -32600.
		argv := []string{testserver.Build(t, eraPkg), "-era", "modern", "-refuse-initialize", "accept"}
		_, err := run(t, Options{Argv: argv, Protocol: ProtocolLegacy})
		wantFailure(t, err, Failed, "tools/list page 1: server answered JSON-RPC error -32600 (")
	})
	t.Run("modern-skips-unadvertised", func(t *testing.T) {
		t.Parallel()
		argv, lines := eraLog(t, "-era", "modern", "-lists", "tools")
		s := mustCapture(t, Options{Argv: argv})
		if s.ProtocolVersion != ModernProtocolVersion || len(s.Resources)+len(s.Prompts) != 0 {
			t.Errorf("captured %s with %d resources, %d prompts", s.ProtocolVersion, len(s.Resources), len(s.Prompts))
		}
		if n := countLines(lines(), "resources/list") + countLines(lines(), "prompts/list"); n != 0 {
			t.Errorf("%d unadvertised lists asked for in the modern era", n)
		}
	})
}

// TestCaptureFailureSaysWhatTheServerSaid: failures quote the server's own
// error text, escaped; a credentials status names --header; and under auto
// a failure says which era it ended in and how to force the other.
func TestCaptureFailureSaysWhatTheServerSaid(t *testing.T) {
	t.Parallel()
	era := testserver.Build(t, eraPkg)
	t.Run("json-rpc-message", func(t *testing.T) {
		t.Parallel()
		_, err := run(t, Options{Argv: []string{era, "-era", "modern", "-refuse-initialize", "-32601"}, Protocol: ProtocolLegacy})
		wantFailure(t, err, Failed, `initialize: server answered JSON-RPC error -32601 ("Method not found`)
	})
	t.Run("text-plain-body", func(t *testing.T) {
		t.Parallel()
		url := testserver.StartHTTP(t, era, "-era", "modern", "-refuse-initialize", "initialized-400")
		_, err := run(t, Options{URL: url, Protocol: ProtocolLegacy})
		wantFailure(t, err, Failed, `server answered HTTP 400 ("Unsupported protocol version")`)
	})
	t.Run("hostile-message-escaped", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			msg := "\x1b]8;;https://evil.example\x07click\u202e" + strings.Repeat("x", 500)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":` + jsonString(msg) + `}}`))
		}))
		t.Cleanup(srv.Close)
		_, err := run(t, Options{URL: srv.URL, Protocol: ProtocolModern})
		e := wantFailure(t, err, Failed, `JSON-RPC error -32020 ("\x1b]8;;https://evil.example\aclick\u202e`, "…")
		if e != nil && strings.ContainsAny(e.Error(), "\x1b\x07\u202e") {
			t.Errorf("raw control characters in %q", e.Error())
		}
		if e != nil && strings.Count(e.Error(), "x") > rpcMessageRunes {
			t.Errorf("message not clipped: %d bytes", len(e.Error()))
		}
	})
	t.Run("credentials-name-header", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		}))
		t.Cleanup(srv.Close)
		for _, p := range []Protocol{ProtocolAuto, ProtocolLegacy} {
			_, err := run(t, Options{URL: srv.URL, Protocol: p})
			e := wantFailure(t, err, Failed, "server answered HTTP 401", "--header 'Authorization: Bearer …'")
			if e != nil && strings.Contains(e.Error(), "--protocol") {
				t.Errorf("%s: a credentials failure suggests another era: %v", p, e)
			}
		}
	})
	t.Run("era-hint", func(t *testing.T) {
		t.Parallel()
		// A 2025-era capture whose lists fail, and no modern answer to the
		// one probe after it.
		_, err := run(t, Options{Argv: []string{era, "-era", "modern", "-refuse-initialize", "accept", "-refuse-discover", "9"}, Prefer: ProtocolLegacy})
		wantFailure(t, err, Failed, "(captured as a 2025-era server; --protocol modern, the Action's protocol input, forces 2026-07-28)")
		_, err = run(t, Options{Argv: []string{era, "-era", "modern", "-refuse-discover", "9"}, Protocol: ProtocolModern})
		if err != nil && strings.Contains(err.Error(), "captured as") {
			t.Errorf("a forced era got an era hint: %v", err)
		}
	})
}

// TestCaptureLegacyFailureProbesOnce: a 2025-era capture that fails on a
// server that really is 2025-era gets exactly one server/discover probe on a
// fresh process, and the failure reported is the 2025-era one.
func TestCaptureLegacyFailureProbesOnce(t *testing.T) {
	t.Parallel()
	// A server whose handshake fails (-32601) and that answers no probe
	// as a modern server (every server/discover refused).
	argv2, lines2 := eraLog(t, "-era", "modern", "-refuse-initialize", "-32601", "-refuse-discover", "9")
	_, err := run(t, Options{Argv: argv2, Prefer: ProtocolLegacy})
	wantFailure(t, err, Failed, "initialize: server answered JSON-RPC error -32601", "server/discover on a fresh process found no 2026-07-28 server either")
	got := lines2()
	if n := countLines(got, "spawn"); n != 2 {
		t.Errorf("%d processes, want 2 (the handshake, then one probe): %v", n, got)
	}
	if n := countLines(got, "initialize"); n != 1 {
		t.Errorf("%d initialize requests, want 1: %v", n, got)
	}
}

// TestProbeWaitsWhileUnread: the probe timer does not run out while the
// probe still sits unread in the pipe, and does once it has been read and
// the grace has passed.
func TestProbeWaitsWhileUnread(t *testing.T) {
	t.Parallel()
	unread := make(chan bool, 1)
	unread <- true
	read := func() bool {
		v := <-unread
		unread <- v
		return v
	}
	start := time.Now()
	ctx, stop := probeWait(context.Background(), start.Add(50*time.Millisecond), 100*time.Millisecond, read)
	defer stop()
	select {
	case <-ctx.Done():
		t.Fatal("the timer ran out while the probe was unread")
	case <-time.After(300 * time.Millisecond):
	}
	<-unread
	unread <- false
	<-ctx.Done()
	if ctx.Err() != context.DeadlineExceeded {
		t.Errorf("Err = %v, want DeadlineExceeded", ctx.Err())
	}
	parent, cancel := context.WithCancel(context.Background())
	ctx2, stop2 := probeWait(parent, time.Now().Add(time.Hour), time.Second, nil)
	defer stop2()
	cancel()
	<-ctx2.Done()
	if ctx2.Err() != context.Canceled {
		t.Errorf("Err after the parent's cancel = %v, want Canceled", ctx2.Err())
	}
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestCaptureStartupDoesNotUseTheTimeout: time a stdio server spends
// starting, before it reads its input (npx downloading it), counts against
// StartupTimeout, not Timeout, and the capture says what it waits for.
func TestCaptureStartupDoesNotUseTheTimeout(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("start-up is told apart only where the stdin pipe can be inspected (Linux)")
	}
	era := testserver.Build(t, eraPkg)
	t.Run("slow-start-within-budget", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		var lines []string
		progress := func(l string) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, l)
		}
		s, err := run(t, Options{Argv: []string{era, "-era", "modern", "-start-delay", "6s"},
			Timeout: 2 * time.Second, StartupTimeout: 20 * time.Second, Progress: progress})
		if err != nil {
			t.Fatal(err)
		}
		if s.ProtocolVersion != ModernProtocolVersion || toolNames(s) != eraTools {
			t.Errorf("captured %s with tools %s", s.ProtocolVersion, toolNames(s))
		}
		mu.Lock()
		defer mu.Unlock()
		if len(lines) == 0 || !strings.Contains(lines[0], "to start (it has not read its input yet") || !strings.Contains(lines[0], "up to 20 s for its start-up") {
			t.Errorf("progress lines %q", lines)
		}
	})
	t.Run("start-up-budget-spent", func(t *testing.T) {
		t.Parallel()
		_, err := run(t, Options{Argv: []string{era, "-era", "modern", "-start-delay", "5s"},
			Timeout: time.Second, StartupTimeout: time.Second})
		wantFailure(t, err, TimedOut, "did not start within 1s: it never read its input", "--startup-timeout SECONDS")
	})
	t.Run("waiting-for-an-answer", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		var lines []string
		argv := []string{era, "-era", "legacy", "-unknown", "silent"}
		_, err := run(t, Options{Argv: argv, Timeout: 30 * time.Second, Progress: func(l string) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, l)
		}})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(lines) == 0 || !strings.Contains(lines[0], "to answer server/discover") || !strings.Contains(lines[0], "(the timeout is 30 s)") {
			t.Errorf("progress lines %q", lines)
		}
	})
}

// TestCaptureServerExited: a failure with a stdio server that exited by
// itself says so through ServerExited (the CLI then names --env); one that
// answered and was killed by warden does not.
func TestCaptureServerExited(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "dies")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'missing API_KEY' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, Options{Argv: []string{script}})
	if e := wantFailure(t, err, Failed, "server exited (exit status 3)"); e != nil && !e.ServerExited() {
		t.Errorf("ServerExited() = false for %v", e)
	}
	era := testserver.Build(t, eraPkg)
	_, err = run(t, Options{Argv: []string{era, "-era", "modern", "-refuse-initialize", "-32601"}, Protocol: ProtocolLegacy})
	if e := wantFailure(t, err, Failed, "-32601"); e != nil && e.ServerExited() {
		t.Errorf("ServerExited() = true for %v", e)
	}
}

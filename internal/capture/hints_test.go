package capture

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestQuoteStart(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"short line", "Listening on port 3000", `"Listening on port 3000"`},
		{"escaped controls", "\x1b[31mready\x1b[0m\t", `"\x1b[31mready\x1b[0m\t"`},
		{"capped with an ellipsis", long, `"` + long[:startBytes] + `…"`},
		{"cut at a character boundary", strings.Repeat("a", startBytes-1) + "é!", `"` + strings.Repeat("a", startBytes-1) + `…"`},
		{"invalid UTF-8", "\xff\xfe", `"\xff\xfe"`},
		{"empty", "", `""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := quoteStart([]byte(tt.in)); got != tt.want {
				t.Fatalf("quoteStart(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestNotJSONKeepsBudgetErrors(t *testing.T) {
	le := &limitError{what: "total data read from the server", limit: 10}
	if got := notJSON([]byte("hello"), le); got != error(le) {
		t.Fatalf("notJSON changed a budget error: %v", got)
	}
	base := errors.New("server wrote a line that is not valid JSON to stdout: invalid character 'h'")
	got := notJSON([]byte("hello world"), base)
	if !errors.Is(got, base) || !strings.Contains(got.Error(), `it began "hello world"`) || !strings.Contains(got.Error(), "log to stderr") {
		t.Fatalf("notJSON = %v", got)
	}
}

func TestDownloadHint(t *testing.T) {
	tests := []struct {
		argv []string
		want string // "" for no hint, else the runner it names
	}{
		{[]string{"npx", "-y", "@modelcontextprotocol/server-memory@2026.1.26"}, "npx"},
		{[]string{"/usr/bin/npx", "pkg"}, "npx"},
		{[]string{`C:\nodejs\npx.cmd`, "pkg"}, "npx"},
		{[]string{"npm", "exec", "pkg"}, "npm exec"},
		{[]string{"pnpm", "dlx", "pkg"}, "pnpm dlx"},
		{[]string{"yarn", "dlx", "pkg"}, "yarn dlx"},
		{[]string{"bunx", "pkg"}, "bunx"},
		{[]string{"uvx", "mcp-server-time==1.0"}, "uvx"},
		{[]string{"pipx", "run", "pkg"}, "pipx run"},
		{[]string{"npm", "start"}, ""},
		{[]string{"node", "server.js"}, ""},
		{[]string{"./npx-wrapper"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		got := downloadHint(tt.argv, "--timeout SECONDS")
		switch {
		case tt.want == "" && got != "":
			t.Errorf("downloadHint(%q) = %q, want none", tt.argv, got)
		case tt.want != "" && (!strings.HasPrefix(got, tt.want+" may still have been downloading") || !strings.Contains(got, "--timeout")):
			t.Errorf("downloadHint(%q) = %q, want a --timeout hint naming %s", tt.argv, got, tt.want)
		}
	}
}

// TestCaptureNonJSONStdoutQuotesIt: a server that prints something other
// than JSON-RPC on stdout fails with the first bytes it printed, escaped.
func TestCaptureNonJSONStdoutQuotesIt(t *testing.T) {
	t.Parallel()
	_, err := run(t, Options{Argv: raw(t, "garbage")})
	wantFailure(t, err, Failed,
		"tools/list page 1: server wrote a line that is not valid JSON to stdout",
		`it began "this is not json"`,
		"log to stderr")
}

// TestCaptureTimeoutSuggestsTimeoutForNpx: a server that never reads its
// input has not started (npx may still be downloading the package): it fails
// after the start-up budget, suggesting --startup-timeout for a package
// runner; one that reads its input and never answers fails after --timeout,
// suggesting --timeout for a package runner; the same hangs under another
// name suggest neither.
func TestCaptureTimeoutSuggestsTimeoutForNpx(t *testing.T) {
	t.Parallel()
	if _, ok := pendingBytes(os.Stdin); !ok && runtime.GOOS != "linux" {
		t.Skip("start-up is told apart only where the stdin pipe can be inspected (Linux)")
	}
	dir := t.TempDir()
	scripts := map[string]string{
		// Stand-ins that never read their input, as npx does while it
		// downloads, and that read it and never answer.
		"npx": "#!/bin/sh\nexec sleep 30\n", "slow-server": "#!/bin/sh\nexec sleep 30\n",
		"reader/npx": "#!/bin/sh\nwhile read -r line; do :; done\n", "reader/slow-server": "#!/bin/sh\nwhile read -r line; do :; done\n",
	}
	for name, script := range scripts {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o := func(name string) Options {
		return Options{Argv: []string{filepath.Join(dir, filepath.FromSlash(name)), "-y", "some-server@1.0.0"},
			Timeout: 500 * time.Millisecond, StartupTimeout: 700 * time.Millisecond}
	}
	_, err := run(t, o("npx"))
	wantFailure(t, err, TimedOut, "did not start within 0.7s: it never read its input",
		"npx may still have been downloading the server", "allow more time with --startup-timeout SECONDS")
	_, err = run(t, o("slow-server"))
	if e := wantFailure(t, err, TimedOut, "did not start within 0.7s", "--startup-timeout SECONDS"); strings.Contains(e.Error(), "downloading") {
		t.Errorf("a plain server's start-up suggests a download: %v", e)
	}
	_, err = run(t, o("reader/npx"))
	wantFailure(t, err, TimedOut, "did not complete the handshake", "within 0.5s",
		"npx may still have been downloading the server", "allow more time with --timeout SECONDS")
	_, err = run(t, o("reader/slow-server"))
	if e := wantFailure(t, err, TimedOut, "did not complete the handshake", "within 0.5s"); strings.Contains(e.Error(), "--timeout") {
		t.Errorf("a plain server's timeout suggests --timeout: %v", e)
	}
}

package capture

import (
	"errors"
	"os"
	"path/filepath"
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
		got := downloadHint(tt.argv)
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

// TestCaptureTimeoutSuggestsTimeoutForNpx: a launch through npx that times
// out (npx may still be downloading the package) suggests --timeout; the
// same hang under another name does not.
func TestCaptureTimeoutSuggestsTimeoutForNpx(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A stand-in npx that never answers, as npx does while it downloads.
	script := "#!/bin/sh\nexec sleep 30\n"
	for _, name := range []string{"npx", "slow-server"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err := run(t, Options{Argv: []string{filepath.Join(dir, "npx"), "-y", "some-server@1.0.0"}, Timeout: 500 * time.Millisecond})
	wantFailure(t, err, TimedOut, "did not complete the handshake", "within 0.5s",
		"npx may still have been downloading the server", "allow more time with --timeout SECONDS")
	_, err = run(t, Options{Argv: []string{filepath.Join(dir, "slow-server")}, Timeout: 500 * time.Millisecond})
	if e := wantFailure(t, err, TimedOut, "did not complete the handshake", "within 0.5s"); strings.Contains(e.Error(), "--timeout") {
		t.Errorf("a plain server's timeout suggests --timeout: %v", e)
	}
}

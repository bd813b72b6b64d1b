//go:build unix

package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
	"github.com/wardenlock/warden/internal/testserver"
)

const (
	rawPkg = "testdata/servers/rawserver"
	sdkPkg = "testdata/servers/sdkserver"
	envPkg = "testdata/servers/envserver"
)

// run captures with a test-sized timeout unless o sets one.
func run(t testing.TB, o Options) (*surface.Surface, error) {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 20 * time.Second
	}
	return Capture(context.Background(), o)
}

// mustCapture captures and fails the test on error.
func mustCapture(t testing.TB, o Options) *surface.Surface {
	t.Helper()
	s, err := run(t, o)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	return s
}

func raw(t testing.TB, mode string, extra ...string) []string {
	return append([]string{testserver.Build(t, rawPkg), "-mode", mode}, extra...)
}

// render flattens a surface into comparable lines, every raw value compact.
func render(s *surface.Surface) []string {
	var out []string
	for _, t := range s.Tools {
		out = append(out, fmt.Sprintf("tool %s desc=%s in=%s ann=%s out=%s",
			t.Name, compact(t.Description), compact(t.InputSchema), compact(t.Annotations), compact(t.OutputSchema)))
	}
	for _, r := range s.Resources {
		out = append(out, fmt.Sprintf("resource %s name=%s desc=%s mime=%s",
			r.URI, compact(r.Name), compact(r.Description), compact(r.MimeType)))
	}
	for _, p := range s.Prompts {
		out = append(out, fmt.Sprintf("prompt %s desc=%s args=%s", p.Name, compact(p.Description), compact(p.Arguments)))
	}
	return out
}

func equalLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("surface mismatch\n got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// wantFailure checks that err is a capture *Error of the given kind whose
// one-line message contains every fragment.
func wantFailure(t *testing.T, err error, kind ErrorKind, fragments ...string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *capture.Error", err, err)
	}
	if e.Kind != kind {
		t.Errorf("kind = %d, want %d (%v)", e.Kind, kind, e)
	}
	msg := e.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("message is not one line: %q", msg)
	}
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("message lacks %q:\n%s", f, msg)
		}
	}
	return e
}

func TestCaptureRawserverClean(t *testing.T) {
	t.Parallel()
	argv := raw(t, "clean")
	s := mustCapture(t, Options{Argv: argv, Version: "1.2.3"})
	equalLines(t, render(s), []string{
		`tool echo desc="Echo the input text back." in={"type":"object","properties":{"text":{"type":"string"}},"required":["text"]} ann=<absent> out=<absent>`,
		`tool add desc="Add two numbers." in={"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]} ann={"readOnlyHint":true} out=<absent>`,
		`resource mem://greeting name="greeting" desc="A friendly greeting." mime="text/plain"`,
		`prompt greet desc="Greet someone." args=[{"name":"name","description":"Who to greet.","required":true}]`,
	})
	if s.ProtocolVersion != "2025-11-25" {
		t.Errorf("ProtocolVersion = %q, want the newest we offered", s.ProtocolVersion)
	}
	if s.Server.Command != argv[0] || strings.Join(s.Server.Args, " ") != "-mode clean" || s.Server.URL != "" {
		t.Errorf("Server = %+v", s.Server)
	}
}

func TestCaptureSDKServerStdio(t *testing.T) {
	t.Parallel()
	s := mustCapture(t, Options{Argv: []string{testserver.Build(t, sdkPkg)}})
	equalLines(t, render(s), sdkCleanSurface())
}

// sdkCleanSurface is what sdkserver -variant clean declares, as the Go SDK
// puts it on the wire: tools in name order, schemas compacted, and
// annotations with "idempotentHint":false, which the SDK always serialises.
func sdkCleanSurface() []string {
	path := `{"type":"object","properties":{"path":{"type":"string","description":"Absolute path."}},"required":["path"]}`
	return []string{
		`tool list_dir desc="List the entries of a directory." in=` + path + ` ann=<absent> out=<absent>`,
		`tool read_file desc="Read the contents of a file from disk." in=` + path + ` ann=<absent> out=<absent>`,
		`tool search desc="Search indexed documents." in={"type":"object","properties":{"query":{"type":"string","maxLength":200},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]} ann={"idempotentHint":false,"readOnlyHint":true} out={"type":"object","properties":{"results":{"type":"array","items":{"type":"string"}}},"required":["results"]}`,
		`resource file:///etc/motd name="motd" desc="Message of the day" mime="text/plain"`,
		`prompt summarize desc="Summarize a piece of text." args=[{"name":"text","description":"The text to summarize.","required":true}]`,
	}
}

func TestCaptureHTTPMatchesStdio(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t, sdkPkg)
	stdio := mustCapture(t, Options{Argv: []string{bin}})
	for _, tc := range []struct{ name, flag string }{
		{"streamable", "-http"},
		{"legacy-sse", "-sse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := testserver.StartHTTP(t, bin, tc.flag, "127.0.0.1:0")
			s := mustCapture(t, Options{URL: url})
			equalLines(t, render(s), render(stdio))
			if s.Server.URL != url || s.Server.Command != "" || len(s.Server.Args) != 0 {
				t.Errorf("Server = %+v, want URL %s only", s.Server, url)
			}
			if s.ProtocolVersion == "" {
				t.Error("no protocol version recorded")
			}
		})
	}
}

func TestCaptureRawNumbersSurviveByteExact(t *testing.T) {
	t.Parallel()
	s := mustCapture(t, Options{Argv: raw(t, "raw-numbers")})
	if len(s.Tools) != 1 {
		t.Fatalf("tools = %v", render(s))
	}
	in := s.Tools[0].InputSchema
	want := `{"type":"object","properties":{` +
		`"ratio":{"type":"number","minimum":1.0,"maximum":1e2,"default":null},` +
		`"big":{"type":"integer","maximum":10000000000000000000000},` +
		`"label":{"type":"string","description":"café","examples":[null]}` +
		`},"required":["ratio"]}`
	if got := in.Compact(); got != want {
		t.Errorf("inputSchema =\n %s\nwant\n %s", got, want)
	}
	props := in.Get("properties")
	cases := []struct {
		v    *jsonv.Value
		kind jsonv.Kind
		text string
	}{
		{props.Get("ratio").Get("minimum"), jsonv.Float, "1.0"},
		{props.Get("ratio").Get("maximum"), jsonv.Float, "1e2"},
		{props.Get("big").Get("maximum"), jsonv.Int, "10000000000000000000000"},
	}
	for _, c := range cases {
		if c.v == nil || c.v.Kind != c.kind || c.v.Text != c.text {
			t.Errorf("got %+v, want %v %s", c.v, c.kind, c.text)
		}
	}
	if d := props.Get("ratio").Get("default"); d == nil || d.Kind != jsonv.Null {
		t.Errorf("explicit null default lost: %v", d)
	}
}

func TestCapturePagination(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		argv      []string
		maxPages  int
		wantTools int
		wantErr   []string
	}{
		{"300 pages over the default cap", raw(t, "pages300"), 0, 0, []string{"tools/list: cursor chain exceeded 256 pages"}},
		{"300 pages within a cap of 300", raw(t, "pages300"), 300, 300, nil},
		{"300 pages over a cap of 299", raw(t, "pages300"), 299, 0, []string{"exceeded 299 pages"}},
		{"duplicate name across pages", raw(t, "dup-across-pages"), 0, 0, []string{`tool name "a" appears more than once (pages 1 and 2)`}},
		{"cursor loop", raw(t, "cursor-loop"), 0, 0, []string{`tools/list page 3: cursor "c1" was already used (cursor loop)`}},
		{"later page error", raw(t, "later-page-error"), 0, 0, []string{"tools/list page 2: server answered JSON-RPC error -32603"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := run(t, Options{Argv: tc.argv, MaxPages: tc.maxPages})
			if tc.wantErr != nil {
				wantFailure(t, err, Failed, tc.wantErr...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Tools) != tc.wantTools {
				t.Fatalf("got %d tools, want %d", len(s.Tools), tc.wantTools)
			}
			if first, last := s.Tools[0].Name, s.Tools[len(s.Tools)-1].Name; first != "page_001" || last != "page_300" {
				t.Errorf("tools run %s..%s, want page_001..page_300", first, last)
			}
		})
	}
}

func TestCaptureFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		argv    []string
		kind    ErrorKind
		wantErr []string
	}{
		{"list error", raw(t, "list-error"), Failed, []string{"Failed to capture MCP server '", "tools/list page 1: server answered JSON-RPC error -32603"}},
		{"garbage on stdout", raw(t, "garbage"), Failed, []string{"tools/list page 1: server wrote a line that is not valid JSON to stdout"}},
		{"tool without a name", raw(t, "bad-item"), Failed, []string{"tools/list page 1: tools[1]: tool name is missing or not a string"}},
		{"non-object annotations", raw(t, "bad-annotations"), Failed, []string{`tools[0]: tool "t": annotations is a string, not an object`}},
		{"unsupported protocol version", raw(t, "version-unsupported"), Failed, []string{`initialize: server chose unsupported protocol version "1999-01-01"`}},
		{"crash mid list", raw(t, "crash-mid-list"), Failed, []string{
			"tools/list page 2: server closed its stdout",
			"server exited (exit status 3)",
			`server stderr tail: "rawserver: mode=crash-mid-list pid=`,
			`\nfatal: boom\n"`,
		}},
		{"missing command", []string{"warden-no-such-command-7f3a", "--flag"}, CommandNotFound, []string{
			"MCP server command not found: 'warden-no-such-command-7f3a' (not found on PATH).",
		}},
		{"missing path", []string{"/nonexistent/warden/server"}, CommandNotFound, []string{
			"MCP server command not found: '/nonexistent/warden/server' (no such file).",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := run(t, Options{Argv: tc.argv})
			wantFailure(t, err, tc.kind, tc.wantErr...)
		})
	}
}

func TestCaptureCommandNotExecutable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(path, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, Options{Argv: []string{path}})
	wantFailure(t, err, Failed, "Failed to capture MCP server '"+path+"': starting the server: ", "permission denied")
}

func TestCaptureMethodNotFoundMeansEmpty(t *testing.T) {
	t.Parallel()
	s := mustCapture(t, Options{Argv: raw(t, "method-not-found")})
	if len(s.Tools) != 2 || len(s.Resources) != 0 || len(s.Prompts) != 0 {
		t.Errorf("got %v, want the two tools and empty resources and prompts", render(s))
	}
}

func TestCaptureToleratesNoisyServers(t *testing.T) {
	t.Parallel()
	clean := render(mustCapture(t, Options{Argv: raw(t, "clean")}))
	for _, mode := range []string{"notify-flood", "server-request", "out-of-order", "stderr-flood"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var copied countingWriter
			s := mustCapture(t, Options{Argv: raw(t, mode), Stderr: &copied})
			equalLines(t, render(s), clean)
			if mode == "stderr-flood" && copied.n() < 50<<20 {
				t.Errorf("only %d bytes of stderr were passed through, want the whole 50 MiB flood", copied.n())
			}
		})
	}
}

// countingWriter counts what is written to it.
type countingWriter struct {
	mu    sync.Mutex
	count int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.count += int64(len(p))
	return len(p), nil
}

func (w *countingWriter) n() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.count
}

// processGone reports whether pid no longer runs. A zombie counts as gone:
// it runs nothing, and in a container whose init does not reap, it may stay.
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the parenthesised command name.
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] == 'Z' || stat[i+2] == 'X'
	}
	return false
}

// groupGone reports whether no process of group pgid runs any more.
func groupGone(t *testing.T, pgid int) bool {
	t.Helper()
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid && !processGone(pid) {
			return false
		}
	}
	return true
}

func eventually(cond func() bool) bool {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

func TestCaptureHangHitsDeadlineAndKillsGroup(t *testing.T) {
	t.Parallel()
	argv := raw(t, "hang-after-init", "-ignore-sigterm")
	pgid := 0
	start := time.Now()
	// The 2025 era, so that the era probe's own timer (a share of the
	// timeout, counted from the spawn) cannot move the hang elsewhere on a
	// loaded machine.
	_, err := Capture(context.Background(), Options{
		Argv:     argv,
		Timeout:  3 * time.Second,
		Protocol: ProtocolLegacy,
		started:  func(g int) { pgid = g },
	})
	elapsed := time.Since(start)
	wantFailure(t, err, TimedOut,
		"MCP server '"+argv[0]+"' did not answer tools/list (page 1) within 3s (it may be hung or waiting on input)",
		`server stderr tail: "rawserver: mode=hang-after-init`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error does not wrap context.DeadlineExceeded: %v", err)
	}
	if elapsed > 8*time.Second {
		t.Errorf("Capture returned after %v, long past the 3s deadline", elapsed)
	}
	if pgid == 0 {
		t.Fatal("started hook not called")
	}
	if !eventually(func() bool { return groupGone(t, pgid) }) {
		t.Errorf("process group %d still has live processes after Capture returned", pgid)
	}
}

// TestCaptureTimeoutNamesStageAndStrays: a server that answers with ids
// that match no request (the string "1" for 1) looks hung; the timeout says
// which request went unanswered and that replies with other ids came. (The
// probe of --protocol auto refuses such a reply at once: TestCaptureProbeReplies.)
func TestCaptureTimeoutNamesStageAndStrays(t *testing.T) {
	t.Parallel()
	argv := raw(t, "string-ids")
	_, err := run(t, Options{Argv: argv, Timeout: 2 * time.Second, Protocol: ProtocolLegacy})
	wantFailure(t, err, TimedOut,
		"did not complete the handshake (no reply to initialize) within 2s",
		`it sent 1 reply whose id matched no request (id "1" while waiting for "initialize" id 1)`)
}

func TestCaptureKillsGrandchild(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	start := time.Now()
	s := mustCapture(t, Options{Argv: raw(t, "grandchild", "-pidfile", pidfile)})
	if len(s.Tools) != 2 || len(s.Prompts) != 1 {
		t.Errorf("surface = %v", render(s))
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("grandchild pidfile: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !eventually(func() bool { return processGone(pid) }) {
		t.Errorf("grandchild %d still runs after Capture returned", pid)
	}
	// The server neither exits nor lets stdout reach EOF; Capture kills
	// it once the answers are in and must not wait for it.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Capture took %v", d)
	}
}

func TestCaptureCancelledByCaller(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err := Capture(ctx, Options{Argv: raw(t, "hang-after-init"), Timeout: 20 * time.Second})
	wantFailure(t, err, Failed, "was cancelled")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error does not wrap context.Canceled: %v", err)
	}
}

// measureHeap runs fn after a GC while sampling the heap in use, and
// returns the memory statistics before and after it and the peak HeapInuse.
func measureHeap(fn func()) (before, after runtime.MemStats, peak uint64) {
	runtime.GC()
	runtime.ReadMemStats(&before)
	peak = before.HeapInuse
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-sampled
	runtime.ReadMemStats(&after)
	return before, after, peak
}

// TestCaptureHugeLineBoundedMemory is not parallel: it measures the heap,
// which other tests' allocations would blur.
func TestCaptureHugeLineBoundedMemory(t *testing.T) {
	argv := raw(t, "huge-line")
	var err error
	var elapsed time.Duration
	before, after, peak := measureHeap(func() {
		start := time.Now()
		_, err = run(t, Options{Argv: argv})
		elapsed = time.Since(start)
	})

	e := wantFailure(t, err, Failed, "tools/list page 1: reading the server's stdout: a message from the server exceeds the limit of 16777216 bytes")
	var le *limitError
	if !errors.As(e, &le) || le.limit != DefaultMaxMessageBytes {
		t.Errorf("error does not wrap the message limit: %v", err)
	}
	const bound = 64 << 20
	if grew := int64(peak) - int64(before.HeapInuse); grew > bound {
		t.Errorf("heap in use peaked %d MiB above the baseline, want under %d MiB", grew>>20, bound>>20)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > bound {
		t.Errorf("allocated %d MiB in total, want under %d MiB", alloc>>20, bound>>20)
	}
	if elapsed > 10*time.Second {
		t.Errorf("took %v to refuse the line", elapsed)
	}
	t.Logf("peak heap in use +%d MiB, total allocated %d MiB, %v",
		(int64(peak)-int64(before.HeapInuse))>>20, (after.TotalAlloc-before.TotalAlloc)>>20, elapsed)
}

func TestCaptureTotalBytesBound(t *testing.T) {
	t.Parallel()
	_, err := run(t, Options{Argv: raw(t, "notify-flood"), MaxTotalBytes: 256 << 10})
	// The flood's notifications are tiny, so the charge for their JSON
	// values exhausts the budget before their bytes would.
	wantFailure(t, err, Failed, "initialize: what the server sent (bytes read, plus 64 per JSON value and 1024 per list item) exceeds the limit of 262144 bytes")
}

// TestCaptureItemBounds: a list of many minimal tools, inside the byte and
// page bounds, is refused by the per-list item limit (and its memory by the
// per-item and per-value charges), with one line.
func TestCaptureItemBounds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"default item limit", Options{Argv: raw(t, "many-tools", "-tools", "100000", "-pages", "4")},
			"tools/list: more than 10000 tools (the limit is --max-items)"},
		{"raised item limit, charged budget", Options{Argv: raw(t, "many-tools", "-tools", "100000", "-pages", "4"), MaxItems: 1_000_000},
			"exceeds the limit of 67108864 bytes"},
		{"item limit across pages", Options{Argv: raw(t, "many-tools", "-tools", "301", "-pages", "3"), MaxItems: 300},
			"tools/list: more than 300 tools"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := run(t, tc.opts)
			wantFailure(t, err, Failed, tc.want)
		})
	}
	s := mustCapture(t, Options{Argv: raw(t, "many-tools", "-tools", "300", "-pages", "3"), MaxItems: 300})
	if len(s.Tools) != 300 {
		t.Errorf("%d tools, want 300", len(s.Tools))
	}
}

func TestCaptureMessageBoundOption(t *testing.T) {
	t.Parallel()
	_, err := run(t, Options{Argv: raw(t, "clean"), MaxMessageBytes: 100})
	wantFailure(t, err, Failed, "initialize: reading the server's stdout: a message from the server exceeds the limit of 100 bytes")
}

// TestCaptureEnvironment is not parallel: it sets warden's own environment.
func TestCaptureEnvironment(t *testing.T) {
	t.Setenv("HOME", "/home/warden-test")
	t.Setenv("TERM", "() { :; }; echo shellshock")
	t.Setenv("WARDEN_TEST_SECRET", "must-not-leak")
	t.Setenv("WARDEN_TEST_PASSED", "copied")
	s := mustCapture(t, Options{
		Argv: []string{testserver.Build(t, envPkg)},
		Env:  []string{"WARDEN_TEST_PASSED", "WARDEN_TEST_SET=a=b", "HOME=/override"},
	})
	got := map[string]string{}
	for _, tool := range s.Tools {
		got[tool.Name] = tool.DescriptionText()
	}
	want := map[string]string{
		"HOME":               "/override",
		"WARDEN_TEST_PASSED": "copied",
		"WARDEN_TEST_SET":    "a=b",
	}
	for _, name := range []string{"LOGNAME", "PATH", "SHELL", "USER"} {
		if v, ok := os.LookupEnv(name); ok {
			want[name] = v
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("server environment =\n %v\nwant\n %v", got, want)
	}

	_, err := run(t, Options{Argv: []string{testserver.Build(t, envPkg)}, Env: []string{"WARDEN_TEST_UNSET_VARIABLE"}})
	if err == nil || !strings.Contains(err.Error(), `--env "WARDEN_TEST_UNSET_VARIABLE": the variable is not set`) {
		t.Errorf("unset --env variable: err = %v", err)
	}
}

func TestCaptureOptionErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"neither", Options{}, "neither a command nor a URL"},
		{"both", Options{Argv: []string{"x"}, URL: "http://h/"}, "both a command and a URL"},
		{"empty command", Options{Argv: []string{""}}, "command is empty"},
		{"negative", Options{Argv: []string{"x"}, MaxPages: -1}, "must not be negative"},
		{"headers on stdio", Options{Argv: []string{"x"}, Headers: []string{"A: b"}}, "headers apply to HTTP servers only"},
		{"env on http", Options{URL: "http://h/", Env: []string{"A"}}, "--env applies to stdio servers only"},
		{"bad scheme", Options{URL: "ftp://h/"}, "must start with http:// or https://"},
		{"no host", Options{URL: "http:///mcp"}, "has no host"},
		{"bad env entry", Options{Argv: []string{"x"}, Env: []string{"=v"}}, "invalid --env entry"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Capture(context.Background(), tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
			var e *Error
			if errors.As(err, &e) {
				t.Errorf("option error reported as a capture failure: %v", err)
			}
		})
	}
}

//go:build unix

package testserver_test

// These tests pin the behaviour of the fixture servers themselves, through
// a deliberately dumb raw JSON-RPC client: warden's capture tests rely on
// each rawserver mode doing exactly what its table entry says, and a
// fixture that silently stopped misbehaving would turn those tests into
// no-ops.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenlock/warden/internal/testserver"
)

// proc is a fixture process driven over stdio, one JSON line at a time.
type proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte   // stdout lines without the newline; closed at EOF
	quit   chan struct{} // closed at cleanup, releases the stdout reader
	stderr *lockedBuffer
	waited chan struct{} // closed when the process has been reaped
	code   int           // exit code, -1 if killed by a signal; valid after waited
	nextID int
}

// startRaw starts bin in its own process group (so that cleanup, and the
// grandchild test, can kill the whole group without touching the test
// binary). If stderr is nil, stderr is kept in p.stderr.
//
// Stdout is an os.Pipe of our own rather than cmd.StdoutPipe: that way
// cmd.Wait never closes it under the reader, so the process can be reaped
// as soon as it exits while every line it wrote is still delivered.
func startRaw(t testing.TB, bin string, stderr io.Writer, args ...string) *proc {
	t.Helper()
	p := &proc{
		t:      t,
		lines:  make(chan []byte, 256),
		quit:   make(chan struct{}),
		waited: make(chan struct{}),
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild may hold an inherited stderr pipe open; do not let Wait
	// block on it for long.
	p.cmd.WaitDelay = 2 * time.Second
	if stderr == nil {
		p.stderr = &lockedBuffer{}
		stderr = p.stderr
	}
	p.cmd.Stderr = stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout = w
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close() // the child has its copy; EOF comes when it (and any grandchild) closes it
	go func() {
		defer r.Close()
		defer close(p.lines)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				select {
				case p.lines <- bytes.TrimSuffix(line, []byte("\n")):
				case <-p.quit:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		err := p.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			p.code = 0
		case errors.As(err, &ee):
			p.code = ee.ExitCode()
		default:
			p.code = -2
		}
		close(p.waited)
	}()
	t.Cleanup(func() {
		close(p.quit)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-p.waited:
		case <-time.After(10 * time.Second):
			t.Errorf("process %d not reaped 10s after SIGKILL", p.cmd.Process.Pid)
		}
	})
	return p
}

// wait waits for the process to exit and returns its exit code (-1 if it
// was killed by a signal). It fails the test after timeout.
func (p *proc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.waited:
		return p.code
	case <-time.After(timeout):
		p.t.Fatalf("process still running after %v", timeout)
		return 0
	}
}

// lockedBuffer is a bytes.Buffer that the stderr-copying goroutine of
// os/exec and the test can use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (p *proc) send(format string, args ...any) {
	p.t.Helper()
	if _, err := fmt.Fprintf(p.stdin, format+"\n", args...); err != nil {
		p.t.Fatalf("write to server: %v", err)
	}
}

// readLine returns the next stdout line, or nil at EOF.
func (p *proc) readLine(timeout time.Duration) []byte {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			return nil
		}
		return line
	case <-time.After(timeout):
		p.t.Fatalf("no line from server within %v", timeout)
		return nil
	}
}

// expectSilence fails if the server writes a line within d.
func (p *proc) expectSilence(d time.Duration) {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if ok {
			p.t.Fatalf("expected silence, got %.200s", line)
		}
	case <-time.After(d):
	}
}

// rpcMsg is any JSON-RPC message read from the server.
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw []byte
}

func (p *proc) readMsg(timeout time.Duration) *rpcMsg {
	p.t.Helper()
	line := p.readLine(timeout)
	if line == nil {
		p.t.Fatalf("server closed stdout; stderr: %s", p.stderrText())
	}
	m := &rpcMsg{raw: line}
	if err := json.Unmarshal(line, m); err != nil {
		p.t.Fatalf("server wrote non-JSON %.200q: %v", line, err)
	}
	return m
}

func (p *proc) stderrText() string {
	if p.stderr == nil {
		return "(not captured)"
	}
	return p.stderr.String()
}

// call sends a request and returns its response, skipping and counting the
// notifications that come first.
func (p *proc) call(method, params string) (resp *rpcMsg, notifications int) {
	p.t.Helper()
	p.nextID++
	id := p.nextID
	if params == "" {
		params = "{}"
	}
	p.send(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	for {
		m := p.readMsg(30 * time.Second)
		if m.Method != "" && m.ID == nil {
			notifications++
			continue
		}
		if m.Method != "" {
			p.t.Fatalf("unexpected server request %s", m.raw)
		}
		if string(m.ID) != strconv.Itoa(id) {
			p.t.Fatalf("response id %s, want %d", m.ID, id)
		}
		return m, notifications
	}
}

// initialize performs the handshake and returns the initialize result.
func (p *proc) initialize(version string) *rpcMsg {
	p.t.Helper()
	resp, _ := p.call("initialize", fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}`, version))
	if resp.Error != nil {
		p.t.Fatalf("initialize failed: %+v", resp.Error)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return resp
}

// listPage is one page of a list result.
type listPage struct {
	Tools      []map[string]json.RawMessage `json:"tools"`
	NextCursor string                       `json:"nextCursor"`
}

func (p *proc) toolsPage(cursor string) (*listPage, *rpcMsg) {
	p.t.Helper()
	params := "{}"
	if cursor != "" {
		params = fmt.Sprintf(`{"cursor":%q}`, cursor)
	}
	resp, _ := p.call("tools/list", params)
	if resp.Error != nil {
		return nil, resp
	}
	var page listPage
	if err := json.Unmarshal(resp.Result, &page); err != nil {
		p.t.Fatalf("tools/list result: %v", err)
	}
	return &page, resp
}

func toolNames(page *listPage) []string {
	var names []string
	for _, tool := range page.Tools {
		var n string
		_ = json.Unmarshal(tool["name"], &n)
		names = append(names, n)
	}
	return names
}

func rawserver(t *testing.T, args ...string) *proc {
	t.Helper()
	return startRaw(t, testserver.Build(t, rawPkg), nil, args...)
}

func TestRawserverInitializeOverStdio(t *testing.T) {
	cases := []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"2099-01-01", "2025-06-18"},
		{"", "2025-06-18"},
	}
	for _, tc := range cases {
		t.Run(tc.asked, func(t *testing.T) {
			p := rawserver(t)
			resp := p.initialize(tc.asked)
			var res struct {
				ProtocolVersion string                     `json:"protocolVersion"`
				Capabilities    map[string]json.RawMessage `json:"capabilities"`
				ServerInfo      struct{ Name string }      `json:"serverInfo"`
			}
			if err := json.Unmarshal(resp.Result, &res); err != nil {
				t.Fatal(err)
			}
			if res.ProtocolVersion != tc.want {
				t.Errorf("protocolVersion = %q, want %q", res.ProtocolVersion, tc.want)
			}
			for _, c := range []string{"tools", "resources", "prompts"} {
				if string(res.Capabilities[c]) != "{}" {
					t.Errorf("capabilities.%s = %s, want {}", c, res.Capabilities[c])
				}
			}
			if res.ServerInfo.Name != "warden-rawserver" {
				t.Errorf("serverInfo.name = %q", res.ServerInfo.Name)
			}
			if resp, _ := p.call("ping", ""); string(resp.Result) != "{}" {
				t.Errorf("ping result = %s, want {}", resp.Result)
			}
			if resp, _ := p.call("tools/call", `{"name":"echo"}`); resp.Error == nil || resp.Error.Code != -32601 {
				t.Errorf("unknown method answered %s, want error -32601", resp.raw)
			}
			p.send("{not json")
			if m := p.readMsg(5 * time.Second); m.Error == nil || m.Error.Code != -32700 || string(m.ID) != "null" {
				t.Errorf("bad JSON answered %s, want error -32700 with id null", m.raw)
			}
			_ = p.stdin.Close()
			if code := p.wait(5 * time.Second); code != 0 {
				t.Errorf("exit code = %d, want 0 after stdin closed", code)
			}
		})
	}
}

func TestRawserverCleanSurface(t *testing.T) {
	p := rawserver(t)
	p.initialize("2025-06-18")
	page, _ := p.toolsPage("")
	if got := strings.Join(toolNames(page), ","); got != "echo,add" {
		t.Errorf("tools = %s", got)
	}
	for _, method := range []string{"resources/list", "prompts/list"} {
		if resp, _ := p.call(method, ""); resp.Error != nil || len(resp.Result) < 20 {
			t.Errorf("%s answered %s", method, resp.raw)
		}
	}
}

func TestRawserverPagination(t *testing.T) {
	t.Run("pages300", func(t *testing.T) {
		p := rawserver(t, "-mode", "pages300")
		p.initialize("2025-06-18")
		var names []string
		cursor, pages := "", 0
		for {
			page, resp := p.toolsPage(cursor)
			if page == nil {
				t.Fatalf("page %d: %s", pages+1, resp.raw)
			}
			pages++
			names = append(names, toolNames(page)...)
			if page.NextCursor == "" {
				break
			}
			if want := fmt.Sprintf("c%d", pages); page.NextCursor != want {
				t.Fatalf("page %d nextCursor = %q, want %q", pages, page.NextCursor, want)
			}
			cursor = page.NextCursor
		}
		if pages != 300 || len(names) != 300 || names[0] != "page_001" || names[299] != "page_300" {
			t.Errorf("got %d pages, %d tools (%s..%s), want 300 pages of one tool", pages, len(names), names[0], names[len(names)-1])
		}
		if _, resp := p.toolsPage("c300"); resp.Error == nil || resp.Error.Code != -32602 {
			t.Errorf("cursor c300 answered %s, want -32602", resp.raw)
		}
	})
	t.Run("dup-across-pages", func(t *testing.T) {
		p := rawserver(t, "-mode", "dup-across-pages")
		p.initialize("2025-06-18")
		first, _ := p.toolsPage("")
		second, _ := p.toolsPage(first.NextCursor)
		if got := append(toolNames(first), toolNames(second)...); !slices.Equal(got, []string{"a", "a"}) || first.NextCursor != "c1" || second.NextCursor != "" {
			t.Errorf("pages = %v (cursors %q, %q), want [a a] over two pages", got, first.NextCursor, second.NextCursor)
		}
	})
	t.Run("cursor-loop", func(t *testing.T) {
		p := rawserver(t, "-mode", "cursor-loop")
		p.initialize("2025-06-18")
		var cursors, names []string
		cursor := ""
		for range 5 {
			page, _ := p.toolsPage(cursor)
			cursors = append(cursors, page.NextCursor)
			names = append(names, toolNames(page)...)
			cursor = page.NextCursor
		}
		if want := []string{"c1", "c2", "c1", "c2", "c1"}; !slices.Equal(cursors, want) {
			t.Errorf("cursors = %v, want %v", cursors, want)
		}
		if distinct := slices.Compact(slices.Sorted(slices.Values(names))); len(distinct) != len(names) {
			t.Errorf("tool names repeat across pages: %v", names)
		}
	})
	t.Run("later-page-error", func(t *testing.T) {
		p := rawserver(t, "-mode", "later-page-error")
		p.initialize("2025-06-18")
		first, _ := p.toolsPage("")
		if _, resp := p.toolsPage(first.NextCursor); resp.Error == nil || resp.Error.Code != -32603 {
			t.Errorf("page 2 answered %s, want error -32603", resp.raw)
		}
	})
}

func TestRawserverErrors(t *testing.T) {
	t.Run("list-error", func(t *testing.T) {
		p := rawserver(t, "-mode", "list-error")
		p.initialize("2025-06-18")
		if _, resp := p.toolsPage(""); resp.Error == nil || resp.Error.Code != -32603 || resp.Error.Message != "internal" {
			t.Errorf("tools/list answered %s", resp.raw)
		}
	})
	t.Run("method-not-found", func(t *testing.T) {
		p := rawserver(t, "-mode", "method-not-found")
		p.initialize("2025-06-18")
		if page, resp := p.toolsPage(""); page == nil {
			t.Errorf("tools/list answered %s", resp.raw)
		}
		for _, method := range []string{"resources/list", "prompts/list"} {
			if resp, _ := p.call(method, ""); resp.Error == nil || resp.Error.Code != -32601 {
				t.Errorf("%s answered %s, want -32601", method, resp.raw)
			}
		}
	})
	t.Run("version-unsupported", func(t *testing.T) {
		p := rawserver(t, "-mode", "version-unsupported")
		if resp := p.initialize("2025-06-18"); !bytes.Contains(resp.Result, []byte(`"protocolVersion":"1999-01-01"`)) {
			t.Errorf("initialize answered %s", resp.raw)
		}
	})
	t.Run("crash-mid-list", func(t *testing.T) {
		p := rawserver(t, "-mode", "crash-mid-list")
		p.initialize("2025-06-18")
		first, _ := p.toolsPage("")
		p.send(`{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{"cursor":%q}}`, first.NextCursor)
		if line := p.readLine(5 * time.Second); line != nil {
			t.Errorf("got %s, want EOF", line)
		}
		if code := p.wait(5 * time.Second); code != 3 {
			t.Errorf("exit code = %d, want 3", code)
		}
		if !strings.Contains(p.stderrText(), "fatal: boom") {
			t.Errorf("stderr = %q, want fatal: boom", p.stderrText())
		}
	})
	t.Run("garbage", func(t *testing.T) {
		p := rawserver(t, "-mode", "garbage")
		p.initialize("2025-06-18")
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		if line := p.readLine(5 * time.Second); string(line) != "this is not json" {
			t.Errorf("got %q", line)
		}
	})
}

func TestRawserverItems(t *testing.T) {
	cases := []struct {
		mode string
		want []string // substrings of the raw tools/list reply
	}{
		{"bad-item", []string{`{"description":"x"}`, `"name":"ok"`}},
		{"bad-annotations", []string{`"annotations":"yes"`}},
		{"raw-numbers", []string{`"minimum":1.0,"maximum":1e2,"default":null`, `"maximum":10000000000000000000000`, `"x-vendor":{"k":null}`, `"title":null`, `"caf\u00e9"`}},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			p := rawserver(t, "-mode", tc.mode)
			p.initialize("2025-06-18")
			resp, _ := p.call("tools/list", "")
			for _, w := range tc.want {
				if !bytes.Contains(resp.raw, []byte(w)) {
					t.Errorf("reply lacks %s:\n%s", w, resp.raw)
				}
			}
		})
	}
}

func TestRawserverFloods(t *testing.T) {
	t.Run("notify-flood", func(t *testing.T) {
		p := rawserver(t, "-mode", "notify-flood")
		resp, n := p.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
		if resp.Error != nil || n != 10000 {
			t.Errorf("initialize: %d notifications first, error %v; want 10000 and success", n, resp.Error)
		}
		for _, method := range []string{"tools/list", "resources/list", "prompts/list"} {
			if resp, n := p.call(method, ""); resp.Error != nil || n != 10000 {
				t.Errorf("%s: %d notifications first, error %v", method, n, resp.Error)
			}
		}
		if resp, n := p.call("ping", ""); n != 0 || string(resp.Result) != "{}" {
			t.Errorf("ping: %d notifications, result %s; want none and {}", n, resp.Result)
		}
	})
	t.Run("stderr-flood-drained", func(t *testing.T) {
		var counted countingWriter
		p := startRaw(t, testserver.Build(t, rawPkg), &counted, "-mode", "stderr-flood")
		p.initialize("2025-06-18")
		for _, method := range []string{"tools/list", "resources/list", "prompts/list"} {
			if resp, _ := p.call(method, ""); resp.Error != nil {
				t.Fatalf("%s: %s", method, resp.raw)
			}
		}
		_ = p.stdin.Close()
		p.wait(10 * time.Second)
		if n := counted.n.Load(); n < 50<<20 {
			t.Errorf("stderr carried %d bytes, want about 50 MiB", n)
		}
	})
	t.Run("stderr-flood-undrained-blocks", func(t *testing.T) {
		// Nobody reads this pipe: the server must stall before answering,
		// which is what makes the mode catch a client that stops draining.
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		p := startRaw(t, testserver.Build(t, rawPkg), w, "-mode", "stderr-flood")
		w.Close()
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
		p.expectSilence(500 * time.Millisecond)
	})
	t.Run("huge-line", func(t *testing.T) {
		const size = 3 << 20
		p := rawserver(t, "-mode", "huge-line", "-huge-bytes", strconv.Itoa(size))
		p.initialize("2025-06-18")
		page, _ := p.toolsPage("")
		var desc string
		if len(page.Tools) != 1 || json.Unmarshal(page.Tools[0]["description"], &desc) != nil || len(desc) != size {
			t.Errorf("want one tool with a %d-byte description, got %d tools, description of %d bytes", size, len(page.Tools), len(desc))
		}
	})
}

// countingWriter counts and discards.
type countingWriter struct{ n atomic.Int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return len(p), nil
}

func TestRawserverServerRequest(t *testing.T) {
	for _, rootsOK := range []bool{false, true} {
		t.Run(fmt.Sprintf("roots-answered-with-result=%v", rootsOK), func(t *testing.T) {
			p := rawserver(t, "-mode", "server-request")
			p.initialize("2025-06-18")
			p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
			ping := p.readMsg(5 * time.Second)
			roots := p.readMsg(5 * time.Second)
			if ping.Method != "ping" || string(ping.ID) != `"srv-1"` || roots.Method != "roots/list" || string(roots.ID) != `"srv-2"` {
				t.Fatalf("server requests = %s / %s", ping.raw, roots.raw)
			}
			if bytes.Contains(ping.raw, []byte("null")) {
				t.Errorf("ping carries a null (strict clients reject params:null): %s", ping.raw)
			}
			// Answer out of order on purpose: the server must match by id.
			if rootsOK {
				p.send(`{"jsonrpc":"2.0","id":"srv-2","result":{"roots":[]}}`)
			} else {
				p.send(`{"jsonrpc":"2.0","id":"srv-2","error":{"code":-32601,"message":"Method not found"}}`)
			}
			p.send(`{"jsonrpc":"2.0","id":"srv-1","result":{}}`)
			resp := p.readMsg(5 * time.Second)
			if string(resp.ID) != "7" {
				t.Fatalf("got %s, want the tools/list reply", resp.raw)
			}
			switch {
			case rootsOK && (resp.Error == nil || !strings.Contains(resp.Error.Message, "roots/list")):
				t.Errorf("a result for roots/list must turn tools/list into an error naming it; got %s", resp.raw)
			case !rootsOK && resp.Error != nil:
				t.Errorf("correct answers, yet tools/list failed: %s", resp.raw)
			}
		})
	}
}

func TestRawserverOutOfOrder(t *testing.T) {
	p := rawserver(t, "-mode", "out-of-order")
	p.initialize("2025-06-18")
	// Pipeline two requests; the later one must be answered first.
	p.send(`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`)
	p.send(`{"jsonrpc":"2.0","id":"b","method":"prompts/list"}`)
	var order []string
	for range 4 {
		m := p.readMsg(5 * time.Second)
		if m.Method != "" {
			order = append(order, "note")
			continue
		}
		if !bytes.HasPrefix(m.raw, []byte(`{"result":`)) {
			t.Errorf("reply envelope not reordered: %.80s", m.raw)
		}
		order = append(order, string(m.ID))
	}
	if want := []string{"note", `"b"`, "note", `"a"`}; !slices.Equal(order, want) {
		t.Errorf("order = %v, want %v", order, want)
	}
}

func TestRawserverHangAfterInit(t *testing.T) {
	p := rawserver(t, "-mode", "hang-after-init", "-hang-for", "30s")
	p.initialize("2025-06-18")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	p.expectSilence(300 * time.Millisecond)
	_ = p.stdin.Close()
	select {
	case <-exited(p):
		t.Fatal("hang-after-init exited when stdin closed; it must wait to be killed")
	case <-time.After(300 * time.Millisecond):
	}
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
}

func TestRawserverIgnoreSigterm(t *testing.T) {
	p := rawserver(t, "-mode", "hang-after-init", "-hang-for", "30s", "-ignore-sigterm")
	p.initialize("2025-06-18")
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited(p):
		t.Fatal("exited on SIGTERM despite -ignore-sigterm")
	case <-time.After(300 * time.Millisecond):
	}
}

// exited reports, without failing, when p's process is gone: signal 0
// fails once it has exited (it may linger as a zombie until the cleanup's
// Wait, so also look at /proc).
func exited(p *proc) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for !gone(p.cmd.Process.Pid) {
			time.Sleep(20 * time.Millisecond)
		}
		close(ch)
	}()
	return ch
}

// gone reports whether pid no longer runs: it does not exist, or it is a
// zombie waiting to be reaped (which, for a reparented grandchild inside a
// container, may never happen).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// The state follows the parenthesised command name.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

func TestRawserverGrandchild(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	p := rawserver(t, "-mode", "grandchild", "-pidfile", pidfile, "-hang-for", "60s")
	p.initialize("2025-06-18")
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("pidfile not written by the time initialize was answered: %v", err)
	}
	gpid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || gpid == p.cmd.Process.Pid {
		t.Fatalf("pidfile holds %q", b)
	}
	t.Cleanup(func() { _ = syscall.Kill(gpid, syscall.SIGKILL) })
	if pgid, err := syscall.Getpgid(gpid); err != nil || pgid != p.cmd.Process.Pid {
		t.Fatalf("grandchild pgid = %d (%v), want the server's group %d", pgid, err, p.cmd.Process.Pid)
	}

	for _, method := range []string{"tools/list", "resources/list", "prompts/list"} {
		if resp, _ := p.call(method, ""); resp.Error != nil {
			t.Fatalf("%s: %s", method, resp.raw)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":50,"method":"ping"}`)
	p.expectSilence(200 * time.Millisecond)
	_ = p.stdin.Close()
	select {
	case <-exited(p):
		t.Fatal("server exited when stdin closed; it must hang after prompts/list")
	case <-time.After(300 * time.Millisecond):
	}

	// What the capture client is expected to do: kill the whole group.
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !gone(gpid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d survived the group kill", gpid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stdioTools lists tools over stdio with the raw client, following cursors,
// and returns each page's raw result.
func stdioTools(t *testing.T, bin string, args ...string) (pages []json.RawMessage, names []string) {
	t.Helper()
	p := startRaw(t, bin, nil, args...)
	p.initialize("2025-06-18")
	cursor := ""
	for range 100 {
		page, resp := p.toolsPage(cursor)
		if page == nil {
			t.Fatalf("tools/list: %s", resp.raw)
		}
		pages = append(pages, resp.Result)
		names = append(names, toolNames(page)...)
		if cursor = page.NextCursor; cursor == "" {
			return pages, names
		}
	}
	t.Fatal("more than 100 pages")
	return nil, nil
}

func TestSDKServerSchemasAreSentVerbatim(t *testing.T) {
	bin := testserver.Build(t, sdkPkg)
	pages, names := stdioTools(t, bin)
	if len(pages) != 1 || !slices.Equal(names, []string{"list_dir", "read_file", "search"}) {
		t.Fatalf("got %d pages with %v", len(pages), names)
	}
	for _, want := range []string{
		`"description":"Read the contents of a file from disk."`,
		// Key order as written in the source, not sorted: the raw schema
		// reached the wire untouched.
		`"inputSchema":{"type":"object","properties":{"query":{"type":"string","maxLength":200},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]}`,
		`"outputSchema":{"type":"object","properties":{"results":{"type":"array","items":{"type":"string"}}},"required":["results"]}`,
		`"readOnlyHint":true`,
	} {
		if !bytes.Contains(pages[0], []byte(want)) {
			t.Errorf("tools/list lacks %s:\n%s", want, pages[0])
		}
	}
}

func TestSDKServerMutated(t *testing.T) {
	bin := testserver.Build(t, sdkPkg)
	pages, names := stdioTools(t, bin, "-variant", "mutated")
	if !slices.Equal(names, []string{"exec_command", "list_dir", "read_file", "search"}) {
		t.Errorf("tools = %v", names)
	}
	for _, want := range []string{`"maximum":1000`, `"required":["command"]`} {
		if !bytes.Contains(pages[0], []byte(want)) {
			t.Errorf("mutated tools/list lacks %s", want)
		}
	}
	if bytes.Contains(pages[0], []byte(`"description":"Read the contents of a file from disk."`)) {
		t.Error("read_file description unchanged in the mutated variant")
	}
	_, resources, _ := listAll(t, &mcp.CommandTransport{Command: exec.Command(bin, "-variant", "mutated")})
	if len(resources) != 0 {
		t.Errorf("mutated variant still lists resources %v", resources)
	}
}

func TestSDKServerPagination(t *testing.T) {
	bin := testserver.Build(t, sdkPkg)
	pages, names := stdioTools(t, bin, "-tools", "1000", "-page-size", "100")
	if len(pages) != 10 || len(names) != 1000 {
		t.Fatalf("got %d tools over %d pages, want 1000 over 10", len(names), len(pages))
	}
	for i, n := range names {
		if want := fmt.Sprintf("tool_%04d", i+1); n != want {
			t.Fatalf("tool %d is %s, want %s", i, n, want)
		}
	}
}

func TestDemoServer(t *testing.T) {
	bin := testserver.Build(t, demoPkg)
	first, names := stdioTools(t, bin)
	if !slices.Equal(names, []string{"create_note", "get_weather", "search_docs"}) {
		t.Errorf("tools = %v", names)
	}
	second, _ := stdioTools(t, bin)
	if !bytes.Equal(first[0], second[0]) {
		t.Errorf("two runs differ:\n%s\n%s", first[0], second[0])
	}
	mutated, names := stdioTools(t, bin, "-mutate")
	if !slices.Equal(names, []string{"create_note", "delete_note", "get_weather", "search_docs"}) {
		t.Errorf("mutated tools = %v", names)
	}
	if !bytes.Contains(mutated[0], []byte(`"enum":["metric","imperial","kelvin"]`)) {
		t.Errorf("mutated get_weather.units not widened:\n%s", mutated[0])
	}
	_, resources, prompts := listAll(t, &mcp.CommandTransport{Command: exec.Command(bin)})
	if !slices.Equal(resources, []string{"notes-index"}) || !slices.Equal(prompts, []string{"daily_briefing"}) {
		t.Errorf("resources %v, prompts %v", resources, prompts)
	}
}

func TestStartHTTPServerExitsWithStdin(t *testing.T) {
	// The HTTP fixtures tie their life to stdin so that a dead test process
	// cannot leak them: check that from the outside.
	bin := testserver.Build(t, sdkPkg)
	for _, flag := range []string{"-http", "-sse"} {
		p := startRaw(t, bin, nil, flag, "127.0.0.1:0")
		if line := p.readLine(10 * time.Second); !strings.HasPrefix(string(line), "http://127.0.0.1:") {
			t.Fatalf("%s: first line = %q", flag, line)
		}
		_ = p.stdin.Close()
		if code := p.wait(5 * time.Second); code != 0 {
			t.Errorf("%s: exit code after stdin closed = %d, want 0", flag, code)
		}
	}
}

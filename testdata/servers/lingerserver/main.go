// Command lingerserver is a minimal MCP server on stdio that answers
// normally but does not exit when its stdin closes: it then sleeps for ten
// minutes, ignoring SIGTERM, SIGINT and SIGHUP, and so does a child it
// starts at once in a session of its own (setsid), outside its process
// group. warden's capture tests and benchmarks use it to check that a
// successful capture ends such a server, and its whole tree, as soon as the
// last answer is in, instead of waiting for it to exit.
//
// Usage:
//
//	lingerserver [-pidfile PATH] [-answers PATH] [-term-parent-after METHOD [-term-grace D]]
//
// -pidfile writes the server's pid and its child's, one a line, before the
// first request is read. -answers appends, just before each reply is
// written, the time as Unix nanoseconds, one a line: its last line is a
// moment at or just before the last answer left the server.
// -term-parent-after sends SIGTERM to the server's parent (warden) right
// after it has answered METHOD: a signal that arrives once the answers are
// in, before warden writes anything. With -term-grace the server also
// declares resources and prompts and answers nothing for D after the
// signal: the capture is still being read when warden handles it, however
// late a loaded machine lets its signal goroutine run (without it, warden
// may write its lock before it has seen the signal).
//
// It answers initialize, ping and the three list methods (one tool, no
// resources or prompts), answers any other request with -32601 and ignores
// notifications.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// linger is how long the server and its child outlive their stdin.
const linger = 10 * time.Minute

// request is the part of an incoming JSON-RPC message the server needs.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
}

func main() {
	child := flag.Bool("child", false, "run as the lingering child (internal)")
	pidfile := flag.String("pidfile", "", "write the server's and its child's pids to this file")
	answers := flag.String("answers", "", "append the time of each reply to this file")
	termAfter := flag.String("term-parent-after", "", "send SIGTERM to the parent once this method is answered")
	termGrace := flag.Duration("term-grace", 0, "after the signal, declare every list and answer nothing for this long")
	flag.Parse()
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if *child {
		time.Sleep(linger)
		return
	}
	kid := exec.Command(os.Args[0], "-child")
	kid.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := kid.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "lingerserver: starting the child:", err)
		os.Exit(1)
	}
	if *pidfile != "" {
		pids := fmt.Sprintf("%d\n%d\n", os.Getpid(), kid.Process.Pid)
		if err := os.WriteFile(*pidfile, []byte(pids), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "lingerserver:", err)
			os.Exit(1)
		}
	}
	var log *os.File
	if *answers != "" {
		f, err := os.OpenFile(*answers, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "lingerserver:", err)
			os.Exit(1)
		}
		log = f
	}
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	var signalled time.Time
	for in.Scan() {
		if !signalled.IsZero() {
			time.Sleep(time.Until(signalled.Add(*termGrace)))
		}
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil || len(req.ID) == 0 || req.Method == "" {
			continue // notifications, responses and noise need no answer
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{
				"protocolVersion": req.Params.ProtocolVersion,
				"capabilities":    capabilities(*termGrace > 0),
				"serverInfo":      map[string]any{"name": "warden-lingerserver", "version": "1.0.0"},
			}
		case "ping":
			result = map[string]any{}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{
				"name":        "wait",
				"description": "Wait for a while.",
				"inputSchema": map[string]any{"type": "object"},
			}}}
		case "resources/list":
			result = map[string]any{"resources": []any{}}
		case "prompts/list":
			result = map[string]any{"prompts": []any{}}
		default:
			reply(out, log, map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			continue
		}
		reply(out, log, map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		if *termAfter != "" && req.Method == *termAfter {
			_ = syscall.Kill(os.Getppid(), syscall.SIGTERM)
			signalled = time.Now()
		}
	}
	// stdin is closed: a well-behaved server would exit here.
	time.Sleep(linger)
}

// capabilities are the server's: tools, and with all the other lists too.
func capabilities(all bool) map[string]any {
	c := map[string]any{"tools": map[string]any{}}
	if all {
		c["resources"], c["prompts"] = map[string]any{}, map[string]any{}
	}
	return c
}

// reply notes the time in log, if there is one, then writes msg.
func reply(out *bufio.Writer, log *os.File, msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		os.Exit(1)
	}
	if log != nil {
		_, _ = log.WriteString(strconv.FormatInt(time.Now().UnixNano(), 10) + "\n")
	}
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

// Command probeserver is a 2025-era MCP server whose answer to the
// server/discover probe of a dual-era client is a script: the exact bytes of
// a file, sent over stdio or over Streamable HTTP alike. warden's capture
// tests run one table of replies against both transports, so that the two
// agree on which replies mean "a 2025-era server" and which are malformed and
// must fail the capture: duplicate keys, a reply over the message limit, both
// result and error, an error whose id is null, a flood of notifications or
// pings before the reply, a reply cut off by the process exiting.
//
// Usage:
//
//	probeserver -reply FILE [-requests PATH] [-exit-after-reply] [-http ADDR [-events]]
//
// The reply file is sent as it is, with every "$ID" replaced by the probe's
// id as it arrived (raw JSON). Over stdio its bytes go to stdout unchanged, so
// the file holds the newlines that frame its messages; -exit-after-reply
// makes the process exit right after writing them (a reply cut off, or, with
// an empty file, a server that exits on the probe). Over HTTP (-http ADDR,
// the URL of the endpoint /mcp printed as the first stdout line, exit on
// stdin EOF, as testserver.StartHTTP expects) the file is the body of a 200
// application/json answer, or with -events an event stream with one message
// event per non-empty line.
//
// Every other request is served as a small, clean 2025-era server: initialize
// (protocolVersion 2025-11-25, an Mcp-Session-Id over HTTP), ping, one tool,
// no resources, no prompts; unknown methods get -32601. Responses from the
// client (answers to the pings of a flood) are read and ignored.
//
// -requests PATH appends the method of every request and notification
// received, one per line, and over stdio a line "spawn" when the process
// starts, so that a test can tell whether initialize followed the probe and
// on how many processes.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
)

// message is the part of a JSON-RPC message this server reads.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// server holds the flags and the request log.
type server struct {
	reply     []byte
	exitAfter bool
	events    bool
	mu        sync.Mutex
	logPath   string
}

func main() {
	replyPath := flag.String("reply", "", "file holding the answer to server/discover ($ID is the probe's id)")
	requests := flag.String("requests", "", "append received methods to this file")
	exitAfter := flag.Bool("exit-after-reply", false, "stdio: exit right after writing the reply")
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	events := flag.Bool("events", false, "HTTP: send the reply as an event stream, one event per line")
	flag.Parse()
	reply, err := os.ReadFile(*replyPath)
	if err != nil {
		log.Fatal(err)
	}
	s := &server{reply: reply, exitAfter: *exitAfter, events: *events, logPath: *requests}
	if *addr != "" {
		s.serveHTTP(*addr)
		return
	}
	s.logLine("spawn")
	s.serveStdio()
}

// logLine appends one line to the request log, if there is one.
func (s *server) logLine(line string) {
	if s.logPath == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(s.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		log.Fatal(err)
	}
}

// scripted is the reply file with the probe's id in place of every $ID.
func (s *server) scripted(id json.RawMessage) []byte {
	return bytes.ReplaceAll(s.reply, []byte("$ID"), id)
}

// serveStdio reads requests on stdin in one goroutine, so that a client
// answering a flood of pings never blocks on a full pipe while the flood is
// still being written, and answers them in order on stdout.
func (s *server) serveStdio() {
	out := bufio.NewWriter(os.Stdout)
	reqs := make(chan message)
	go func() {
		defer close(reqs)
		in := bufio.NewReader(os.Stdin)
		for {
			line, err := in.ReadBytes('\n')
			if err != nil {
				return
			}
			var m message
			if json.Unmarshal(line, &m) != nil || m.Method == "" {
				continue // a response to one of our pings, or noise
			}
			s.logLine(m.Method)
			reqs <- m
		}
	}()
	for m := range reqs {
		if m.ID == nil {
			continue
		}
		if m.Method == "server/discover" {
			_, _ = out.Write(s.scripted(m.ID))
			_ = out.Flush()
			if s.exitAfter {
				os.Exit(0)
			}
			continue
		}
		_, _ = out.Write(append(answer(m), '\n'))
		_ = out.Flush()
	}
}

// answer is the clean 2025-era server's reply to a request.
func answer(m message) []byte {
	var result string
	switch m.Method {
	case "initialize":
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"probeserver","version":"1.0.0"}}`
	case "ping":
		result = `{}`
	case "tools/list":
		result = `{"tools":[{"name":"echo","description":"Echo.","inputSchema":{"type":"object"}}]}`
	case "resources/list":
		result = `{"resources":[]}`
	case "prompts/list":
		result = `{"prompts":[]}`
	default:
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
}

// serveHTTP serves /mcp until stdin reaches EOF.
func (s *server) serveHTTP(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", s.handle)
	go func() { log.Fatal(http.Serve(ln, mux)) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		return
	case http.MethodPost:
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var m message
	if json.Unmarshal(body, &m) != nil || m.Method == "" {
		w.WriteHeader(http.StatusAccepted) // an answer to a ping
		return
	}
	s.logLine(m.Method)
	switch {
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "server/discover" && s.events:
		w.Header().Set("Content-Type", "text/event-stream")
		for _, line := range strings.Split(string(s.scripted(m.ID)), "\n") {
			if line != "" {
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", line)
			}
		}
	case m.Method == "server/discover":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.scripted(m.ID))
	default:
		if m.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", "probeserver-session")
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer(m))
	}
}

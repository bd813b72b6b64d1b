// Command rawhttp is a hand-written MCP server over HTTP, standard library
// only, that lets warden's capture tests exercise the HTTP transports in ways
// the official SDK server does not: replies as plain JSON or as event
// streams that carry notifications, server-to-client requests, priming
// events, comments, CRLF line endings and multi-line data before the reply;
// the legacy HTTP+SSE transport only; an endpoint on another origin; a
// session the server forgets; a reply stream that ends without the reply.
//
// Usage:
//
//	rawhttp [-mode NAME] -http ADDR
//
// It prints the URL of its MCP endpoint (path /mcp) as the first stdout line
// and exits when stdin reaches EOF, like sdkserver, so that
// testserver.StartHTTP can run it. Besides /mcp it serves:
//
//	GET /log       the requests received so far, as a JSON array, so that a
//	               test can check the headers the client sent
//	ANY /redirect  a 307 redirect to /mcp (same origin)
//
// Modes:
//
//	json                 Streamable HTTP, every reply application/json
//	sse                  Streamable HTTP, every reply an event stream; before
//	                     the tools/list reply it sends a notification, a ping
//	                     (id "srv-1") and a roots/list request (id "srv-2"),
//	                     waits for the client's answers and turns the reply
//	                     into an error if they are wrong
//	legacy               POST /mcp answers 405; GET /mcp is a 2024-11-05
//	                     event stream whose endpoint event is relative
//	legacy-cross-origin  like legacy, but the endpoint is on another host
//	session-lost         answers 404 to every request after initialize
//	no-reply             the tools/list event stream ends without the reply
//	                     (after a priming event, but GET is not allowed, so
//	                     the stream cannot be resumed)
//	resumable            the tools/list event stream ends after a priming
//	                     event with id and retry; the reply is served to a
//	                     GET carrying that Last-Event-ID (2025-11-25 polling)
package main

import (
	"bufio"
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
	"time"
)

const (
	sessionID = "rawhttp-session-1"
	tools     = `{"tools":[{"name":"echo","description":"Echo the input text back.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`
	resources = `{"resources":[{"uri":"mem://greeting","name":"greeting","mimeType":"text/plain"}]}`
	prompts   = `{"prompts":[{"name":"greet","arguments":[{"name":"who","required":true,"title":null}]}]}`
)

// message is any JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// entry is one logged request.
type entry struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	RPC         string `json:"rpc,omitempty"`
	Accept      string `json:"accept,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Session     string `json:"session,omitempty"`
	Protocol    string `json:"protocol,omitempty"`
	Token       string `json:"token,omitempty"`
}

type server struct {
	mode string

	mu      sync.Mutex
	log     []entry
	version string
	// answers receives the client's responses to server requests, by id.
	answers map[string]chan message
	// legacy is the open legacy event stream's outbox.
	legacy chan []byte
	// parked holds replies withheld from a closed stream, by the event id a
	// resuming GET must present.
	parked map[string][]byte
}

func main() {
	mode := flag.String("mode", "json", "behaviour; see the package documentation")
	addr := flag.String("http", "127.0.0.1:0", "listen address")
	flag.Parse()
	switch *mode {
	case "json", "sse", "legacy", "legacy-cross-origin", "session-lost", "no-reply", "resumable":
	default:
		log.Fatalf("rawhttp: unknown -mode %q", *mode)
	}
	s := &server{mode: *mode, answers: map[string]chan message{}, legacy: make(chan []byte, 16), parked: map[string][]byte{}}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("rawhttp: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", s.serveMCP)
	mux.HandleFunc("/messages", s.serveLegacyPost)
	mux.HandleFunc("/log", s.serveLog)
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		s.record(r, "")
		http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
	})
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		os.Exit(0)
	}()
	log.Fatal(http.Serve(ln, mux))
}

func (s *server) record(r *http.Request, rpc string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, entry{
		Method: r.Method, Path: r.URL.Path, RPC: rpc,
		Accept: r.Header.Get("Accept"), ContentType: r.Header.Get("Content-Type"),
		Session: r.Header.Get("Mcp-Session-Id"), Protocol: r.Header.Get("Mcp-Protocol-Version"),
		Token: r.Header.Get("X-Test-Token"),
	})
}

func (s *server) serveLog(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.log)
}

func readMessage(r *http.Request) (message, error) {
	var m message
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(body, &m)
}

func rpcName(m message) string {
	if m.Method != "" {
		return m.Method
	}
	return "response"
}

func (s *server) serveMCP(w http.ResponseWriter, r *http.Request) {
	legacy := strings.HasPrefix(s.mode, "legacy")
	switch {
	case r.Method == http.MethodGet && legacy:
		s.record(r, "")
		s.serveLegacyStream(w, r)
		return
	case r.Method == http.MethodGet && s.mode == "resumable":
		s.record(r, "resume "+r.Header.Get("Last-Event-ID"))
		s.serveResume(w, r)
		return
	case r.Method == http.MethodDelete:
		s.record(r, "")
		if r.Header.Get("Mcp-Session-Id") != sessionID {
			http.Error(w, "unknown session", http.StatusNotFound)
		}
		return
	case r.Method != http.MethodPost || legacy:
		s.record(r, "")
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	m, err := readMessage(r)
	s.record(r, rpcName(m))
	if err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/json") || !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		http.Error(w, "Accept must list application/json and text/event-stream", http.StatusNotAcceptable)
		return
	}
	if r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	if m.Method != "initialize" {
		s.mu.Lock()
		version := s.version
		s.mu.Unlock()
		if s.mode == "session-lost" && m.ID != nil && m.Method != "" {
			http.Error(w, "session expired", http.StatusNotFound)
			return
		}
		if r.Header.Get("Mcp-Session-Id") != sessionID {
			http.Error(w, "missing or wrong Mcp-Session-Id", http.StatusBadRequest)
			return
		}
		if r.Header.Get("Mcp-Protocol-Version") != version {
			http.Error(w, "missing or wrong MCP-Protocol-Version", http.StatusBadRequest)
			return
		}
	}
	switch {
	case m.Method == "" && m.ID != nil:
		s.deliverAnswer(m)
		w.WriteHeader(http.StatusAccepted)
		return
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.Method == "initialize" {
		w.Header().Set("Mcp-Session-Id", sessionID)
	}
	if s.mode == "json" || s.mode == "session-lost" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.reply(m))
		return
	}
	s.serveEventStream(w, m)
}

// reply computes the response to a request of the clean surface.
func (s *server) reply(m message) []byte {
	var result string
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		s.mu.Lock()
		s.version = p.ProtocolVersion
		s.mu.Unlock()
		result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"warden-rawhttp","version":"1.0.0"}}`, p.ProtocolVersion)
	case "tools/list":
		result = tools
	case "resources/list":
		result = resources
	case "prompts/list":
		result = prompts
	default:
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
}

// serveEventStream answers a request with an event stream: a priming event,
// a comment, a notification, for tools/list the server requests, and the
// reply, split over two data lines with CRLF line endings.
func (s *server) serveEventStream(w http.ResponseWriter, m message) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	fmt.Fprint(w, "id: prime-1\nretry: 500\ndata:\n\n: keep-alive comment\n\n")
	fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hello\"}}\n\n")
	flusher.Flush()
	reply := s.reply(m)
	if m.Method == "tools/list" {
		switch s.mode {
		case "no-reply":
			return
		case "resumable":
			s.mu.Lock()
			s.parked["tools-1"] = reply
			s.mu.Unlock()
			fmt.Fprint(w, "id: tools-1\nretry: 20\ndata:\n\n")
			return
		}
		reply = s.askClient(w, flusher, m, reply)
	}
	half := len(reply) / 2
	for half < len(reply) && reply[half] != ',' {
		half++
	}
	fmt.Fprintf(w, "id: reply-%s\r\nevent: message\r\ndata: %s\r\ndata: %s\r\n\r\n", m.ID, reply[:half], reply[half:])
	flusher.Flush()
}

// askClient sends a ping and a roots/list request on the stream and waits
// for the answers, which arrive as separate POSTs. A wrong answer turns the
// reply into an error that says why.
func (s *server) askClient(w io.Writer, flusher http.Flusher, m message, reply []byte) []byte {
	want := map[string]chan message{"srv-1": make(chan message, 1), "srv-2": make(chan message, 1)}
	s.mu.Lock()
	for id, ch := range want {
		s.answers[id] = ch
	}
	s.mu.Unlock()
	fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n")
	fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-2\",\"method\":\"roots/list\",\"params\":{}}\n\n")
	flusher.Flush()
	var problems []string
	for _, id := range []string{"srv-1", "srv-2"} {
		select {
		case a := <-want[id]:
			switch {
			case id == "srv-1" && (a.Error != nil || string(a.Result) != "{}"):
				problems = append(problems, "ping answered wrongly")
			case id == "srv-2" && a.Error == nil:
				problems = append(problems, "roots/list answered without an error")
			}
		case <-time.After(10 * time.Second):
			problems = append(problems, id+" never answered")
		}
	}
	if len(problems) > 0 {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%q}}`, m.ID, strings.Join(problems, "; "))
	}
	return reply
}

func (s *server) deliverAnswer(m message) {
	var id string
	_ = json.Unmarshal(m.ID, &id)
	s.mu.Lock()
	ch := s.answers[id]
	delete(s.answers, id)
	s.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

// serveLegacyStream is the 2024-11-05 transport's GET: an endpoint event,
// then every reply as a message event.
func (s *server) serveLegacyStream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	endpoint := "/messages?session=legacy-1"
	if s.mode == "legacy-cross-origin" {
		endpoint = "http://elsewhere.invalid/messages?session=legacy-1"
	}
	fmt.Fprintf(w, ": legacy stream\n\nevent: endpoint\ndata: %s\n\n", endpoint)
	flusher.Flush()
	for {
		select {
		case b := <-s.legacy:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
			flusher.Flush()
		case <-r.Context().Done():
			return
		}
	}
}

func (s *server) serveLegacyPost(w http.ResponseWriter, r *http.Request) {
	m, err := readMessage(r)
	s.record(r, rpcName(m))
	if err != nil || r.URL.Query().Get("session") != "legacy-1" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	if m.Method != "" && m.ID != nil {
		s.legacy <- s.reply(m)
	}
}

// serveResume answers a GET that resumes a closed stream with the parked
// reply for its Last-Event-ID.
func (s *server) serveResume(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Mcp-Session-Id") != sessionID || !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		http.Error(w, "bad resume request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	reply, ok := s.parked[r.Header.Get("Last-Event-ID")]
	delete(s.parked, r.Header.Get("Last-Event-ID"))
	s.mu.Unlock()
	if !ok {
		http.Error(w, "nothing to resume", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "id: tools-2\nevent: message\ndata: %s\n\n", reply)
}

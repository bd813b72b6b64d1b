// Command rawhttp is a hand-written MCP server over HTTP, standard library
// only, that lets warden's capture tests exercise the HTTP transports in ways
// the official SDK server does not: replies as plain JSON or as event
// streams that carry notifications, server-to-client requests, priming
// events, comments, CRLF line endings and multi-line data before the reply;
// the legacy HTTP+SSE transport only; an endpoint on another origin; a
// session the server forgets; a reply stream that ends without the reply.
// It also plays what a dual-era client meets when it probes with
// server/discover (protocol revision 2026-07-28): a modern-only endpoint,
// outages and auth failures that are not legacy evidence, a legacy server
// that answers -32022, and a reply that is not JSON at all.
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
//	               test can check the headers the client sent: besides the
//	               named ones (see entry), "mcpMethod" is the Mcp-Method
//	               header, "meta" the body's params._meta as sent, and
//	               "headers" every request header (canonical names); every
//	               mode logs every request to /mcp
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
//
// Modes for the 2026-07-28 era probe (server/discover):
//
//	modern               modern-only Streamable HTTP (2026-07-28), so that a
//	                     test can prove the client speaks it exactly: POST
//	                     only (GET and DELETE answer 405, Allow: POST), no
//	                     sessions, replies application/json. A notification
//	                     (or a response) gets 202. A request is checked in
//	                     this order, every failure a JSON-RPC error in the
//	                     body: initialize, or no params._meta, gets 400
//	                     -32022 with data.supported ["2026-07-28"] (and
//	                     data.requested when a version was asked for); a
//	                     _meta without the version string or without an
//	                     object clientCapabilities gets 400 -32602, one with
//	                     another version 400 -32022; an MCP-Protocol-Version
//	                     or Mcp-Method header that differs from the body gets
//	                     400 -32020; any Mcp-Session-Id header gets 400
//	                     -32600 "unexpected session id"; an Accept without
//	                     both application/json and text/event-stream gets
//	                     406. Then server/discover answers a DiscoverResult
//	                     (capabilities: tools only), tools/list the tools
//	                     page with resultType, ttlMs, cacheScope and _meta,
//	                     and anything else (resources/list, prompts/list)
//	                     404 with -32601 "Method not found"
//	modern-lists-404     like modern, but server/discover advertises resources
//	                     and prompts too, which still answer 404 with -32601:
//	                     a list the server does not serve is empty, as in the
//	                     2025 era, not a failure and not legacy evidence
//	modern-sse           like modern, but every 200 reply is an event stream:
//	                     a ": keep-alive" comment, a notifications/message
//	                     event, then the response event (errors stay JSON)
//	discover-500         every POST answers 500 with an empty body: an outage
//	                     is not legacy evidence
//	discover-401         every POST answers 401 with WWW-Authenticate: Bearer
//	                     and an empty body: an auth failure is not legacy
//	                     evidence
//	probe-32022-legacy   like json, but server/discover answers 400 with
//	                     -32022 and data.supported ["2025-11-25"]: only
//	                     legacy versions on offer means legacy
//	discover-html        like json, but server/discover answers 200 with
//	                     Content-Type text/html and "<html>hi</html>": an
//	                     unusable reply, not legacy evidence
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
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	RPC         string          `json:"rpc,omitempty"`
	Accept      string          `json:"accept,omitempty"`
	ContentType string          `json:"contentType,omitempty"`
	Session     string          `json:"session,omitempty"`
	Protocol    string          `json:"protocol,omitempty"`
	Token       string          `json:"token,omitempty"`
	McpMethod   string          `json:"mcpMethod,omitempty"`
	Meta        json.RawMessage `json:"meta,omitempty"`
	Headers     http.Header     `json:"headers,omitempty"`
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
	case "json", "sse", "legacy", "legacy-cross-origin", "session-lost", "no-reply", "resumable",
		"modern", "modern-sse", "modern-lists-404", "discover-500", "discover-401", "probe-32022-legacy", "discover-html":
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

func (s *server) record(r *http.Request, rpc string) { s.add(r, rpc, nil) }

// recordMessage logs a POST with the message it carried.
func (s *server) recordMessage(r *http.Request, m message) {
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	s.add(r, rpcName(m), p.Meta)
}

func (s *server) add(r *http.Request, rpc string, meta json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, entry{
		Method: r.Method, Path: r.URL.Path, RPC: rpc,
		Accept: r.Header.Get("Accept"), ContentType: r.Header.Get("Content-Type"),
		Session: r.Header.Get("Mcp-Session-Id"), Protocol: r.Header.Get("Mcp-Protocol-Version"),
		Token: r.Header.Get("X-Test-Token"), McpMethod: r.Header.Get("Mcp-Method"),
		Meta: meta, Headers: r.Header.Clone(),
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
	if strings.HasPrefix(s.mode, "modern") {
		s.serveModern(w, r)
		return
	}
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
	s.recordMessage(r, m)
	switch s.mode {
	case "discover-500":
		w.WriteHeader(http.StatusInternalServerError)
		return
	case "discover-401":
		w.Header().Set("WWW-Authenticate", "Bearer")
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
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
	if m.Method == "server/discover" {
		switch s.mode {
		case "probe-32022-legacy":
			writeRPCError(w, http.StatusBadRequest, m.ID, unsupported(metaVersion(m), "2025-11-25"))
			return
		case "discover-html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html>hi</html>")
			return
		}
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
	switch s.mode {
	case "json", "session-lost", "probe-32022-legacy", "discover-html":
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
	s.recordMessage(r, m)
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

// ---- the modern (2026-07-28) endpoint ----

// modernVersion is the one revision the modern modes speak.
const modernVersion = "2026-07-28"

// The _meta keys every modern request carries.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

const (
	// modernFields are the members every modern result carries besides
	// its payload, as exact bytes without the braces.
	modernFields = `"resultType":"complete","ttlMs":0,"cacheScope":"private",` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"warden-rawhttp","version":"1.0.0"}}`
	modernDiscover = `{"supportedVersions":["` + modernVersion + `"],"capabilities":{"tools":{"listChanged":true}},` +
		`"instructions":"raw modern fixture",` + modernFields + `}`
	modernTools = `{"tools":[{"name":"echo","description":"Echo the input text back.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}],` +
		modernFields + `}`
	// progress is the notification a modern-sse stream carries before the
	// response.
	progress = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"rawhttp","data":"working"}}`
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// writeRPCError answers with status and a JSON-RPC error response; a
// missing id is sent as null.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, e *rpcError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, body)
}

// unsupported is the -32022 UnsupportedProtocolVersion error, naming the
// requested version when there is one.
func unsupported(requested string, supported ...string) *rpcError {
	data := map[string]any{"supported": supported}
	shown := "(none)"
	if requested != "" {
		data["requested"] = requested
		shown = requested
	}
	return &rpcError{Code: -32022, Message: "Unsupported protocol version: " + shown, Data: data}
}

// metaVersion returns params._meta's protocol version, or "".
func metaVersion(m message) string {
	var p struct {
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Meta.Version
}

// checkModern returns the error a modern-only server answers to the
// request m, or nil if m is a modern request: see the modern mode above.
func checkModern(m message) *rpcError {
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Meta            json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if m.Method == "initialize" {
		return unsupported(p.ProtocolVersion, modernVersion)
	}
	if len(p.Meta) == 0 || string(p.Meta) == "null" {
		return unsupported("", modernVersion)
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p.Meta, &meta) != nil || meta == nil {
		return &rpcError{Code: -32602, Message: "Invalid params: _meta must be an object"}
	}
	var version string
	if json.Unmarshal(meta[metaProtocolVersion], &version) != nil || version == "" {
		return &rpcError{Code: -32602, Message: "Invalid params: _meta lacks " + metaProtocolVersion}
	}
	if version != modernVersion {
		return unsupported(version, modernVersion)
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(meta[metaClientCapabilities], &caps) != nil || caps == nil {
		return &rpcError{Code: -32602, Message: "Invalid params: _meta lacks " + metaClientCapabilities + " (an object)"}
	}
	return nil
}

// serveModern is /mcp in the modes modern and modern-sse.
func (s *server) serveModern(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.record(r, "")
		w.Header().Set("Allow", "POST")
		writeRPCError(w, http.StatusMethodNotAllowed, nil, &rpcError{Code: -32000, Message: "Method not allowed."})
		return
	}
	m, err := readMessage(r)
	s.recordMessage(r, m)
	switch {
	case err != nil:
		writeRPCError(w, http.StatusBadRequest, nil, &rpcError{Code: -32700, Message: "Parse error"})
		return
	case m.Method == "" && m.ID == nil:
		writeRPCError(w, http.StatusBadRequest, nil, &rpcError{Code: -32600, Message: "Invalid Request"})
		return
	case m.Method == "" || m.ID == nil:
		// A notification, or a response (a modern server sends no requests).
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if e := checkModern(m); e != nil {
		writeRPCError(w, http.StatusBadRequest, m.ID, e)
		return
	}
	if v, method := r.Header.Get("Mcp-Protocol-Version"), r.Header.Get("Mcp-Method"); v != modernVersion || method != m.Method {
		writeRPCError(w, http.StatusBadRequest, m.ID, &rpcError{Code: -32020, Message: fmt.Sprintf(
			"Header mismatch: MCP-Protocol-Version %q and Mcp-Method %q must be %q and %q, as in the body", v, method, modernVersion, m.Method)})
		return
	}
	if len(r.Header.Values("Mcp-Session-Id")) > 0 {
		writeRPCError(w, http.StatusBadRequest, m.ID, &rpcError{Code: -32600, Message: "unexpected session id"})
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/json") || !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		writeRPCError(w, http.StatusNotAcceptable, m.ID, &rpcError{Code: -32600, Message: "Not Acceptable: Accept must list application/json and text/event-stream"})
		return
	}
	var result string
	switch m.Method {
	case "server/discover":
		result = modernDiscover
		if s.mode == "modern-lists-404" {
			// It advertises every list, and then does not serve two.
			result = strings.Replace(modernDiscover, `"capabilities":{"tools":{"listChanged":true}}`,
				`"capabilities":{"tools":{"listChanged":true},"resources":{},"prompts":{}}`, 1)
		}
	case "tools/list":
		result = modernTools
	default:
		writeRPCError(w, http.StatusNotFound, m.ID, &rpcError{Code: -32601, Message: "Method not found"})
		return
	}
	reply := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	if s.mode != "modern-sse" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(reply)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	fmt.Fprint(w, ": keep-alive\n\n")
	fmt.Fprintf(w, "event: message\ndata: %s\n\n", progress)
	flusher.Flush()
	fmt.Fprintf(w, "event: message\ndata: %s\n\n", reply)
}

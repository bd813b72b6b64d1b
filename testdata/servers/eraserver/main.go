// Command eraserver is an MCP server for every path a server takes when it
// migrates from the 2025 era (initialize) to revision 2026-07-28
// (server/discover, _meta on every request, no session). It speaks raw
// JSON-RPC, over stdio or streamable HTTP, and declares one fixed surface
// whose item objects are the same bytes in both eras, so that a lock pinned
// in one era must check clean in the other: any drift a test sees is the
// negotiation's fault, never the fixture's.
//
// Usage:
//
//	eraserver [-era dual|modern|legacy] [-refuse-initialize SHAPE]
//	          [-unknown error|silent|exit] [-lists tools,resources,prompts]
//	          [-start-delay D] [-first-start-delay D] [-first-answer-delay D]
//	          [-marker PATH] [-requests PATH] [-http ADDR]
//	          [-refuse-discover N] [-unadvertised error|empty|silent|items]
//
// -era chooses the eras served. modern serves only 2026-07-28: server/discover
// answers a DiscoverResult, and every other request must carry params._meta
// with the protocol version (-32022 with data.supported and data.requested
// for another version, -32602 without the version or the clientCapabilities
// object). legacy serves only 2025-11-25. dual (the default) serves both,
// never mixed: the first request of a process (over HTTP, of a session)
// decides. server/discover, or any request with a modern _meta, makes it
// modern for life (initialize then answers -32022); initialize makes it
// legacy for life (server/discover then answers -32601).
//
// -refuse-initialize (with -era modern) is how the modern-only server answers
// initialize, the ways real servers that dropped the 2025 era refuse it:
//
//	-32022         error -32022 with data.supported ["2026-07-28"] and data.requested (the default)
//	-32022-bare    error -32022 without data
//	-32020         error -32020 (a header mismatch)
//	-32601         error -32601, method not found
//	-32600         error -32600, invalid request
//	-32602         error -32602, invalid params (no _meta)
//	version        a result whose protocolVersion is "2026-07-28"
//	exit           the process exits without answering (stdio; over HTTP the
//	               connection is closed without an answer)
//	initialized-400  HTTP only: initialize is answered as 2025-11-25 without a
//	               session, then notifications/initialized and every later
//	               2025-era request get HTTP 400, text/plain "Unsupported
//	               protocol version" (the Go SDK's stateless strict server)
//	http-404       HTTP only: 404 with an empty body to initialize and to every
//	               2025-era request
//	accept         initialize is answered as 2025-11-25, and every 2025-era
//	               request after it fails with -32600
//
// A 2025-era request to the modern-only server other than initialize (one
// without _meta) gets -32602, except where the shape says otherwise above.
// Over HTTP an error -32601 comes with status 404 and every other error of the
// modern era with 400, each with its JSON-RPC body.
//
// -unknown is how the legacy-only server answers server/discover: error
// (-32601, the default), silent (no answer; the process keeps serving) or exit
// (the process exits at once).
//
// -lists names the lists the server offers (all three by default); the
// capabilities of both eras advertise exactly those, and the others answer
// -32601.
//
// -refuse-discover N answers the first N modern server/discover requests
// with -32022 whose data.supported lists the very 2026-07-28 that was sent
// (the conformance suite's request-metadata server does this once): a
// client is to pick from the list and send again.
//
// -unadvertised is how the legacy era answers a list left out of -lists, one
// the capabilities do not advertise: error (-32601, the default), empty (the
// result {}, with no list in it), silent (no answer), or items (the list's
// items anyway, a server that serves what it never declared).
//
// Slow starters, over stdio: -start-delay D sleeps D before reading stdin at
// all (npx on a cold cache); -first-start-delay D does the same only when
// -marker PATH does not exist, creating PATH before sleeping, so that only the
// first start of a test is slow, the way npx downloads a package once and a
// restart finds it cached; -first-answer-delay D reads stdin at once but
// delays the first answer of the process by D when PATH does not exist
// (created the same way; the two first-time delays are exclusive).
//
// -http ADDR serves streamable HTTP at /mcp: the first stdout line is the
// endpoint's URL and the server exits when stdin reaches EOF, as
// internal/testserver.StartHTTP expects. Every modern request is a POST of its
// own whose MCP-Protocol-Version header must equal its _meta version and
// whose Mcp-Method header must equal its method (400 with -32020 otherwise);
// no session is issued or read. A 2025-era initialize served by the legacy or
// dual server issues an Mcp-Session-Id, which every later 2025-era request
// must carry (400 otherwise).
//
// -requests PATH appends a line "spawn" when the process starts (stdio) and
// the method of every message received, one per line, so that a test can
// count the processes a capture started and see what each was asked.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	modernVersion = "2026-07-28"
	legacyVersion = "2025-11-25"

	metaVersion = "io.modelcontextprotocol/protocolVersion"
	metaCaps    = "io.modelcontextprotocol/clientCapabilities"
	metaServer  = "io.modelcontextprotocol/serverInfo"

	serverInfo = `{"name":"warden-eraserver","version":"1.0.0"}`
	// modernFields are the result-level members of every modern result,
	// as exact bytes without the braces.
	modernFields = `"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"` + metaServer + `":` + serverInfo + `}`
)

// listItems are the items of a list, sent as these exact bytes in both
// eras; nil for a list name that is not one of the three.
func listItems(list string) []string {
	switch list {
	case "tools":
		return []string{
			`{"name":"lookup","description":"Look up a record by its id.","inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"Record id."}},"required":["id"]}}`,
			`{"name":"store","description":"Store a record.","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"body":{"type":"string","maxLength":4096}},"required":["id","body"]},"annotations":{"destructiveHint":false}}`,
		}
	case "resources":
		return []string{
			`{"uri":"mem://notes","name":"notes","description":"The stored notes.","mimeType":"text/plain"}`,
		}
	case "prompts":
		return []string{
			`{"name":"summarize","description":"Summarize the notes.","arguments":[{"name":"topic","description":"What to focus on.","required":false}]}`,
		}
	}
	return nil
}

// listNames are the three lists in the order capabilities name them.
func listNames() []string { return []string{"tools", "resources", "prompts"} }

// checkShape reports whether shape is a value of -refuse-initialize, and
// whether it needs HTTP.
func checkShape(shape string) (known, httpOnly bool) {
	switch shape {
	case "-32022", "-32022-bare", "-32020", "-32601", "-32600", "-32602", "version", "exit", "accept":
		return true, false
	case "initialized-400", "http-404":
		return true, true
	}
	return false, false
}

// config holds the flags.
type config struct {
	era, refuse, unknown string
	lists                map[string]bool
	startDelay           time.Duration
	firstStartDelay      time.Duration
	firstAnswerDelay     time.Duration
	marker, requests     string
	httpAddr             string
	refuseDiscover       int
	unadvertised         string
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("eraserver: ")
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "eraserver:", err)
		os.Exit(2)
	}
	s := &server{cfg: cfg, sessions: map[string]*state{}}
	if cfg.httpAddr == "" {
		// Logged before any delay, so that a process killed while it
		// starts is counted too.
		s.logLine("spawn")
	}
	if cfg.startDelay > 0 {
		time.Sleep(cfg.startDelay)
	}
	if cfg.firstStartDelay > 0 && firstTime(cfg.marker) {
		time.Sleep(cfg.firstStartDelay)
	}
	s.delayFirst = cfg.firstAnswerDelay > 0 && firstTime(cfg.marker)
	if cfg.httpAddr != "" {
		s.serveHTTP(cfg.httpAddr)
		return
	}
	s.serveStdio(os.Stdin, os.Stdout)
}

// parseFlags reads and checks the command line.
func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("eraserver", flag.ContinueOnError)
	// The error is printed by main as one line; the usage would bury it.
	fs.SetOutput(io.Discard)
	cfg := &config{}
	fs.StringVar(&cfg.era, "era", "dual", "eras served: dual, modern or legacy")
	fs.StringVar(&cfg.refuse, "refuse-initialize", "-32022", "with -era modern: how initialize is refused")
	fs.StringVar(&cfg.unknown, "unknown", "error", "with -era legacy: how server/discover is answered: error, silent or exit")
	lists := fs.String("lists", "tools,resources,prompts", "the lists offered, comma-separated")
	fs.DurationVar(&cfg.startDelay, "start-delay", 0, "sleep this long before reading stdin")
	fs.DurationVar(&cfg.firstStartDelay, "first-start-delay", 0, "sleep this long before reading stdin when -marker does not exist")
	fs.DurationVar(&cfg.firstAnswerDelay, "first-answer-delay", 0, "delay the first answer this long when -marker does not exist")
	fs.StringVar(&cfg.marker, "marker", "", "the file whose absence makes a start the first")
	fs.StringVar(&cfg.requests, "requests", "", "append \"spawn\" and every method received to this file")
	fs.StringVar(&cfg.httpAddr, "http", "", "serve streamable HTTP at ADDR (path /mcp) instead of stdio")
	fs.IntVar(&cfg.refuseDiscover, "refuse-discover", 0, "answer the first N server/discover requests with -32022 listing the version sent")
	fs.StringVar(&cfg.unadvertised, "unadvertised", "error", "how the legacy era answers a list not offered: error, empty, silent or items")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch cfg.era {
	case "dual", "modern", "legacy":
	default:
		return nil, fmt.Errorf("-era %q: want dual, modern or legacy", cfg.era)
	}
	switch cfg.unadvertised {
	case "error", "empty", "silent", "items":
	default:
		return nil, fmt.Errorf("-unadvertised %q: want error, empty, silent or items", cfg.unadvertised)
	}
	switch cfg.unknown {
	case "error", "silent", "exit":
	default:
		return nil, fmt.Errorf("-unknown %q: want error, silent or exit", cfg.unknown)
	}
	known, httpOnly := checkShape(cfg.refuse)
	switch {
	case !known:
		return nil, fmt.Errorf("-refuse-initialize %q is not a known shape", cfg.refuse)
	case httpOnly && cfg.httpAddr == "":
		return nil, fmt.Errorf("-refuse-initialize %s needs -http", cfg.refuse)
	case cfg.era != "modern" && flagSet(fs, "refuse-initialize"):
		return nil, errors.New("-refuse-initialize needs -era modern")
	}
	switch {
	case (cfg.firstStartDelay > 0 || cfg.firstAnswerDelay > 0) && cfg.marker == "":
		return nil, errors.New("-first-start-delay and -first-answer-delay need -marker")
	case cfg.firstStartDelay > 0 && cfg.firstAnswerDelay > 0:
		// One marker cannot say "first" twice.
		return nil, errors.New("-first-start-delay and -first-answer-delay are exclusive")
	}
	cfg.lists = map[string]bool{}
	for _, l := range strings.Split(*lists, ",") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if listItems(l) == nil {
			return nil, fmt.Errorf("-lists: unknown list %q", l)
		}
		cfg.lists[l] = true
	}
	return cfg, nil
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// firstTime reports whether marker does not exist yet, and creates it.
// Creating it before the slow part is what makes a restart fast even when
// the first process is killed while it sleeps, as a package manager's cache
// is warm for a restart once the first download has begun.
func firstTime(marker string) bool {
	if _, err := os.Stat(marker); err == nil {
		return false
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		log.Fatal(err)
	}
	return true
}

// server is the fixture's state: the flags, the request log and, over HTTP,
// the 2025-era sessions.
type server struct {
	cfg *config

	logMu sync.Mutex

	// delayFirst is set until the first answer has been delayed.
	delayMu    sync.Mutex
	delayFirst bool

	sessMu   sync.Mutex
	sessions map[string]*state
	nextSess int

	// discovers counts the server/discover requests answered, for
	// -refuse-discover.
	discoverMu sync.Mutex
	discovers  int
}

// refusesDiscover reports whether this server/discover is one of the first
// -refuse-discover ones.
func (s *server) refusesDiscover() bool {
	s.discoverMu.Lock()
	defer s.discoverMu.Unlock()
	s.discovers++
	return s.discovers <= s.cfg.refuseDiscover
}

// state is one conversation's era: a stdio process, an HTTP session, or one
// sessionless HTTP request.
type state struct {
	era string // "", "modern" or "legacy"
}

// message is a JSON-RPC message as this server reads it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Meta            map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// modernRequest reports whether m carries the modern _meta version.
func (m *message) modernRequest() bool {
	_, ok := m.Params.Meta[metaVersion]
	return ok
}

// metaVersion returns the protocol version m's _meta names, or "".
func (m *message) metaVersion() string {
	var v string
	_ = json.Unmarshal(m.Params.Meta[metaVersion], &v)
	return v
}

// outcome is what the server does with one message.
type outcome struct {
	body   []byte // the JSON-RPC reply; nil for none
	status int    // HTTP status; 0 means 200 (202 without a body)
	text   string // HTTP only: a text/plain body instead of JSON
	silent bool   // never answer
	exit   bool   // exit the process instead of answering
	drop   bool   // HTTP only: close the connection without answering
}

func (s *server) logLine(line string) {
	if s.cfg.requests == "" {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	f, err := os.OpenFile(s.cfg.requests, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		log.Fatal(err)
	}
}

// firstAnswerDelay sleeps before the process's first answer when
// -first-answer-delay asks for it.
func (s *server) firstAnswerDelay() {
	s.delayMu.Lock()
	first := s.delayFirst
	s.delayFirst = false
	s.delayMu.Unlock()
	if first {
		time.Sleep(s.cfg.firstAnswerDelay)
	}
}

// decide settles the era of a conversation on its first request.
func (s *server) decide(st *state, m *message) {
	if st.era != "" {
		return
	}
	switch {
	case s.cfg.era != "dual":
		st.era = s.cfg.era
	case m.Method == "initialize":
		st.era = "legacy"
	case m.Method == "server/discover" || m.modernRequest():
		st.era = "modern"
	}
}

// handle is the server's answer to one message on a conversation. header is
// the HTTP request's header, nil over stdio.
func (s *server) handle(st *state, m *message, header http.Header) outcome {
	s.decide(st, m)
	switch st.era {
	case "modern":
		return s.modern(st, m, header)
	case "legacy":
		return s.legacy(m)
	}
	// A dual server before its first initialize or modern request: only
	// ping is answerable, and a notification needs no answer.
	if m.ID == nil {
		return outcome{}
	}
	if m.Method == "ping" {
		return outcome{body: result(m.ID, `{}`)}
	}
	return outcome{body: rpcError(m.ID, -32600, "Invalid Request: send initialize or a request with _meta first", "")}
}

// legacy answers m as the 2025-era server.
func (s *server) legacy(m *message) outcome {
	if m.Method == "server/discover" && s.cfg.era == "legacy" {
		switch s.cfg.unknown {
		case "silent":
			return outcome{silent: true}
		case "exit":
			return outcome{exit: true}
		}
	}
	if m.ID == nil {
		return outcome{}
	}
	switch m.Method {
	case "initialize":
		return outcome{body: result(m.ID, initializeResult(legacyVersion, s.cfg.lists))}
	case "ping":
		return outcome{body: result(m.ID, `{}`)}
	}
	if list, ok := strings.CutSuffix(m.Method, "/list"); ok && listItems(list) != nil {
		switch {
		case s.cfg.lists[list] || s.cfg.unadvertised == "items":
			return outcome{body: result(m.ID, listResult(list, ""))}
		case s.cfg.unadvertised == "empty":
			return outcome{body: result(m.ID, `{}`)}
		case s.cfg.unadvertised == "silent":
			return outcome{silent: true}
		}
	}
	return outcome{body: rpcError(m.ID, -32601, "Method not found", "")}
}

// modern answers m as the modern era's server: initialize and other 2025-era
// requests by the refusal shape, modern requests after checking their _meta
// (and over HTTP their headers).
func (s *server) modern(st *state, m *message, header http.Header) outcome {
	if m.Method == "initialize" {
		return s.refuseInitialize(m)
	}
	if strings.HasPrefix(m.Method, "notifications/") {
		if m.Method == "notifications/initialized" && s.cfg.era == "modern" && s.cfg.refuse == "initialized-400" {
			return outcome{status: http.StatusBadRequest, text: "Unsupported protocol version"}
		}
		return outcome{}
	}
	if m.ID == nil {
		return outcome{}
	}
	if !m.modernRequest() {
		return s.legacyInModern(m)
	}
	if header != nil {
		if o, bad := checkHeaders(m, header); bad {
			return o
		}
	}
	if v := m.metaVersion(); v != modernVersion {
		return httpError(m.ID, -32022, "Unsupported protocol version", unsupportedData(v))
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(m.Params.Meta[metaCaps], &caps) != nil || caps == nil {
		return httpError(m.ID, -32602, "Invalid params: _meta lacks "+metaCaps, "")
	}
	switch m.Method {
	case "server/discover":
		if s.refusesDiscover() {
			return httpError(m.ID, -32022, "Unsupported protocol version", unsupportedData(modernVersion))
		}
		return outcome{body: result(m.ID, s.discoverResult())}
	case "ping":
		return outcome{body: result(m.ID, `{`+modernFields+`}`)}
	}
	if list, ok := strings.CutSuffix(m.Method, "/list"); ok && s.cfg.lists[list] {
		return outcome{body: result(m.ID, listResult(list, modernFields))}
	}
	return httpError(m.ID, -32601, "Method not found", "")
}

// checkHeaders applies the modern streamable HTTP rule: the routing headers
// must repeat the body's version and method.
func checkHeaders(m *message, header http.Header) (outcome, bool) {
	if got := header.Get("MCP-Protocol-Version"); got != m.metaVersion() {
		return httpError(m.ID, -32020, fmt.Sprintf("MCP-Protocol-Version header %q does not match _meta", got), ""), true
	}
	if got := header.Get("Mcp-Method"); got != m.Method {
		return httpError(m.ID, -32020, fmt.Sprintf("Mcp-Method header %q does not match the method", got), ""), true
	}
	return outcome{}, false
}

// refuseInitialize is the modern era's answer to initialize.
func (s *server) refuseInitialize(m *message) outcome {
	shape := s.cfg.refuse
	if s.cfg.era == "dual" {
		shape = "-32022" // a dual server's modern conversation
	}
	switch shape {
	case "-32022":
		return httpError(m.ID, -32022, "Unsupported protocol version", unsupportedData(m.Params.ProtocolVersion))
	case "-32022-bare":
		return httpError(m.ID, -32022, "Unsupported protocol version", "")
	case "-32020":
		return httpError(m.ID, -32020, "Missing MCP-Protocol-Version header", "")
	case "-32601":
		return httpError(m.ID, -32601, "Method not found: initialize", "")
	case "-32600":
		return httpError(m.ID, -32600, "Invalid Request", "")
	case "-32602":
		return httpError(m.ID, -32602, "Invalid params: _meta is required", "")
	case "version":
		return outcome{body: result(m.ID, initializeResult(modernVersion, s.cfg.lists))}
	case "initialized-400", "accept":
		return outcome{body: result(m.ID, initializeResult(legacyVersion, s.cfg.lists))}
	case "http-404":
		return outcome{status: http.StatusNotFound, text: ""}
	}
	return outcome{exit: true, drop: true}
}

// legacyInModern answers a 2025-era request other than initialize (one
// without _meta) sent to the modern-only server.
func (s *server) legacyInModern(m *message) outcome {
	switch s.cfg.refuse {
	case "initialized-400":
		return outcome{status: http.StatusBadRequest, text: "Unsupported protocol version"}
	case "http-404":
		return outcome{status: http.StatusNotFound, text: ""}
	case "-32020":
		return httpError(m.ID, -32020, "Missing MCP-Protocol-Version header", "")
	case "accept":
		return httpError(m.ID, -32600, "Invalid Request: this server speaks only "+modernVersion, "")
	case "exit":
		return outcome{exit: true, drop: true}
	}
	return httpError(m.ID, -32602, "Invalid params: _meta is required", "")
}

// discoverResult is the DiscoverResult of the era served.
func (s *server) discoverResult() string {
	versions := `["` + modernVersion + `"]`
	if s.cfg.era == "dual" {
		versions = `["` + modernVersion + `","` + legacyVersion + `"]`
	}
	return `{"supportedVersions":` + versions + `,"capabilities":` + capabilities(s.cfg.lists) + `,` + modernFields + `}`
}

// capabilities advertises exactly the lists offered.
func capabilities(lists map[string]bool) string {
	var parts []string
	for _, l := range listNames() {
		if lists[l] {
			parts = append(parts, `"`+l+`":{}`)
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func initializeResult(version string, lists map[string]bool) string {
	return `{"protocolVersion":"` + version + `","capabilities":` + capabilities(lists) + `,"serverInfo":` + serverInfo + `}`
}

// listResult is one page holding every item of list, with the modern
// result fields when extra is not empty.
func listResult(list, extra string) string {
	r := `{"` + list + `":[` + strings.Join(listItems(list), ",") + `]`
	if extra != "" {
		r += "," + extra
	}
	return r + "}"
}

// unsupportedData is -32022's data naming the modern revision.
func unsupportedData(requested string) string {
	req, _ := json.Marshal(requested)
	return `{"supported":["` + modernVersion + `"],"requested":` + string(req) + `}`
}

func result(id json.RawMessage, res string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
}

func rpcError(id json.RawMessage, code int, msg, data string) []byte {
	m, _ := json.Marshal(msg)
	if data != "" {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s,"data":%s}}`, id, code, m, data)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, m)
}

// httpError is a JSON-RPC error of the modern era, with the status a modern
// streamable HTTP server sends it with (ignored over stdio).
func httpError(id json.RawMessage, code int, msg, data string) outcome {
	status := http.StatusBadRequest
	if code == -32601 {
		status = http.StatusNotFound
	}
	return outcome{body: rpcError(id, code, msg, data), status: status}
}

// serveStdio answers newline-delimited JSON-RPC on in until it ends.
func (s *server) serveStdio(in io.Reader, out io.Writer) {
	st := &state{}
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			s.stdioLine(st, line, w)
		}
		if err != nil {
			return
		}
	}
}

// stdioLine handles one line read over stdio.
func (s *server) stdioLine(st *state, line []byte, w *bufio.Writer) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return // a response from the client, or noise
	}
	s.logLine(m.Method)
	o := s.handle(st, &m, nil)
	switch {
	case o.exit:
		os.Exit(0)
	case o.silent || o.body == nil:
		return
	}
	s.firstAnswerDelay()
	_, _ = w.Write(append(o.body, '\n'))
	_ = w.Flush()
}

// serveHTTP serves /mcp until stdin reaches EOF.
func (s *server) serveHTTP(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", s.serveMCP)
	go func() { log.Fatal(http.Serve(ln, mux)) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// serveMCP is the streamable HTTP endpoint.
func (s *server) serveMCP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		s.endSession(w, r)
		return
	default:
		w.Header().Set("Allow", "POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var m message
	if json.Unmarshal(body, &m) != nil || m.Method == "" {
		w.WriteHeader(http.StatusAccepted) // a response from the client
		return
	}
	s.logLine(m.Method)
	st, id, ok := s.conversation(&m, r.Header)
	if !ok {
		http.Error(w, "Bad Request: missing or unknown Mcp-Session-Id", http.StatusBadRequest)
		return
	}
	o := s.handle(st, &m, r.Header)
	if o.body != nil && m.Method == "initialize" && st.era == "legacy" {
		w.Header().Set("Mcp-Session-Id", s.newSession(st))
	} else if id != "" {
		w.Header().Set("Mcp-Session-Id", id)
	}
	s.writeHTTP(w, r, o)
}

// conversation finds the state an HTTP message belongs to: its 2025-era
// session when it names one; a fresh state for a sessionless request. A
// 2025-era request without a session on a server that issues sessions is
// refused (ok false).
func (s *server) conversation(m *message, header http.Header) (st *state, id string, ok bool) {
	if id = header.Get("Mcp-Session-Id"); id != "" && s.cfg.era != "modern" {
		s.sessMu.Lock()
		st = s.sessions[id]
		s.sessMu.Unlock()
		return st, id, st != nil
	}
	st = &state{}
	if s.cfg.era == "modern" || m.Method == "initialize" || m.Method == "server/discover" || m.modernRequest() {
		return st, "", true
	}
	return nil, "", false
}

// newSession registers a 2025-era session and returns its id.
func (s *server) newSession(st *state) string {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	s.nextSess++
	id := "eraserver-session-" + strconv.Itoa(s.nextSess)
	s.sessions[id] = st
	return id
}

// endSession answers DELETE: a 2025-era session ends; the modern era has
// none.
func (s *server) endSession(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	s.sessMu.Lock()
	_, ok := s.sessions[id]
	delete(s.sessions, id)
	s.sessMu.Unlock()
	if !ok {
		w.Header().Set("Allow", "POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// writeHTTP sends an outcome as an HTTP response.
func (s *server) writeHTTP(w http.ResponseWriter, r *http.Request, o outcome) {
	switch {
	case o.drop:
		dropConnection(w)
		return
	case o.exit:
		os.Exit(0)
	case o.silent:
		<-r.Context().Done()
		return
	}
	s.firstAnswerDelay()
	status := o.status
	switch {
	case o.body != nil:
		w.Header().Set("Content-Type", "application/json")
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write(o.body)
	case status != 0:
		if o.text != "" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, o.text)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// dropConnection closes the client's connection without an answer, the
// HTTP form of a process that exits mid-request. Where the connection
// cannot be taken over, http.ErrAbortHandler is net/http's own way to abort
// a response without logging a stack.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	c, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = c.Close()
}

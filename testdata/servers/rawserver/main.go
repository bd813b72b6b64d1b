// Command rawserver is a hand-written MCP server speaking newline-delimited
// JSON-RPC 2.0 on stdin/stdout, with no SDK in between. It exists so that
// warden's capture tests can make a server misbehave in exact, repeatable
// ways that no well-behaved SDK would ever produce: endless pagination,
// garbage on stdout, crashes, hangs, floods, server-to-client requests, and
// JSON whose exact bytes must survive capture. It also plays the servers a
// dual-era client meets when it probes with server/discover (protocol
// revision 2026-07-28): modern-only, dual-era, slow, silent, exiting and
// draft servers, and modern servers that get the result shapes wrong.
//
// Usage:
//
//	rawserver [-mode NAME] [-pidfile PATH] [-hang-for D] [-huge-bytes N] [-flood-bytes N] [-ignore-sigterm]
//	          [-slow-first D] [-requests PATH] [-spawnlog PATH]
//
// Run "rawserver -h" for the list of modes and why each exists; the table is
// the modes variable below. Every legacy mode answers initialize (echoing the
// client's protocol version when it is a known one) and ping, ignores
// notifications, answers unknown requests with -32601 (server/discover
// included, unless the mode says otherwise), and exits when stdin closes,
// except the deliberate hang modes, which ignore EOF and sleep for -hang-for
// so that the client has to kill them (and still end on their own if it
// never does). The modern modes (mode.modern) speak only 2026-07-28: no
// initialize (it gets -32022), server/discover, and a params._meta envelope
// required on every request (see checkModern); they too ignore
// notifications and exit when stdin closes.
//
// -requests PATH appends every line received on stdin to PATH, as received,
// one per line, in every mode, so that a test can count round trips and
// check the _meta a client sent. A line is logged when it is read, before it
// is handled, so a line pipelined behind a request that ends the process
// (exit-on-probe) may be logged too. -spawnlog PATH appends "spawn <pid>" to PATH
// at start, so that a test can count the processes a client started.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// handler answers one request. It may write any number of messages, or none.
type handler func(s *server, req *message)

// mode is one way of (mis)behaving. Unset fields mean "behave cleanly".
type mode struct {
	// why says what client behaviour the mode is there to test; -h prints it.
	why string
	// handlers override the clean handler of a method.
	handlers map[string]handler
	// beforeReply, if set, runs before answering initialize and each list
	// request (the requests a capture makes).
	beforeReply func(s *server, req *message)
	// setup, if set, runs once before the first message is read.
	setup func(s *server)
	// outOfOrder batches requests that arrive close together and answers
	// them newest first, each preceded by a notification, with the members
	// of every reply envelope in an unusual order.
	outOfOrder bool
	// hangOnEOF makes the server ignore the end of stdin and sleep for
	// -hang-for instead of exiting, from the first message on.
	hangOnEOF bool
	// modern makes the server speak only revision 2026-07-28: a request
	// must pass checkModern (initialize never does), and the base surface
	// is modernHandlers instead of cleanHandlers. handlers still override.
	// A process that firstRequest pinned to legacy is served as clean.
	modern bool
	// firstRequest, if set, sees the first request of the process before
	// it is dispatched.
	firstRequest func(s *server, req *message)
	// stringIDs makes every reply carry its request's numeric id as a
	// string (1 becomes "1").
	stringIDs bool
	// slowFirst makes the server sleep for -slow-first before it writes
	// its first message.
	slowFirst bool
}

// modes is the table of behaviours, by -mode name.
var modes = map[string]mode{
	"clean": {
		why: "a small, normal surface: the baseline every other mode departs from",
	},
	"string-ids": {
		why:       "answers every request with its numeric id turned into a string (\"1\" for 1), which is another id: the client must ignore such replies and, when it then times out, say that it got replies with ids matching no request",
		stringIDs: true,
	},
	"many-tools": {
		why:      "-tools N minimal tools over -pages P pages (a few bytes each, inside the byte and page bounds): the client must bound the items of a list and the memory they cost, not only the bytes",
		handlers: map[string]handler{"tools/list": toolsMany},
	},
	"pages300": {
		why:      "300 pages of one tool each (cursors c1..c299): the client must follow long cursor chains, or stop at its page cap with a clear error",
		handlers: map[string]handler{"tools/list": toolsPages300},
	},
	"dup-across-pages": {
		why:      "tool \"a\" on page 1 and again on page 2: the client must detect duplicate names across pages instead of silently keeping one",
		handlers: map[string]handler{"tools/list": toolsDupAcrossPages},
	},
	"cursor-loop": {
		why:      "cursors cycle c1, c2, c1, ... with fresh tool names on every page: only cursor-repeat detection or a page cap stops the client",
		handlers: map[string]handler{"tools/list": toolsCursorLoop},
	},
	"hang-after-init": {
		why:       "answers initialize, then nothing; ignores stdin EOF: the client must time out and kill the process",
		handlers:  map[string]handler{"initialize": initThenGoDeaf},
		hangOnEOF: true,
	},
	"crash-mid-list": {
		why:      "tools page 1 has a nextCursor, then the process prints \"fatal: boom\" to stderr and exits 3 on page 2: the client must report the exit status and the stderr tail",
		handlers: map[string]handler{"tools/list": toolsCrashOnPage2},
	},
	"garbage": {
		why:      "writes \"this is not json\" instead of the tools/list reply: the client must fail with a framing error, not hang or mis-parse",
		handlers: map[string]handler{"tools/list": writeGarbage},
	},
	"huge-line": {
		why:      "the tools/list reply is one valid line of about -huge-bytes (100 MiB): the client must enforce its line limit without buffering it all",
		handlers: map[string]handler{"tools/list": toolsHugeLine},
	},
	"stderr-flood": {
		why:         "writes about -flood-bytes (50 MiB) to stderr, synchronously before each reply: a client that stops draining stderr deadlocks",
		beforeReply: floodStderr,
	},
	"notify-flood": {
		why:         "sends 10,000 notifications/message before the initialize reply and before each list reply: the client must skip notifications without choking",
		beforeReply: floodNotifications,
	},
	"server-request": {
		why:      "before the tools/list reply, sends ping (id \"srv-1\") and roots/list (id \"srv-2\") and waits: the client must answer ping with {} and roots/list with an error; a wrong answer turns the tools/list reply into an error that says why",
		handlers: map[string]handler{"tools/list": toolsAfterServerRequests},
	},
	"out-of-order": {
		why:        "answers pipelined requests newest first, each after a notification, with envelope members reordered: the client must match replies by id",
		outOfOrder: true,
	},
	"grandchild": {
		why:      "spawns a grandchild (this binary, -mode sleep) that writes its PID to -pidfile and keeps stdout open, serves a clean surface, then ignores everything after prompts/list: the client must kill the whole process group",
		setup:    spawnGrandchild,
		handlers: map[string]handler{"prompts/list": promptsThenGoDeaf},
	},
	"setsid-child": {
		why:   "spawns a child (-mode sleep, writing its PID to -pidfile) in a session of its own (setsid), outside the process group, then serves a clean surface: the client must end the server's whole process tree, not only its group",
		setup: func(*server) { spawnDaemon("sleep") },
	},
	"double-fork": {
		why:   "spawns an intermediate process that starts a daemon (-mode sleep, in its own session, PID in -pidfile) and exits at once, so the daemon is orphaned before the capture even starts: only a client that is a child subreaper can end it",
		setup: func(*server) { spawnDaemon("fork-intermediate") },
	},
	"fork-intermediate": {
		why:   "internal, used by double-fork: starts -mode sleep in its own session and exits without waiting for it",
		setup: forkIntermediate,
	},
	"sleep": {
		why:   "internal, used by grandchild: writes its PID to -pidfile and sleeps for -hang-for without reading stdin",
		setup: sleepForever,
	},
	"method-not-found": {
		why: "resources/list and prompts/list answer -32601 although the capabilities are declared: the client must record \"not supported\" rather than fail",
		handlers: map[string]handler{
			"resources/list": methodNotFound,
			"prompts/list":   methodNotFound,
		},
	},
	"list-error": {
		why:      "tools/list answers -32603 \"internal\": the client must surface the server's error",
		handlers: map[string]handler{"tools/list": internalError},
	},
	"later-page-error": {
		why:      "tools page 1 is fine with a nextCursor, page 2 answers an error: the client must not lock a partial list",
		handlers: map[string]handler{"tools/list": toolsErrorOnPage2},
	},
	"bad-item": {
		why:      "tools/list holds a valid tool and one with no name ({\"description\":\"x\"}): the client must reject the malformed item",
		handlers: map[string]handler{"tools/list": toolsBadItem},
	},
	"bad-annotations": {
		why:      "a tool whose \"annotations\" is the string \"yes\": the client must reject (or flag) the non-object",
		handlers: map[string]handler{"tools/list": toolsBadAnnotations},
	},
	"raw-numbers": {
		why:      "a tool with numbers 1.0, 1e2 and 10000000000000000000000, an unknown \"x-vendor\" key, explicit nulls and a \\u escape: the client must keep the raw bytes, not round-trip them through float64 or a struct",
		handlers: map[string]handler{"tools/list": toolsRawNumbers},
	},
	"version-unsupported": {
		why:      "initialize answers protocolVersion \"1999-01-01\": the client must refuse to go on",
		handlers: map[string]handler{"initialize": initBadVersion},
	},

	// Modes for the 2026-07-28 era probe (server/discover) and what follows it.
	"modern": {
		why:    "modern-only (2026-07-28): server/discover answers a DiscoverResult; initialize, and any request without a valid _meta, answers -32022 listing [\"2026-07-28\"] (-32602 for a _meta without the version string or the clientCapabilities object); lists carry resultType/ttlMs/cacheScope/_meta, tools/list is 2 pages (cursor \"p2\"): the client must probe, stay modern and send _meta on every request",
		modern: true,
	},
	"modern-slow": {
		why:       "like modern, but sleeps -slow-first (3s) before its first reply: a short probe timeout misreads a cold modern server as silent, and its initialize then gets -32022",
		modern:    true,
		slowFirst: true,
	},
	"modern-dual": {
		why:          "a process whose first request is initialize is the clean legacy server for life (server/discover then answers -32601); any other first request makes it modern for life (initialize then answers -32022), like the TS SDK's dual mode: the client must not mix eras on one process",
		modern:       true,
		firstRequest: pinLegacyOnInitialize,
	},
	"exit-on-probe": {
		why:          "clean legacy, but a first request other than initialize makes it write \"ExpectedInitializeRequest\" to stderr and exit 1 (like rmcp servers): the client must respawn and initialize, not report a crash",
		firstRequest: exitUnlessInitialize,
	},
	"silent-probe": {
		why:      "clean legacy that never answers server/discover, yet stays alive and serves what follows: only a probe timeout gets the client past it",
		handlers: map[string]handler{"server/discover": func(*server, *message) {}},
	},
	"probe-32022-legacy": {
		why:      "clean legacy whose server/discover answers -32022 with data.supported [\"2025-11-25\",\"2025-06-18\"]: only legacy versions on offer means legacy, so the client must initialize",
		handlers: map[string]handler{"server/discover": unsupportedHandler("2025-11-25", "2025-06-18")},
	},
	"discover-no-resulttype": {
		why:    "like modern, but the DiscoverResult and the list results lack resultType, ttlMs and cacheScope (_meta stays): the client must tolerate their absence and record it",
		modern: true,
		handlers: map[string]handler{
			"server/discover": discover(modernCapabilities, serverInfoMeta),
			"tools/list":      modernTools(serverInfoMeta),
			"resources/list":  modernList(cleanResources, serverInfoMeta),
			"prompts/list":    modernList(cleanPrompts, serverInfoMeta),
		},
	},
	"discover-draft": {
		why:      "clean legacy whose server/discover answers a well-formed DiscoverResult with supportedVersions [\"DRAFT-2026-v1\"] and a top-level serverInfo, like pre-GA draft servers: no version in common, so the client must initialize",
		handlers: map[string]handler{"server/discover": draftDiscover},
	},
	"discover-malformed": {
		why:      "like modern, but the DiscoverResult's capabilities is the string \"all\": not a DiscoverResult, so not modern evidence, and initialize still answers -32022",
		modern:   true,
		handlers: map[string]handler{"server/discover": discover(`"all"`, modernFields)},
	},
	"modern-tools-only": {
		why:    "like modern, but capabilities holds only tools, and resources/list and prompts/list answer -32601: the client must gate the lists on the capabilities",
		modern: true,
		handlers: map[string]handler{
			"server/discover": discover(`{"tools":{"listChanged":true}}`, modernFields),
			"resources/list":  methodNotFound,
			"prompts/list":    methodNotFound,
		},
	},
	"modern-bad-resulttype": {
		why:      "like modern, but both tools/list pages answer \"resultType\":\"incomplete\": an unknown resultType makes a list result invalid",
		modern:   true,
		handlers: map[string]handler{"tools/list": modernTools(`"resultType":"incomplete","ttlMs":0,"cacheScope":"private",` + serverInfoMeta)},
	},
	"probe-future": {
		why: "server/discover and initialize both answer -32022 with data.supported [\"2099-01-01\"] (everything else is clean): no version in common in either era, so the client must fail",
		handlers: map[string]handler{
			"server/discover": unsupportedHandler("2099-01-01"),
			"initialize":      unsupportedHandler("2099-01-01"),
		},
	},
	"modern-resume-legacy-shape": {
		why:    "like modern for server/discover, but the list results come in legacy shape (no resultType, ttlMs, cacheScope or _meta; tools still 2 pages): a list result without resultType after a modern request is not modern",
		modern: true,
		handlers: map[string]handler{
			"tools/list":     modernTools(""),
			"resources/list": modernList(cleanResources, ""),
			"prompts/list":   modernList(cleanPrompts, ""),
		},
	},
}

// knownVersions are the protocol versions echoed back on initialize.
var knownVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// fallbackVersion is answered when the client asks for anything else.
const fallbackVersion = "2025-06-18"

var (
	flagMode          = flag.String("mode", "clean", "behaviour; see the list below")
	flagPidfile       = flag.String("pidfile", "", "grandchild/sleep: file that receives the grandchild's PID")
	flagHangFor       = flag.Duration("hang-for", 10*time.Minute, "how long the deliberate hangs last before the process gives up by itself")
	flagHugeBytes     = flag.Int64("huge-bytes", 100<<20, "huge-line: size of the gigantic description")
	flagFloodBytes    = flag.Int64("flood-bytes", 50<<20, "stderr-flood: total bytes written to stderr")
	flagIgnoreSigterm = flag.Bool("ignore-sigterm", false, "ignore SIGTERM and SIGINT, so the client has to escalate to SIGKILL")
	flagTools         = flag.Int("tools", 100000, "many-tools: how many tools to list")
	flagPages         = flag.Int("pages", 1, "many-tools: over how many pages")
	flagSlowFirst     = flag.Duration("slow-first", 3*time.Second, "modern-slow: how long to sleep before the first reply")
	flagRequests      = flag.String("requests", "", "append every line received on stdin to this file, as received (every mode)")
	flagSpawnlog      = flag.String("spawnlog", "", "append \"spawn <pid>\" to this file at start (every mode)")
	flagListError     = flag.String("list-error", os.Getenv("RAWSERVER_LIST_ERROR"), "`LIST=CODE` (every mode; default $RAWSERVER_LIST_ERROR, which leaves the launch as it is): LIST/list answers JSON-RPC error CODE, with a message quoting hostile text, like a server whose list needs a backend that is down (resources=-32603)")
)

// listErrorMessage is the message of a -list-error answer: server text
// that a report must never quote (a workflow command, terminal escapes).
const listErrorMessage = "connect ECONNREFUSED 127.0.0.1:1\n::error::forged\x1b[31m"

func main() {
	flag.Usage = usage
	flag.Parse()
	m, ok := modes[*flagMode]
	if !ok {
		fmt.Fprintf(os.Stderr, "rawserver: unknown -mode %q\n", *flagMode)
		usage()
		os.Exit(2)
	}
	if *flagIgnoreSigterm {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	}
	// Real servers chatter on stderr at start-up; so does this one, which
	// also lets tests check that the stderr tail is captured.
	fmt.Fprintf(os.Stderr, "rawserver: mode=%s pid=%d\n", *flagMode, os.Getpid())
	if *flagSpawnlog != "" {
		appendTo(*flagSpawnlog, fmt.Sprintf("spawn %d\n", os.Getpid()))
	}
	var requests io.Writer
	if *flagRequests != "" {
		f, err := os.OpenFile(*flagRequests, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fatalf("-requests: %v", err)
		}
		requests = f
	}

	s := &server{
		mode:      m,
		out:       bufio.NewWriterSize(os.Stdout, 64<<10),
		in:        readMessages(os.Stdin, requests),
		hangOnEOF: m.hangOnEOF,
	}
	if m.setup != nil {
		m.setup(s)
	}
	s.serve()
}

func usage() {
	fmt.Fprintf(os.Stderr, "usage: rawserver [flags]\n\nflags:\n")
	flag.PrintDefaults()
	fmt.Fprintf(os.Stderr, "\nmodes:\n")
	names := make([]string, 0, len(modes))
	for name := range modes {
		names = append(names, name)
	}
	sort.Strings(names)
	width := 0
	for _, name := range names {
		width = max(width, len(name))
	}
	for _, name := range names {
		fmt.Fprintf(os.Stderr, "  %-*s %s\n", width, name, modes[name].why)
	}
}

// appendTo appends text to the file at path in one write, creating it if
// need be; concurrent processes appending short lines do not interleave.
func appendTo(path, text string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err == nil {
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fatalf("%v", err)
	}
}

// message is any JSON-RPC 2.0 message; which fields are set tells its kind.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (m *message) hasID() bool     { return len(m.ID) > 0 && string(m.ID) != "null" }
func (m *message) isRequest() bool { return m.Method != "" && m.hasID() }

// cursor returns params.cursor of a list request, or "".
func (m *message) cursor() string {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Cursor
}

// readMessages decodes stdin line by line on its own goroutine, so that the
// serving loop can wait for input with a timeout (out-of-order) and so that
// a hang mode can stop reading without blocking anything. The channel is
// closed at EOF. A line that is not JSON is delivered as a message with
// Method "" and no ID, which the loop answers with a parse error. If log is
// not nil, every non-blank line is written to it, as received, before it is
// delivered (so it is there by the time its reply is).
func readMessages(r io.Reader, log io.Writer) <-chan *message {
	ch := make(chan *message, 64)
	go func() {
		defer close(ch)
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				if log != nil {
					log.Write(append(bytes.TrimRight(line, "\r\n"), '\n'))
				}
				m := new(message)
				if json.Unmarshal(line, m) != nil {
					m = &message{JSONRPC: "invalid"}
				}
				ch <- m
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// server is the state of one stdio session. Only the serving goroutine
// writes to out, so no lock is needed.
type server struct {
	mode mode
	out  *bufio.Writer
	in   <-chan *message
	// deferred holds requests that arrived while a handler was waiting for
	// the client's responses to server-initiated requests.
	deferred []*message
	// deaf makes the loop drop every further message.
	deaf      bool
	hangOnEOF bool
	// sawRequest is set once the first request has been dispatched.
	sawRequest bool
	// legacyPinned makes a modern mode serve the clean legacy surface.
	legacyPinned bool
	// wrote is set once the first message has been written.
	wrote bool
}

// next returns the next message to handle, or nil at EOF.
func (s *server) next() *message {
	if len(s.deferred) > 0 {
		m := s.deferred[0]
		s.deferred = s.deferred[1:]
		return m
	}
	return <-s.in
}

func (s *server) serve() {
	for {
		m := s.next()
		if m == nil {
			s.eof()
			return
		}
		if s.deaf {
			continue
		}
		if !s.mode.outOfOrder || !m.isRequest() {
			s.dispatch(m)
			continue
		}
		// Collect whatever else the client pipelines within a short window,
		// then answer the batch newest first.
		batch := []*message{m}
		window := time.After(50 * time.Millisecond)
	collect:
		for {
			select {
			case more, ok := <-s.in:
				if !ok {
					break collect
				}
				batch = append(batch, more)
			case <-window:
				break collect
			}
		}
		for _, req := range slices.Backward(batch) {
			if req.isRequest() {
				s.notify("notifications/message", map[string]any{
					"level": "info", "logger": "rawserver", "data": "about to answer " + string(req.ID),
				})
			}
			s.dispatch(req)
		}
		// A closed channel keeps returning nil, so EOF seen during the
		// window is noticed on the next turn of the loop.
	}
}

// eof handles the end of stdin: exit, or for the hang modes, sleep.
func (s *server) eof() {
	if s.hangOnEOF {
		time.Sleep(*flagHangFor)
	}
}

func (s *server) dispatch(m *message) {
	switch {
	case m.JSONRPC == "invalid":
		s.replyError(json.RawMessage("null"), -32700, "parse error")
	case m.Method == "":
		// A response to a request of ours that nobody waits for any more.
	case !m.hasID():
		// Notifications (notifications/initialized, cancelled, ...) need no answer.
	default:
		if s.mode.stringIDs && len(m.ID) > 0 && m.ID[0] != '"' {
			m.ID = json.RawMessage(strconv.Quote(string(m.ID)))
		}
		if !s.sawRequest {
			s.sawRequest = true
			if s.mode.firstRequest != nil {
				s.mode.firstRequest(s, m)
			}
		}
		base := cleanHandlers
		if s.mode.modern && !s.legacyPinned {
			if e := checkModern(m); e != nil {
				s.replyRPCError(m.ID, e)
				return
			}
			base = modernHandlers
		}
		if list, code, ok := strings.Cut(*flagListError, "="); ok && m.Method == list+"/list" {
			n, err := strconv.Atoi(code)
			if err != nil {
				fatalf("-list-error %q: CODE is not an integer", *flagListError)
			}
			s.replyError(m.ID, n, listErrorMessage)
			return
		}
		h := s.mode.handlers[m.Method]
		if h == nil {
			h = base[m.Method]
		}
		if h == nil {
			s.replyError(m.ID, -32601, "Method not found")
			return
		}
		if s.mode.beforeReply != nil && (m.Method == "initialize" || strings.HasSuffix(m.Method, "/list")) {
			s.mode.beforeReply(s, m)
		}
		h(s, m)
	}
}

// write sends one complete message line and flushes it.
func (s *server) write(line []byte) {
	if s.mode.slowFirst && !s.wrote {
		time.Sleep(*flagSlowFirst)
	}
	s.wrote = true
	s.out.Write(line)
	s.out.WriteByte('\n')
	s.out.Flush()
}

// marshal encodes v without HTML escaping (so "<" stays "<"), keeping
// json.RawMessage values byte for byte apart from whitespace compaction.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// reply answers a request. result may be a json.RawMessage to send exact bytes.
func (s *server) reply(id json.RawMessage, result any) {
	res, ok := result.(json.RawMessage)
	if !ok {
		res = marshal(result)
	}
	if s.mode.outOfOrder {
		s.write(fmt.Appendf(nil, `{"result":%s,"id":%s,"jsonrpc":"2.0"}`, res, id))
		return
	}
	s.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res))
}

func (s *server) replyError(id json.RawMessage, code int, msg string) {
	e := marshal(map[string]any{"code": code, "message": msg})
	if s.mode.outOfOrder {
		s.write(fmt.Appendf(nil, `{"error":%s,"id":%s,"jsonrpc":"2.0"}`, e, id))
		return
	}
	s.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, e))
}

// replyRPCError answers a request with an error object that may carry data.
func (s *server) replyRPCError(id json.RawMessage, e *rpcError) {
	s.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, marshal(e)))
}

func (s *server) notify(method string, params any) {
	s.write(marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params}))
}

// request sends a server-to-client request with a string id. A nil params
// is left out rather than sent as null, which strict clients reject.
func (s *server) request(id, method string, params any) {
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	s.write(marshal(m))
}

// await reads until the client has answered every id in ids and returns the
// responses by id. Requests that arrive meanwhile are kept for later. It
// returns nil if stdin ends first.
func (s *server) await(ids ...string) map[string]*message {
	got := map[string]*message{}
	for len(got) < len(ids) {
		m := <-s.in
		if m == nil {
			return nil
		}
		var id string
		if m.Method == "" && json.Unmarshal(m.ID, &id) == nil && slices.Contains(ids, id) {
			got[id] = m
			continue
		}
		s.deferred = append(s.deferred, m)
	}
	return got
}

// ---- the clean surface ----

var cleanHandlers = map[string]handler{
	"initialize":     initClean,
	"ping":           func(s *server, req *message) { s.reply(req.ID, json.RawMessage(`{}`)) },
	"tools/list":     func(s *server, req *message) { s.reply(req.ID, json.RawMessage(cleanTools)) },
	"resources/list": func(s *server, req *message) { s.reply(req.ID, json.RawMessage(cleanResources)) },
	"prompts/list":   func(s *server, req *message) { s.reply(req.ID, json.RawMessage(cleanPrompts)) },
}

const (
	echoTool       = `{"name":"echo","description":"Echo the input text back.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`
	addTool        = `{"name":"add","description":"Add two numbers.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]},"annotations":{"readOnlyHint":true}}`
	cleanTools     = `{"tools":[` + echoTool + `,` + addTool + `]}`
	cleanResources = `{"resources":[{"uri":"mem://greeting","name":"greeting","description":"A friendly greeting.","mimeType":"text/plain"}]}`
	cleanPrompts   = `{"prompts":[{"name":"greet","description":"Greet someone.","arguments":[{"name":"name","description":"Who to greet.","required":true}]}]}`
)

func initClean(s *server, req *message) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(req.Params, &p)
	v := fallbackVersion
	if slices.Contains(knownVersions, p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	s.reply(req.ID, initResult(v))
}

func initResult(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}},
		"serverInfo":      map[string]any{"name": "warden-rawserver", "version": "1.0.0"},
	}
}

// ---- mode handlers ----

// toolsMany answers page k (cursor "m<k>") of -tools minimal tools split
// over -pages pages, writing the reply directly: the point is its size.
func toolsMany(s *server, req *message) {
	page := 0
	if c := req.cursor(); c != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(c, "m"))
		if !strings.HasPrefix(c, "m") || err != nil || n < 1 || n >= *flagPages {
			s.replyError(req.ID, -32602, "invalid cursor")
			return
		}
		page = n
	}
	per := (*flagTools + *flagPages - 1) / *flagPages
	first, last := page*per, min((page+1)*per, *flagTools)
	buf := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[`, req.ID)
	for i := first; i < last; i++ {
		if i > first {
			buf = append(buf, ',')
		}
		buf = fmt.Appendf(buf, `{"name":"t%d","inputSchema":{"type":"object"}}`, i)
	}
	buf = append(buf, ']')
	if page+1 < *flagPages {
		buf = fmt.Appendf(buf, `,"nextCursor":"m%d"`, page+1)
	}
	s.write(append(buf, '}', '}'))
}

func toolsPages300(s *server, req *message) {
	page := 1
	if c := req.cursor(); c != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(c, "c"))
		if !strings.HasPrefix(c, "c") || err != nil || n < 1 || n > 299 {
			s.replyError(req.ID, -32602, "invalid cursor")
			return
		}
		page = n + 1
	}
	res := map[string]any{"tools": []any{simpleTool(fmt.Sprintf("page_%03d", page))}}
	if page < 300 {
		res["nextCursor"] = fmt.Sprintf("c%d", page)
	}
	s.reply(req.ID, res)
}

func toolsDupAcrossPages(s *server, req *message) {
	if req.cursor() == "" {
		s.reply(req.ID, map[string]any{"tools": []any{simpleTool("a")}, "nextCursor": "c1"})
		return
	}
	s.reply(req.ID, map[string]any{"tools": []any{simpleTool("a")}})
}

// loopPage counts cursor-loop pages so every page has new tool names.
var loopPage int

func toolsCursorLoop(s *server, req *message) {
	loopPage++
	next := "c1"
	if req.cursor() == "c1" {
		next = "c2"
	}
	s.reply(req.ID, map[string]any{
		"tools":      []any{simpleTool(fmt.Sprintf("loop_%d", loopPage))},
		"nextCursor": next,
	})
}

func initThenGoDeaf(s *server, req *message) {
	initClean(s, req)
	s.deaf = true
}

func promptsThenGoDeaf(s *server, req *message) {
	cleanHandlers["prompts/list"](s, req)
	s.deaf = true
	s.hangOnEOF = true
}

func toolsCrashOnPage2(s *server, req *message) {
	if req.cursor() == "" {
		s.reply(req.ID, map[string]any{"tools": []any{simpleTool("first")}, "nextCursor": "c1"})
		return
	}
	fmt.Fprintln(os.Stderr, "fatal: boom")
	os.Exit(3)
}

func writeGarbage(s *server, _ *message) {
	s.write([]byte("this is not json"))
}

// toolsHugeLine streams the reply in pieces so the server itself never holds
// the gigantic line in memory.
func toolsHugeLine(s *server, req *message) {
	fmt.Fprintf(s.out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"huge","inputSchema":{"type":"object"},"description":"`, req.ID)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for left := *flagHugeBytes; left > 0; left -= int64(len(chunk)) {
		if left < int64(len(chunk)) {
			chunk = chunk[:left]
		}
		if _, err := s.out.Write(chunk); err != nil {
			// The client gave up on the line and closed the pipe; fine.
			os.Exit(0)
		}
	}
	s.out.WriteString(`"}]}}`)
	s.out.WriteByte('\n')
	s.out.Flush()
}

// floodStderr writes a share of -flood-bytes to stderr before each reply:
// two fifths before initialize, one fifth before each of the three lists.
// Writing synchronously is the point: if the client does not drain stderr,
// the pipe fills and the reply never comes.
func floodStderr(_ *server, req *message) {
	share := *flagFloodBytes / 5
	if req.Method == "initialize" {
		share *= 2
	}
	line := []byte("rawserver: flood: the quick brown fox jumps over the lazy dog, again and again and again\n")
	w := bufio.NewWriterSize(os.Stderr, 64<<10)
	for n := int64(0); n < share; n += int64(len(line)) {
		w.Write(line)
	}
	w.Flush()
}

// floodNotifications sends the notifications through the buffered writer
// and flushes once, so 10,000 of them cost milliseconds rather than 10,000
// write calls.
func floodNotifications(s *server, _ *message) {
	for i := range 10000 {
		s.out.Write(marshal(map[string]any{
			"jsonrpc": "2.0", "method": "notifications/message",
			"params": map[string]any{"level": "info", "logger": "rawserver", "data": fmt.Sprintf("flood %d", i)},
		}))
		s.out.WriteByte('\n')
	}
	s.out.Flush()
}

func toolsAfterServerRequests(s *server, req *message) {
	s.request("srv-1", "ping", nil)
	s.request("srv-2", "roots/list", map[string]any{})
	got := s.await("srv-1", "srv-2")
	if got == nil {
		return // stdin closed while waiting
	}
	var problems []string
	if ping := got["srv-1"]; ping.Error != nil || !isObject(ping.Result) {
		problems = append(problems, fmt.Sprintf("ping: want an object result, got result=%s error=%s", ping.Result, ping.Error))
	}
	if roots := got["srv-2"]; roots.Error == nil {
		problems = append(problems, fmt.Sprintf("roots/list: want an error, got result=%s", roots.Result))
	}
	if len(problems) > 0 {
		s.replyError(req.ID, -32603, "client answered server requests wrongly: "+strings.Join(problems, "; "))
		return
	}
	cleanHandlers["tools/list"](s, req)
}

func isObject(raw json.RawMessage) bool {
	var v map[string]any
	return json.Unmarshal(raw, &v) == nil && v != nil
}

func methodNotFound(s *server, req *message) { s.replyError(req.ID, -32601, "Method not found") }

func internalError(s *server, req *message) { s.replyError(req.ID, -32603, "internal") }

func toolsErrorOnPage2(s *server, req *message) {
	if req.cursor() == "" {
		s.reply(req.ID, map[string]any{"tools": []any{simpleTool("first")}, "nextCursor": "c1"})
		return
	}
	s.replyError(req.ID, -32603, "page 2 failed")
}

func toolsBadItem(s *server, req *message) {
	s.reply(req.ID, json.RawMessage(`{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"description":"x"}]}`))
}

func toolsBadAnnotations(s *server, req *message) {
	s.reply(req.ID, json.RawMessage(`{"tools":[{"name":"t","inputSchema":{"type":"object"},"annotations":"yes"}]}`))
}

// rawNumbersTools is sent byte for byte. 1.0 and 1e2 change spelling if
// decoded into float64; the big integer does not fit in int64 or float64
// exactly; "x-vendor" is not in the spec's Tool type; the nulls vanish if
// decoded into structs with omitempty; "caf\u00e9" changes if unescaped.
const rawNumbersTools = `{"tools":[{"name":"precise","title":null,"description":"Numbers that must survive capture byte for byte.",` +
	`"inputSchema":{"type":"object","properties":{` +
	`"ratio":{"type":"number","minimum":1.0,"maximum":1e2,"default":null},` +
	`"big":{"type":"integer","maximum":10000000000000000000000},` +
	`"label":{"type":"string","description":"caf\u00e9","examples":[null]}` +
	`},"required":["ratio"]},"x-vendor":{"k":null}}]}`

func toolsRawNumbers(s *server, req *message) {
	s.reply(req.ID, json.RawMessage(rawNumbersTools))
}

func initBadVersion(s *server, req *message) {
	s.reply(req.ID, initResult("1999-01-01"))
}

// simpleTool is a minimal valid tool.
func simpleTool(name string) map[string]any {
	return map[string]any{
		"name":        name,
		"description": "Tool " + name + ".",
		"inputSchema": map[string]any{"type": "object"},
	}
}

// ---- the modern (2026-07-28) surface ----

// modernVersion is the one revision the modern modes speak.
const modernVersion = "2026-07-28"

// The _meta keys every modern request carries.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// Members of modern results, as exact bytes without the braces.
const (
	cacheFields    = `"resultType":"complete","ttlMs":0,"cacheScope":"private"`
	serverInfoMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"warden-rawserver","version":"1.0.0"}}`
	modernFields   = cacheFields + `,` + serverInfoMeta
	// modernCapabilities is the DiscoverResult's capabilities in mode modern.
	modernCapabilities = `{"tools":{"listChanged":true},"resources":{},"prompts":{}}`
)

// modernHandlers is the base surface of the modern modes; checkModern has
// passed every request they see. The items are the clean surface's.
var modernHandlers = map[string]handler{
	"server/discover": discover(modernCapabilities, modernFields),
	"ping":            func(s *server, req *message) { s.reply(req.ID, json.RawMessage(`{}`)) },
	"tools/list":      modernTools(modernFields),
	"resources/list":  modernList(cleanResources, modernFields),
	"prompts/list":    modernList(cleanPrompts, modernFields),
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
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

// checkModern returns the error a modern-only server answers to req, or nil
// if req is a modern request. initialize gets -32022 (requested: its
// params.protocolVersion); so does a request without params._meta. A _meta
// that is not an object, or lacks the protocol version string, gets -32602;
// a version other than 2026-07-28 gets -32022 naming it; a clientCapabilities
// that is missing or not an object gets -32602.
func checkModern(req *message) *rpcError {
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Meta            json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	if req.Method == "initialize" {
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
	if !isObject(meta[metaClientCapabilities]) {
		return &rpcError{Code: -32602, Message: "Invalid params: _meta lacks " + metaClientCapabilities + " (an object)"}
	}
	return nil
}

// metaVersion returns params._meta's protocol version, or "".
func metaVersion(req *message) string {
	var p struct {
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return p.Meta.Version
}

// withMembers returns the JSON object obj with the non-empty members (exact
// bytes, without braces) appended.
func withMembers(obj string, members ...string) json.RawMessage {
	out := strings.TrimSuffix(obj, "}")
	for _, m := range members {
		if m != "" {
			out += "," + m
		}
	}
	return json.RawMessage(out + "}")
}

// discover answers server/discover with a DiscoverResult for 2026-07-28
// whose capabilities member is caps, plus fields.
func discover(caps, fields string) handler {
	return func(s *server, req *message) {
		s.reply(req.ID, withMembers(`{"supportedVersions":["`+modernVersion+`"],"capabilities":`+caps+`,"instructions":"raw modern fixture"}`, fields))
	}
}

// modernTools answers tools/list in two pages, echo then add, each with
// fields; the first page's nextCursor is "p2", any other cursor is -32602.
func modernTools(fields string) handler {
	return func(s *server, req *message) {
		switch req.cursor() {
		case "":
			s.reply(req.ID, withMembers(`{"tools":[`+echoTool+`]}`, `"nextCursor":"p2"`, fields))
		case "p2":
			s.reply(req.ID, withMembers(`{"tools":[`+addTool+`]}`, fields))
		default:
			s.replyError(req.ID, -32602, "invalid cursor")
		}
	}
}

// modernList answers a one-page list with the clean items in obj plus fields.
func modernList(obj, fields string) handler {
	return func(s *server, req *message) { s.reply(req.ID, withMembers(obj, fields)) }
}

// unsupportedHandler answers -32022 with data.supported, naming the version
// the request asked for (in _meta, or initialize's protocolVersion).
func unsupportedHandler(supported ...string) handler {
	return func(s *server, req *message) {
		requested := metaVersion(req)
		if req.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			requested = p.ProtocolVersion
		}
		s.replyRPCError(req.ID, unsupported(requested, supported...))
	}
}

// draftDiscover is a DiscoverResult from a server built against a pre-GA
// draft: its only version is "DRAFT-2026-v1" and serverInfo is top-level.
func draftDiscover(s *server, req *message) {
	s.reply(req.ID, json.RawMessage(`{"supportedVersions":["DRAFT-2026-v1"],`+
		`"capabilities":{"tools":{},"resources":{},"prompts":{}},"instructions":"raw draft fixture",`+
		cacheFields+`,"serverInfo":{"name":"warden-rawserver","version":"1.0.0"}}`))
}

// pinLegacyOnInitialize serves the process as the clean legacy server for
// life if its first request is initialize (modern-dual).
func pinLegacyOnInitialize(s *server, req *message) {
	if req.Method == "initialize" {
		s.legacyPinned = true
	}
}

// exitUnlessInitialize exits the process, the way rmcp servers do, if its
// first request is not initialize (exit-on-probe).
func exitUnlessInitialize(_ *server, req *message) {
	if req.Method != "initialize" {
		fmt.Fprintln(os.Stderr, "ExpectedInitializeRequest")
		os.Exit(1)
	}
}

// ---- grandchild ----

// spawnGrandchild starts "rawserver -mode sleep" in this process's group and
// waits until it has written its PID, so that by the time the client gets
// initialize answered, the pidfile is there for the test to read.
// The grandchild inherits stdout and stderr, like the node process under
// "npx" does: a client that waits for EOF on those pipes instead of killing
// the group would wait until -hang-for runs out.
func spawnGrandchild(_ *server) {
	if *flagPidfile == "" {
		fatalf("grandchild: -pidfile is required")
	}
	self, err := os.Executable()
	if err != nil {
		fatalf("grandchild: %v", err)
	}
	cmd := exec.Command(self, "-mode", "sleep", "-pidfile", *flagPidfile, "-hang-for", flagHangFor.String())
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fatalf("grandchild: %v", err)
	}
	go cmd.Wait() // reap it if it ever ends while we live
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(*flagPidfile); err == nil && len(b) > 0 {
			return
		}
		if time.Now().After(deadline) {
			fatalf("grandchild: no pidfile after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sleepForever is the grandchild: it publishes its PID atomically (write,
// then rename) so that a reader never sees a half-written file, then sleeps.
// spawnDaemon starts "rawserver -mode <mode>" in a new session, its output
// discarded, waits for it to exit (the double-fork intermediate, which exits
// once the daemon is up) or leaves it running, and returns once -pidfile
// names the sleeping daemon.
func spawnDaemon(mode string) {
	if *flagPidfile == "" {
		fatalf("%s: -pidfile is required", mode)
	}
	self, err := os.Executable()
	if err != nil {
		fatalf("%s: %v", mode, err)
	}
	cmd := exec.Command(self, "-mode", mode, "-pidfile", *flagPidfile, "-hang-for", flagHangFor.String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fatalf("%s: %v", mode, err)
	}
	if mode == "fork-intermediate" {
		// The daemon is an orphan only once the intermediate is gone.
		_ = cmd.Wait()
	} else {
		go cmd.Wait() // reap it if it ever ends while we live
	}
	waitPidfile(mode)
}

// forkIntermediate starts the daemon and exits, orphaning it.
func forkIntermediate(_ *server) {
	self, err := os.Executable()
	if err != nil {
		fatalf("fork-intermediate: %v", err)
	}
	cmd := exec.Command(self, "-mode", "sleep", "-pidfile", *flagPidfile, "-hang-for", flagHangFor.String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fatalf("fork-intermediate: %v", err)
	}
	waitPidfile("fork-intermediate")
	os.Exit(0)
}

// waitPidfile waits until -pidfile has content.
func waitPidfile(who string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(*flagPidfile); err == nil && len(b) > 0 {
			return
		}
		if time.Now().After(deadline) {
			fatalf("%s: no pidfile after 10s", who)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func sleepForever(_ *server) {
	if *flagPidfile == "" {
		fatalf("sleep: -pidfile is required")
	}
	tmp := *flagPidfile + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fatalf("sleep: %v", err)
	}
	if err := os.Rename(tmp, *flagPidfile); err != nil {
		fatalf("sleep: %v", err)
	}
	time.Sleep(*flagHangFor)
	os.Exit(0)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rawserver: "+format+"\n", args...)
	os.Exit(1)
}

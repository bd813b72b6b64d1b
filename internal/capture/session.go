package capture

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// maxUnrelatedMessages bounds the notifications, server requests and stray
// responses tolerated while waiting for one reply. The byte budget bounds
// them too; this catches a flood of tiny messages early.
const maxUnrelatedMessages = 100_000

// msgKind says what an outbound message is, which matters to HTTP: only a
// request opens a reply stream.
type msgKind int

const (
	kindRequest msgKind = iota
	kindNotification
	kindResponse
)

// conn is one transport's message pipe. Calls are made from one goroutine.
type conn interface {
	// send delivers one JSON-RPC message. method names a request's or
	// notification's method (HTTP puts it in a header), "" for a response.
	send(ctx context.Context, msg []byte, kind msgKind, method string) error
	// recv returns the next message from the server.
	recv(ctx context.Context) (*jsonv.Value, error)
	// negotiated tells the transport the protocol version in use.
	negotiated(version string)
	// close ends the session. ok says that nothing the server does next
	// matters (every answer is in, or the process is being replaced): a
	// stdio server is then killed at once; otherwise it first gets a moment
	// to finish exiting, for the diagnostic. It returns a sanitised
	// diagnostic (exit status, stderr tail) or "".
	close(ok bool) string
}

// session runs the client side of one capture over a conn.
type session struct {
	c      conn
	cfg    *config
	nextID int64
	// modern makes every request carry the 2026-07-28 envelope.
	modern bool
	// stage names what the session is waiting for, so that a timeout
	// says which request went unanswered.
	stage string
	// budget is the capture's; list items are charged to it.
	budget *budget
	// strays counts replies whose id matched no request in flight, and
	// firstStray describes the first, for a timeout's message: a server
	// that answers id 1 with "1" or 1.0 otherwise just looks hung.
	strays     int
	firstStray string
	// clock, when set, hears what the session waits for.
	clock *clock
	// accepted are the list errors accepted so far (Options.AcceptListErrors).
	accepted []surface.AcceptedError
}

// setStage records what the session now waits for.
func (s *session) setStage(stage string) {
	s.stage = stage
	if s.clock != nil {
		s.clock.waiting(stage)
	}
}

// strayNote describes the stray replies for a failure message, or "".
func (s *session) strayNote() string {
	switch s.strays {
	case 0:
		return ""
	case 1:
		return "it sent 1 reply whose id matched no request (" + s.firstStray + ")"
	}
	return fmt.Sprintf("it sent %d replies whose id matched no request (the first: %s)", s.strays, s.firstStray)
}

// rpcError is a JSON-RPC error reply: its code, for -32022 the supported
// versions, and the start of its message as a quoted clause (serverClause):
// it is server text that may say why, as "Missing MCP-Protocol-Version
// header" does.
type rpcError struct {
	code      int64
	supported []string
	message   string
}

// rpcMessageRunes is how much of a JSON-RPC error's message an error quotes.
const rpcMessageRunes = 120

// serverClause quotes the start of a server's error text for an error
// message: valid UTF-8, cut to rpcMessageRunes. It is not escaped here: every
// capture error is made one escaped line once, by config.failure, and
// escaping twice would double every backslash of the escapes.
func serverClause(text string) string {
	return `"` + elide(strings.ToValidUTF8(text, "\uFFFD"), rpcMessageRunes) + `"`
}

func (e *rpcError) Error() string {
	if e.message == "" {
		return fmt.Sprintf("server answered JSON-RPC error %d", e.code)
	}
	return fmt.Sprintf("server answered JSON-RPC error %d (%s)", e.code, e.message)
}

// legacyHandshake performs the 2025-era initialize handshake and returns the
// protocol version the server chose and the capabilities it declared.
func (s *session) legacyHandshake(ctx context.Context) (string, *jsonv.Value, error) {
	version, caps, err := s.initialize(ctx)
	if err != nil {
		return "", nil, err
	}
	s.c.negotiated(version)
	note := jsonv.NewObject(
		jsonv.M("jsonrpc", jsonv.NewString("2.0")),
		jsonv.M("method", jsonv.NewString("notifications/initialized")),
	)
	if err := s.c.send(ctx, note.AppendCompact(nil), kindNotification, "notifications/initialized"); err != nil {
		return "", nil, fmt.Errorf("sending notifications/initialized: %w", err)
	}
	return version, caps, nil
}

// lists captures the three lists into a surface, in the order tools,
// resources, prompts, reading which ones the server offers from caps (the
// capabilities of its DiscoverResult or InitializeResult).
//
// In the modern era a list the server does not advertise is not called, as
// the specification asks; its section is empty. In the 2025 era every list
// is called, as the reference does: an agent's client may list tools the
// server never declared, so a server must not hide them from the lock by
// leaving the capability out. But a list the server did not advertise is
// one it said it does not have, so an error, a result that is not a list,
// or no answer within unadvertisedWait on its first page is that empty
// section, not a failure (the conformance suite's servers that declare
// "capabilities": {} answer resources/list with an empty object).
func (s *session) lists(ctx context.Context, version string, caps *jsonv.Value) (*surface.Surface, error) {
	surf := &surface.Surface{ProtocolVersion: version}
	lists := []struct {
		method, key string
		take        func(*jsonv.Value, itemAt) (string, error)
	}{
		{"tools/list", "tools", func(v *jsonv.Value, at itemAt) (string, error) {
			t, err := toolFromWire(v, at)
			if err == nil {
				surf.Tools = append(surf.Tools, t)
			}
			return t.Name, err
		}},
		{"resources/list", "resources", func(v *jsonv.Value, at itemAt) (string, error) {
			r, err := resourceFromWire(v, at)
			if err == nil {
				surf.Resources = append(surf.Resources, r)
			}
			return r.URI, err
		}},
		{"prompts/list", "prompts", func(v *jsonv.Value, at itemAt) (string, error) {
			p, err := promptFromWire(v, at)
			if err == nil {
				surf.Prompts = append(surf.Prompts, p)
			}
			return p.Name, err
		}},
	}
	for _, l := range lists {
		advertised := !caps.Get(l.key).IsNull()
		if !advertised && s.modern {
			continue
		}
		if err := s.listAll(ctx, l.method, l.key, !advertised, l.take); err != nil {
			return nil, err
		}
	}
	surf.AcceptedErrors = s.accepted
	return surf, nil
}

// firstUnadvertised asks for the first page of a list the server did not
// advertise. empty reports that the answer is the empty section: a JSON-RPC
// error, a result without the list, or no answer within unadvertisedWait.
func (s *session) firstUnadvertised(ctx context.Context, method, key string) (res *jsonv.Value, empty bool, err error) {
	wctx, cancel := context.WithTimeout(ctx, unadvertisedWait)
	defer cancel()
	res, err = s.call(wctx, method, nil)
	var rerr *rpcError
	switch {
	case err == nil:
		if items := res.Get(key); res.Kind != jsonv.Object || items == nil || items.Kind != jsonv.Array {
			return nil, true, nil
		}
		return res, false, nil
	case errors.As(err, &rerr):
		return nil, true, nil
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return nil, true, nil
	}
	return nil, false, fmt.Errorf("%s page 1: %w", method, err)
}

// unadvertisedWait bounds the wait for the first page of a list the server
// did not advertise: a server may ignore a method it does not have.
const unadvertisedWait = 3 * time.Second

// accepts reports whether the capture was told to accept code as the answer
// to list's first page.
func (s *session) accepts(list string, code int64) bool {
	want, ok := s.cfg.AcceptListErrors[list]
	return ok && want == code
}

// discover sends server/discover with the modern envelope and returns the
// raw outcome: the result, or the error (a JSON-RPC error is *rpcError).
// The probe is the session's first request, so every response before its
// reply answers nothing warden sent: it fails the probe rather than being
// skipped, since the reply to the probe decides the era.
func (s *session) discover(ctx context.Context) (*jsonv.Value, error) {
	s.modern = true
	s.setStage("server/discover")
	return s.exchange(ctx, "server/discover", nil, true)
}

// requireModern sends server/discover to a server that must speak the
// modern revision (forced by the user, or after initialize said so) and
// returns its discovery. Anything but a well-formed DiscoverResult that
// lists ModernProtocolVersion is an error naming the field.
func (s *session) requireModern(ctx context.Context) (*discovery, error) {
	res, err := s.discover(ctx)
	if err != nil {
		if supported := supportedList(err); supported != nil && !slices.Contains(supported, ModernProtocolVersion) {
			return nil, fmt.Errorf("server/discover: %w", noCommonVersion(supported))
		}
		return nil, fmt.Errorf("server/discover: %w", err)
	}
	d, err := parseDiscovery(res)
	if err != nil {
		return nil, fmt.Errorf("server/discover: %w", err)
	}
	if !slices.Contains(d.versions, ModernProtocolVersion) {
		return nil, fmt.Errorf("server/discover: %w", noCommonVersion(d.versions))
	}
	return d, nil
}

// initialize sends the initialize request and returns the server's
// protocolVersion and capabilities after checking the result's shape.
func (s *session) initialize(ctx context.Context) (string, *jsonv.Value, error) {
	params := jsonv.NewObject(
		jsonv.M("protocolVersion", jsonv.NewString(LegacyProtocolVersions()[0])),
		jsonv.M("capabilities", jsonv.NewObject()),
		jsonv.M("clientInfo", jsonv.NewObject(
			jsonv.M("name", jsonv.NewString("warden")),
			jsonv.M("version", jsonv.NewString(s.cfg.Version)),
		)),
	)
	s.setStage("initialize")
	res, err := s.call(ctx, "initialize", params)
	if err != nil {
		return "", nil, fmt.Errorf("initialize: %w", err)
	}
	if res.Kind != jsonv.Object {
		return "", nil, fmt.Errorf("initialize: result is %s, not an object", a(res.Kind))
	}
	pv := res.Get("protocolVersion")
	version, ok := pv.Str()
	if !ok {
		return "", nil, errors.New("initialize: result has no string protocolVersion")
	}
	if !slices.Contains(LegacyProtocolVersions(), version) {
		return "", nil, fmt.Errorf("initialize: server chose unsupported protocol version %s (warden supports %v)",
			quoteName(version), LegacyProtocolVersions())
	}
	// The reference's SDK validates these; a server without them is not
	// speaking MCP.
	caps := res.Get("capabilities")
	if caps == nil || caps.Kind != jsonv.Object {
		return "", nil, errors.New("initialize: result has no capabilities object")
	}
	info := res.Get("serverInfo")
	if info == nil || info.Kind != jsonv.Object {
		return "", nil, errors.New("initialize: result has no serverInfo object")
	}
	if _, ok := info.Get("name").Str(); !ok {
		return "", nil, errors.New("initialize: serverInfo has no string name")
	}
	if _, ok := info.Get("version").Str(); !ok {
		return "", nil, errors.New("initialize: serverInfo has no string version")
	}
	return version, caps, nil
}

// listAll drains every page of a list method, handing each item to take,
// which returns the item's identity (name or URI) for the duplicate check.
//
// With unadvertised set (a list the server did not declare, in the 2025
// era), a first page that fails to arrive within unadvertisedWait, or that
// is a JSON-RPC error or a result without the list, ends the list empty.
func (s *session) listAll(ctx context.Context, method, key string, unadvertised bool, take func(*jsonv.Value, itemAt) (string, error)) error {
	seenCursor := map[string]bool{}
	seenID := map[string]int{} // identity → page it first appeared on
	cursor := ""
	total := 0
	for page := 1; ; page++ {
		if page > s.cfg.MaxPages {
			return fmt.Errorf("%s: cursor chain exceeded %d pages", method, s.cfg.MaxPages)
		}
		var params *jsonv.Value
		if page > 1 {
			params = jsonv.NewObject(jsonv.M("cursor", jsonv.NewString(cursor)))
		}
		s.setStage(fmt.Sprintf("%s (page %d)", method, page))
		var res *jsonv.Value
		var err error
		if page == 1 && unadvertised {
			var empty bool
			if res, empty, err = s.firstUnadvertised(ctx, method, key); empty || err != nil {
				return err
			}
		} else {
			res, err = s.call(ctx, method, params)
		}
		var rerr *rpcError
		if errors.As(err, &rerr) && page == 1 && s.accepts(key, rerr.code) {
			s.accepted = append(s.accepted, surface.AcceptedError{List: key, Code: rerr.code})
			return nil
		}
		if errors.As(err, &rerr) && rerr.code == -32601 && page == 1 {
			// "Method not found" on the first page is how a server says
			// it has no such feature: the section is empty. Any other
			// error, or this one on a later page, is not.
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s page %d: %w", method, page, err)
		}
		if res.Kind != jsonv.Object {
			return fmt.Errorf("%s page %d: result is %s, not an object", method, page, a(res.Kind))
		}
		if s.modern {
			if err := checkResultType(res); err != nil {
				return fmt.Errorf("%s page %d: %w", method, page, err)
			}
			if err := checkCacheHints(res); err != nil {
				return fmt.Errorf("%s page %d: %w", method, page, err)
			}
		}
		items := res.Get(key)
		if items == nil || items.Kind != jsonv.Array {
			return fmt.Errorf("%s page %d: result has no %q array", method, page, key)
		}
		total += len(items.Items)
		if total > s.cfg.MaxItems {
			return fmt.Errorf("%s: more than %d %s (the limit is --max-items)", method, s.cfg.MaxItems, key)
		}
		if s.budget != nil {
			if err := s.budget.charge(int64(len(items.Items)) * itemCost); err != nil {
				return fmt.Errorf("%s page %d: %w", method, page, err)
			}
		}
		for i, it := range items.Items {
			at := itemAt{list: key, page: page, index: i}
			id, err := take(it, at)
			if err != nil {
				return fmt.Errorf("%s page %d: %w", method, page, err)
			}
			if first, dup := seenID[id]; dup {
				return fmt.Errorf("%s: %s %s appears more than once (pages %d and %d); a repeated identity would let one entry shadow another",
					method, identityWord(key), quoteName(id), first, page)
			}
			seenID[id] = page
		}
		next := res.Get("nextCursor")
		if next.IsNull() {
			return nil
		}
		c, ok := next.Str()
		if !ok {
			return fmt.Errorf("%s page %d: nextCursor is %s, not a string", method, page, a(next.Kind))
		}
		if c == "" && !s.modern {
			// Some 2025-era servers send "" for "no more pages"; since
			// 2026-07-28 a present cursor, even "", means more.
			return nil
		}
		if seenCursor[c] {
			return fmt.Errorf("%s page %d: cursor %s was already used (cursor loop)", method, page, quoteName(c))
		}
		seenCursor[c] = true
		cursor = c
	}
}

func identityWord(key string) string {
	if key == "resources" {
		return "resource URI"
	}
	return key[:len(key)-1] + " name"
}

// call sends a request and waits for its reply, answering the server's own
// requests and skipping notifications meanwhile. A JSON-RPC error reply is
// returned as *rpcError.
func (s *session) call(ctx context.Context, method string, params *jsonv.Value) (*jsonv.Value, error) {
	return s.exchange(ctx, method, params, false)
}

// exchange is call. With strict set, a response with any other id than the
// request's is an error instead of a stray to skip.
//
// In the modern era a -32022 whose data.supported lists the very version
// warden sent is retried once: the specification has a client pick a
// version from that list and send again, and the pick is the same one. A
// second such refusal is final.
func (s *session) exchange(ctx context.Context, method string, params *jsonv.Value, strict bool) (*jsonv.Value, error) {
	res, err := s.exchangeOnce(ctx, method, params, strict)
	if !s.modern || !fallsForward(err) {
		return res, err
	}
	res, err = s.exchangeOnce(ctx, method, params, strict)
	if fallsForward(err) {
		return nil, fmt.Errorf("%w, twice", err)
	}
	return res, err
}

// exchangeOnce sends one request and waits for its reply.
func (s *session) exchangeOnce(ctx context.Context, method string, params *jsonv.Value, strict bool) (*jsonv.Value, error) {
	s.nextID++
	id := s.nextID
	members := []jsonv.Member{
		jsonv.M("jsonrpc", jsonv.NewString("2.0")),
		jsonv.M("id", jsonv.NewInt(id)),
		jsonv.M("method", jsonv.NewString(method)),
	}
	if s.modern {
		var own []jsonv.Member
		if params != nil {
			own = params.Members
		}
		params = jsonv.NewObject(append(append([]jsonv.Member(nil), own...), jsonv.M("_meta", envelope(s.cfg.Version)))...)
	}
	if params != nil {
		members = append(members, jsonv.M("params", params))
	}
	if err := s.c.send(ctx, jsonv.NewObject(members...).AppendCompact(nil), kindRequest, method); err != nil {
		return nil, err
	}
	want := strconv.FormatInt(id, 10)
	for unrelated := 0; ; unrelated++ {
		if unrelated > maxUnrelatedMessages {
			return nil, fmt.Errorf("more than %d messages arrived without the reply", maxUnrelatedMessages)
		}
		m, err := s.c.recv(ctx)
		if err != nil {
			return nil, err
		}
		heardFrom(ctx)
		msg, err := classify(m)
		if err != nil {
			return nil, err
		}
		switch msg.kind {
		case kindNotification:
			continue
		case kindRequest:
			if err := s.answer(ctx, msg); err != nil {
				return nil, err
			}
			continue
		}
		if msg.id.Kind != jsonv.Int || msg.id.Text != want {
			if msg.id.Kind == jsonv.Null && msg.err != nil {
				// An error without an id is the server saying it could not
				// read something we sent; the reply will never come.
				return nil, fmt.Errorf("server reported error %d for an unidentified request", msg.err.code)
			}
			if strict {
				return nil, fmt.Errorf("server answered id %s, not the id %d of the request", oneLine(msg.id.Compact(), 40), id)
			}
			// A reply to a request nobody waits for (a duplicate, or an
			// id we never used): ignore it like a notification, but
			// remember it for the message if the real reply never comes.
			s.strays++
			if s.firstStray == "" {
				s.firstStray = fmt.Sprintf("id %s while waiting for %s id %d", oneLine(msg.id.Compact(), 40), quoteName(method), id)
			}
			continue
		}
		if msg.err != nil {
			return nil, msg.err
		}
		return msg.result, nil
	}
}

// answer replies to a server-to-client request. Warden advertises no client
// capabilities, so ping is the only request it serves.
func (s *session) answer(ctx context.Context, msg message) error {
	members := []jsonv.Member{
		jsonv.M("jsonrpc", jsonv.NewString("2.0")),
		jsonv.M("id", msg.id),
	}
	if msg.method == "ping" {
		members = append(members, jsonv.M("result", jsonv.NewObject()))
	} else {
		members = append(members, jsonv.M("error", jsonv.NewObject(
			jsonv.M("code", jsonv.NewInt(-32601)),
			jsonv.M("message", jsonv.NewString("Method not found")),
		)))
	}
	if err := s.c.send(ctx, jsonv.NewObject(members...).AppendCompact(nil), kindResponse, ""); err != nil {
		return fmt.Errorf("answering the server's %s request: %w", quoteName(msg.method), err)
	}
	return nil
}

// message is a classified inbound JSON-RPC message.
type message struct {
	kind   msgKind
	id     *jsonv.Value
	method string
	result *jsonv.Value
	err    *rpcError
}

// classify checks a JSON-RPC 2.0 envelope and says what it is. Batches are
// refused: they were removed from MCP in 2025-06-18 and the reference's SDK
// never accepted them.
func classify(m *jsonv.Value) (message, error) {
	if m.Kind != jsonv.Object {
		return message{}, fmt.Errorf("server sent %s where a JSON-RPC message object was expected", a(m.Kind))
	}
	if v, _ := m.Get("jsonrpc").Str(); v != "2.0" {
		return message{}, errors.New(`server sent a message without "jsonrpc": "2.0"`)
	}
	id := m.Get("id")
	if mv := m.Get("method"); mv != nil {
		method, ok := mv.Str()
		if !ok {
			return message{}, errors.New("server sent a message whose method is not a string")
		}
		if id == nil {
			return message{kind: kindNotification, method: method}, nil
		}
		if id.Kind != jsonv.String && id.Kind != jsonv.Int {
			return message{}, fmt.Errorf("server sent a %s request whose id is %s", quoteName(method), a(id.Kind))
		}
		return message{kind: kindRequest, id: id, method: method}, nil
	}
	if id == nil {
		return message{}, errors.New("server sent a message with neither a method nor an id")
	}
	res, e := m.Get("result"), m.Get("error")
	switch {
	case m.Has("result") && m.Has("error"):
		return message{}, errors.New("server sent a response with both a result and an error")
	case m.Has("result"):
		return message{kind: kindResponse, id: id, result: res}, nil
	case m.Has("error"):
		rerr, err := parseRPCError(e)
		if err != nil {
			return message{}, err
		}
		return message{kind: kindResponse, id: id, err: rerr}, nil
	}
	return message{}, errors.New("server sent a response with neither a result nor an error")
}

// parseRPCError checks a response's error member: an object with an integer
// code and a string message, as JSON-RPC 2.0 requires. A server that gets
// the error itself wrong has not said "not supported" in any way warden can
// rely on, so the reply is refused rather than read as one.
func parseRPCError(e *jsonv.Value) (*rpcError, error) {
	if e.Kind != jsonv.Object {
		return nil, fmt.Errorf("server sent an error response whose error is %s, not an object", a(e.Kind))
	}
	code := e.Get("code")
	if code == nil || code.Kind != jsonv.Int {
		return nil, errors.New("server sent an error response without an integer code")
	}
	n, err := strconv.ParseInt(code.Text, 10, 64)
	if err != nil {
		return nil, errors.New("server sent an error response with an out-of-range code")
	}
	msg := e.Get("message")
	text, ok := msg.Str()
	if !ok {
		return nil, fmt.Errorf("server sent error %d without a string message", n)
	}
	rerr := &rpcError{code: n}
	if text = strings.TrimSpace(text); text != "" {
		rerr.message = serverClause(text)
	}
	if n == unsupportedVersion {
		rerr.supported = supportedVersions(e.Get("data"))
	}
	return rerr, nil
}

// maxSupportedVersions bounds how many versions of a -32022 error are kept.
const maxSupportedVersions = 64

// supportedVersions reads data.supported of a -32022 error: a non-empty
// array of strings, or nil when it is anything else.
func supportedVersions(data *jsonv.Value) []string {
	list := data.Get("supported")
	if list == nil || list.Kind != jsonv.Array || len(list.Items) == 0 {
		return nil
	}
	out := make([]string, 0, min(len(list.Items), maxSupportedVersions))
	for _, v := range list.Items {
		s, ok := v.Str()
		if !ok {
			return nil
		}
		if len(out) < maxSupportedVersions {
			out = append(out, s)
		}
	}
	return out
}

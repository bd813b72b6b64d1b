package capture

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// negotiator runs one capture across as many connections as the era
// negotiation needs: a stdio server is respawned when the probe killed it or
// went unanswered, and when initialize says the server speaks only the
// modern revision; an HTTP endpoint gets a fresh client state per era. The
// eras are never mixed on one process or session. All connections share one
// byte budget and the capture's one deadline.
type negotiator struct {
	cfg    *config
	budget *budget
	// diag is what the last connection to close reported (exit status,
	// stderr tail), for the failure message.
	diag string
	// stage is what the last session was waiting for, and stray its note
	// on replies that matched no request.
	stage string
	stray string
	// probeAnswered is set once the server answered a server/discover
	// probe: its era verdict then rests on the server's own word.
	probeAnswered bool
	// clock is the capture's deadline; it waits out each stdio server's
	// start-up and hears what the capture waits for.
	clock *clock
	// exited is set when the connection whose failure is reported was a
	// stdio server that had exited by itself.
	exited bool
	// reachedModern is set once the capture went the modern way.
	reachedModern bool
}

// session starts a session over a fresh connection.
func (n *negotiator) session(c conn) *session {
	return &session{c: c, cfg: n.cfg, budget: n.budget, clock: n.clock}
}

// startStdio spawns the server and has the clock wait out its start-up.
func (n *negotiator) startStdio(ctx context.Context) (*stdioConn, error) {
	c, err := startStdio(ctx, n.cfg, n.budget)
	if err == nil && n.clock != nil {
		n.clock.watch(c)
	}
	return c, err
}

// finish closes a connection, keeping its diagnostic and stage if the
// capture fails with err.
func (n *negotiator) finish(s *session, err error) {
	diag := s.c.close(err == nil)
	n.stage, n.stray = s.stage, s.strayNote()
	if err != nil {
		n.diag = diag
		sc, ok := s.c.(*stdioConn)
		n.exited = ok && sc.exited
	}
}

// answered settles a probe the server answered (a result, or a JSON-RPC
// error in err): with positive evidence of the modern era it lists on the
// same session and reports done; a failure to agree on a version is done
// too; anything else leaves the session open for the 2025-era fallback.
func (n *negotiator) answered(ctx context.Context, s *session, res *jsonv.Value, err error) (surf *surface.Surface, done bool, _ error) {
	v, d, cerr := classifyProbe(res, err)
	switch {
	case cerr != nil:
		// A -32022 is the modern era's word, whatever it lists.
		n.reachedModern = true
		n.finish(s, cerr)
		return nil, true, cerr
	case v != modern:
		return nil, false, nil
	}
	n.reachedModern = true
	surf, err = n.list(ctx, s, ModernProtocolVersion, d.caps)
	return surf, true, err
}

// list captures the lists the server advertises in caps (its capabilities
// object) on a session that has its era, and closes it.
func (n *negotiator) list(ctx context.Context, s *session, version string, caps *jsonv.Value) (*surface.Surface, error) {
	surf, err := s.lists(ctx, version, caps)
	n.finish(s, err)
	return surf, err
}

// overStdio captures a stdio server in the era Options.Protocol asks for.
func (n *negotiator) overStdio(ctx context.Context) (*surface.Surface, error) {
	switch {
	case n.cfg.Protocol == ProtocolLegacy:
		return n.stdioLegacy(ctx, false)
	case n.cfg.Protocol == ProtocolModern:
		return n.stdioModern(ctx)
	case n.cfg.Prefer == ProtocolLegacy:
		surf, err := n.stdioLegacy(ctx, true)
		return n.orProbe(ctx, surf, err, n.stdioProbe)
	}
	surf, err := n.stdioAuto(ctx)
	return n.orProbe(ctx, surf, err, n.stdioProbe)
}

// stdioAuto probes a stdio server with server/discover and captures it in
// the era the answer shows, as the specification's stdio rules ask.
//
// A server that answers the probe is captured on the same process. One that
// stays silent past the probe timer is killed, so that a late reply cannot
// race a handshake, and probed again on a fresh process: silence is as
// likely a slow first start (a package runner's download on a cold cache)
// as a 2025-era server that ignores unknown requests, and a server that
// speaks both eras must not be captured in the old one because its first
// start was slow. Only a second silence means a 2025-era server, which then
// gets initialize on a third process. A server that exits on the probe is a
// 2025-era server (rmcp-based ones do that) and gets initialize on the next.
func (n *negotiator) stdioAuto(ctx context.Context) (*surface.Surface, error) {
	wait := probeTimeout(n.cfg.Timeout)
	if n.cfg.Prefer == ProtocolModern {
		wait = max(wait, n.cfg.Timeout*2/3)
	}
	for attempt := 1; ; attempt++ {
		c, s, res, silent, err := n.probeFresh(ctx, wait)
		if c == nil {
			return nil, err
		}
		var rerr *rpcError
		switch {
		case err == nil || errors.As(err, &rerr):
			n.probeAnswered = true
			if surf, done, err := n.answered(ctx, s, res, err); done {
				return surf, err
			}
			// A 2025-era server that answered the probe: it is alive and
			// has not started a modern session, so the handshake goes on
			// the same process, as the specification asks.
			s.modern = false
			return n.legacyOn(ctx, s, true)
		case ctx.Err() != nil:
			n.finish(s, err)
			return nil, err
		case isGone(err):
			n.finish(s, nil)
			return n.stdioLegacy(ctx, true)
		case silent && attempt == 1:
			// The second probe runs on a server started once already (a
			// warm package cache), so a shorter timer is plenty: where the
			// pipe shows when the server reads the probe, a server that
			// reads it and stays silent for readGrace is ignoring it;
			// elsewhere half the timer stands in.
			inspectable := c.pipeInspectable()
			n.finish(s, nil)
			if inspectable {
				wait = readGrace(wait)
			} else {
				wait /= 2
			}
			continue
		case silent:
			n.finish(s, nil)
			return n.stdioLegacy(ctx, true)
		}
		// Anything else is a reply warden cannot read (not JSON-RPC, over a
		// bound, an error without its id, a flood): no evidence of either
		// era, and the same failure as over HTTP and under --protocol modern.
		n.probeAnswered = true
		n.finish(s, err)
		return nil, fmt.Errorf("server/discover: %w", err)
	}
}

// orProbe settles a capture that went the 2025 way. A 2025-era handshake or
// listing can fail because the server has moved to the modern revision and
// refuses the old one in a way that names no version: -32020, -32601, an
// HTTP 400 or 404, a protocolVersion of 2026-07-28, an exit. Unless a probe
// already had the server's answer, or the capture already reached the
// modern era, one server/discover probe on a fresh process or connection
// comes before giving up: a modern answer captures the server in that era;
// anything else keeps the 2025-era failure, which is the one to report.
func (n *negotiator) orProbe(ctx context.Context, surf *surface.Surface, err error, probe func(context.Context) (*surface.Surface, bool, error)) (*surface.Surface, error) {
	if err == nil || n.probeAnswered || n.reachedModern || ctx.Err() != nil || !reprobes(err) {
		return surf, err
	}
	first := struct{ diag, stage, stray string }{n.diag, n.stage, n.stray}
	msurf, isModern, merr := probe(ctx)
	if isModern {
		return msurf, merr
	}
	n.diag, n.stage, n.stray = first.diag, first.stage, first.stray
	return nil, fmt.Errorf("%w; server/discover on a fresh %s found no %s server either", err, n.freshWord(), ModernProtocolVersion)
}

// freshWord names what a second attempt runs on.
func (n *negotiator) freshWord() string {
	if n.cfg.url != nil {
		return "connection"
	}
	return "process"
}

// reprobes reports whether a failed 2025-era capture may be a server that
// moved to the modern revision: not when the failure is one of warden's
// bounds, or credentials, which no era changes.
func reprobes(err error) bool {
	var le *limitError
	var serr *httpStatusError
	switch {
	case errors.As(err, &le):
		return false
	case errors.As(err, &serr) && serr.credentials():
		return false
	case errors.As(err, new(*authError)):
		return false
	}
	return true
}

// stdioProbe sends server/discover to a fresh process under the probe timer
// and, when the answer shows a modern server, lists it. isModern is false,
// and the process gone, when it does not.
func (n *negotiator) stdioProbe(ctx context.Context) (*surface.Surface, bool, error) {
	c, s, res, _, err := n.probeFresh(ctx, probeTimeout(n.cfg.Timeout))
	if c == nil {
		return nil, false, err
	}
	return n.probed(ctx, s, res, err)
}

// probeFresh spawns the server and sends it server/discover under a probe
// timer of wait from the spawn (see probeWait). silent reports that the
// timer ran out unanswered. c is nil, and err why, when the spawn failed.
func (n *negotiator) probeFresh(ctx context.Context, wait time.Duration) (c *stdioConn, s *session, res *jsonv.Value, silent bool, err error) {
	spawned := time.Now()
	if c, err = n.startStdio(ctx); err != nil {
		return nil, nil, nil, false, err
	}
	s = n.session(c)
	pctx, stop := probeWait(ctx, spawned.Add(wait), readGrace(wait), c.probeUnread)
	defer stop()
	res, err = s.discover(pctx)
	return c, s, res, unanswered(pctx, err), err
}

// probed lists a session whose probe showed a modern server, or closes it.
func (n *negotiator) probed(ctx context.Context, s *session, res *jsonv.Value, err error) (*surface.Surface, bool, error) {
	var rerr *rpcError
	if err != nil && !errors.As(err, &rerr) {
		n.finish(s, nil)
		return nil, false, nil
	}
	v, d, cerr := classifyProbe(res, err)
	if cerr != nil || v != modern {
		n.finish(s, nil)
		return nil, false, nil
	}
	n.reachedModern = true
	surf, err := n.list(ctx, s, ModernProtocolVersion, d.caps)
	return surf, true, err
}

// unanswered reports whether the probe ended because its timer ran out while
// warden waited for the reply: the silence of a 2025-era server that ignores
// unknown requests. A write that timed out answering the server's own
// requests is not silence, and neither is any error once the timer was
// cancelled.
func unanswered(pctx context.Context, err error) bool {
	return errors.Is(pctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded)
}

// stdioLegacy spawns the server and captures it in the 2025 era. With
// forward set, an initialize refused with -32022 naming the modern revision
// moves the capture to a fresh process in the modern era.
func (n *negotiator) stdioLegacy(ctx context.Context, forward bool) (*surface.Surface, error) {
	c, err := n.startStdio(ctx)
	if err != nil {
		return nil, err
	}
	return n.legacyOn(ctx, n.session(c), forward)
}

// legacyOn runs the 2025-era handshake and lists on a stdio session.
//
// An initialize refused with -32022 naming the modern revision started no
// session of either era, so with forward set the modern capture goes on the
// same process: a server that is slow to start is not started again. Only
// if that process is gone does a fresh one get the modern capture.
func (n *negotiator) legacyOn(ctx context.Context, s *session, forward bool) (*surface.Surface, error) {
	version, caps, err := s.legacyHandshake(ctx)
	if err == nil {
		return n.list(ctx, s, version, caps)
	}
	if !fallsForward(err) {
		n.finish(s, err)
		return nil, err
	}
	if !forward {
		err = modernOnly(err)
		n.finish(s, err)
		return nil, err
	}
	n.reachedModern = true
	d, err := s.requireModern(ctx)
	if isGone(err) {
		n.finish(s, nil)
		return n.stdioModern(ctx)
	}
	if err != nil {
		n.finish(s, err)
		return nil, err
	}
	return n.list(ctx, s, ModernProtocolVersion, d.caps)
}

// stdioModern spawns the server and captures it in the modern era.
func (n *negotiator) stdioModern(ctx context.Context) (*surface.Surface, error) {
	c, err := n.startStdio(ctx)
	if err != nil {
		return nil, err
	}
	return n.modernOn(ctx, n.session(c))
}

// modernOn discovers a server that must be modern and lists what it offers.
func (n *negotiator) modernOn(ctx context.Context, s *session) (*surface.Surface, error) {
	n.reachedModern = true
	d, err := s.requireModern(ctx)
	if err != nil {
		n.finish(s, err)
		return nil, err
	}
	return n.list(ctx, s, ModernProtocolVersion, d.caps)
}

// eraHint adds to a failure under --protocol auto which era the capture
// ended in and the flag that forces the other, when the failure came from
// the server's answers: a server that serves each era differently, or one
// era badly, may still be captured in the other. Failures that no era
// changes (a missing command, the deadline, warden's bounds, credentials)
// are left as they are.
func (n *negotiator) eraHint(err error) error {
	var le *limitError
	var serr *httpStatusError
	var cerr *Error
	switch {
	case n.cfg.Protocol != ProtocolAuto, errors.As(err, &cerr), errors.As(err, &le),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.As(err, &serr) && serr.credentials(), errors.As(err, new(*authError)):
		return err
	case n.reachedModern:
		return fmt.Errorf("%w (captured as a %s server; --protocol legacy, the Action's protocol input, forces the 2025 era)", err, ModernProtocolVersion)
	}
	return fmt.Errorf("%w (captured as a 2025-era server; --protocol modern, the Action's protocol input, forces %s)", err, ModernProtocolVersion)
}

// modernOnly explains an initialize refused by a modern-only server when
// the user forced the 2025 era.
func modernOnly(err error) error {
	return fmt.Errorf("%w; the server speaks only %s (use --protocol auto or modern)", err, ModernProtocolVersion)
}

// overHTTP captures an HTTP endpoint in the era Options.Protocol asks for.
// The probe follows the specification's rules for streamable HTTP: only a
// DiscoverResult or -32022 is modern evidence; an error status other than
// those about credentials, rate or the server's health means a 2025-era
// server; a transport failure, 5xx, 401 or 403 is never a reason to fall back.
func (n *negotiator) overHTTP(ctx context.Context) (*surface.Surface, error) {
	switch {
	case n.cfg.Protocol == ProtocolLegacy:
		return n.httpLegacy(ctx, false)
	case n.cfg.Protocol == ProtocolModern:
		return n.modernOn(ctx, n.session(newHTTPConn(n.cfg, n.budget, true)))
	case n.cfg.Prefer == ProtocolLegacy:
		surf, err := n.httpLegacy(ctx, true)
		return n.orProbe(ctx, surf, err, n.httpProbe)
	}
	s := n.session(newHTTPConn(n.cfg, n.budget, true))
	res, err := s.discover(ctx)
	var rerr *rpcError
	var serr *httpStatusError
	switch {
	case errors.As(err, &serr) && !serr.legacyEvidence():
		n.finish(s, err)
		return nil, fmt.Errorf("server/discover: %w", err)
	case err == nil || errors.As(err, &rerr):
		n.probeAnswered = true
		if surf, done, err := n.answered(ctx, s, res, err); done {
			return surf, err
		}
	case errors.As(err, &serr):
		// A 4xx without a JSON-RPC error: a 2025-era server.
		n.probeAnswered = true
	default:
		n.finish(s, err)
		return nil, fmt.Errorf("server/discover: %w", err)
	}
	n.finish(s, nil)
	return n.httpLegacy(ctx, true)
}

// httpProbe sends server/discover on a fresh client state and, when the
// answer shows a modern server, lists it.
func (n *negotiator) httpProbe(ctx context.Context) (*surface.Surface, bool, error) {
	s := n.session(newHTTPConn(n.cfg, n.budget, true))
	res, err := s.discover(ctx)
	var serr *httpStatusError
	if errors.As(err, &serr) && serr.rpc == nil {
		n.finish(s, nil)
		return nil, false, nil
	}
	return n.probed(ctx, s, res, err)
}

// httpLegacy captures an HTTP endpoint in the 2025 era (streamable HTTP with
// sessions, or the 2024-11-05 HTTP+SSE transport), moving to the modern era
// when forward is set and initialize is refused with -32022 naming it.
func (n *negotiator) httpLegacy(ctx context.Context, forward bool) (*surface.Surface, error) {
	s := n.session(newHTTPConn(n.cfg, n.budget, false))
	version, caps, err := s.legacyHandshake(ctx)
	if err != nil {
		if fallsForward(err) {
			if forward {
				n.finish(s, nil)
				return n.modernOn(ctx, n.session(newHTTPConn(n.cfg, n.budget, true)))
			}
			err = modernOnly(err)
		}
		n.finish(s, err)
		return nil, err
	}
	return n.list(ctx, s, version, caps)
}

// httpStatusError is a non-2xx answer to a request. rpc is the JSON-RPC
// error its body carried, if it carried one.
type httpStatusError struct {
	status int
	rpc    *rpcError
	// text is the start of a text/plain body, quoted and escaped.
	text string
}

func (e *httpStatusError) Error() string {
	msg := fmt.Sprintf("server answered HTTP %d", e.status)
	if e.rpc != nil {
		msg = fmt.Sprintf("server answered HTTP %d with JSON-RPC error %d", e.status, e.rpc.code)
		if e.rpc.message != "" {
			msg += " (" + e.rpc.message + ")"
		}
	} else if e.text != "" {
		msg += " (" + e.text + ")"
	}
	if e.credentials() {
		msg += "; the server wants credentials: pass them with --header 'Authorization: Bearer …' (the Action's headers input, or headers in a client config)"
	}
	return msg
}

// Unwrap exposes the JSON-RPC error, so that callers treat "404 with
// -32601" like an in-band -32601.
func (e *httpStatusError) Unwrap() error {
	if e.rpc == nil {
		return nil
	}
	return e.rpc
}

// credentials reports whether the status is about credentials: 401, 403 or
// 407, which no protocol era changes.
func (e *httpStatusError) credentials() bool {
	switch e.status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired:
		return true
	}
	return false
}

// legacyEvidence reports whether the status answering the modern probe
// means a 2025-era server: any 4xx except those about credentials or rate.
func (e *httpStatusError) legacyEvidence() bool {
	switch e.status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired, http.StatusTooManyRequests:
		return false
	}
	return e.status >= 400 && e.status < 500
}

// rpcErrorBody reads a JSON-RPC error response from an error status's body,
// or returns nil when the body is not one.
func rpcErrorBody(data []byte) *rpcError {
	v, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		return nil
	}
	msg, err := classify(v)
	if err != nil || msg.err == nil {
		return nil
	}
	return msg.err
}

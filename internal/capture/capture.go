// Package capture connects to an MCP server, negotiates the protocol era and
// records the tools, resources and prompts it declares, keeping the server's
// raw JSON for every value that is later hashed.
//
// Two eras are spoken (docs/protocol.md). The 2026-07-28 revision has no
// handshake: server/discover, then the lists the server advertises, every
// request carrying its version and capabilities in _meta. The 2025 era
// reproduces the reference implementation's capture (docs: reference
// behaviour §8.2–§8.3) — same environment for stdio servers, same initialize
// request, the three list calls always made in the same order. By default a
// server/discover probe decides, and only positive evidence counts as modern.
//
// In both eras every pagination cursor is drained, and capture fails closed
// wherever the reference fails open: an error on any page, an invalid item, a
// repeated name, a cursor loop, an oversized message or a missed deadline is
// a capture failure, never an empty or partial section (SPEC §8.2 "Capture
// completeness").
//
// Two transports are supported: a child process speaking newline-delimited
// JSON-RPC on stdin/stdout (Options.Argv), and an HTTP endpoint (Options.URL)
// speaking Streamable HTTP, with a fallback to the legacy HTTP+SSE transport
// for servers that predate it.
package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wardenlock/warden/internal/surface"
)

// Defaults applied to zero-valued Options fields.
const (
	// DefaultTimeout is the reference's --timeout default.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxPages is the reference's page cap per list (SPEC §8.2).
	DefaultMaxPages = 256
	// DefaultMaxMessageBytes bounds one JSON-RPC message.
	DefaultMaxMessageBytes = 16 << 20
	// DefaultMaxTotalBytes bounds everything read from one server. It is a
	// few times the message bound: a real surface of a thousand tools is
	// well under a megabyte, and the bound is what keeps a hostile server
	// from streaming forever within the deadline. Parsed JSON values and
	// kept list items are charged to it too (see budget), which makes it a
	// bound on memory as well.
	DefaultMaxTotalBytes = 64 << 20
	// DefaultMaxItems bounds the items of one list (tools, resources or
	// prompts) across its pages. The largest real servers list a few
	// hundred; a list of a million minimal tools fits in the byte bound
	// but would cost gigabytes once built into a lock.
	DefaultMaxItems = 10_000
	// DefaultClientVersion is sent as clientInfo.version when
	// Options.Version is empty.
	DefaultClientVersion = "dev"
)

// Options say which server to capture and within which bounds.
type Options struct {
	// Argv is the stdio launch, command first. It is executed directly,
	// never through a shell (SPEC §6.1). Exactly one of Argv and URL is set.
	Argv []string
	// URL is a Streamable HTTP (or legacy HTTP+SSE) endpoint.
	URL string
	// Headers are extra HTTP headers, each "Name: value". Every "${NAME}" in
	// a value is replaced by the environment variable NAME, so that secrets
	// need not appear in argv; an unset variable is an error.
	Headers []string
	// Env passes variables to a stdio server beyond the fixed allowlist
	// (HOME LOGNAME PATH SHELL TERM USER): "NAME" copies warden's own value
	// (an unset variable is an error), "NAME=VALUE" sets one.
	Env []string
	// Timeout bounds the whole capture, handshake to last page. Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// MaxPages bounds the cursor chain of each list. Zero means
	// DefaultMaxPages.
	MaxPages int
	// MaxItems bounds the items of each list across its pages. Zero
	// means DefaultMaxItems.
	MaxItems int
	// MaxMessageBytes bounds one JSON-RPC message (one stdio line, one HTTP
	// JSON body, one server-sent event). Zero means DefaultMaxMessageBytes.
	MaxMessageBytes int64
	// MaxTotalBytes bounds all the data read from the server. Zero means
	// DefaultMaxTotalBytes.
	MaxTotalBytes int64
	// Stderr, when set, receives a copy of a stdio server's stderr (the
	// reference passes it through). It is captured either way.
	Stderr io.Writer
	// Version is warden's version, sent as clientInfo.version.
	Version string
	// Dir is a stdio server's working directory; a relative Argv[0] is
	// resolved against it. Empty means warden's own.
	Dir string
	// Protocol is the protocol era to speak; "" means ProtocolAuto.
	Protocol Protocol
	// Prefer, under ProtocolAuto, is the era to try first: the era a lock
	// was pinned in, so that a check speaks to a server that serves both
	// eras in the era its lock recorded, whatever its start-up time.
	// ProtocolLegacy sends initialize first (still moving to the modern
	// era when initialize is refused with -32022 naming it);
	// ProtocolModern probes with server/discover and waits longer for it
	// before taking silence for a 2025-era server. "" is no preference.
	Prefer Protocol
	// Identity, when set, is the launch the surface records (and a lock
	// stores) in place of Argv or URL: the launch as written in a client
	// config, before its variables were expanded for the launch. It must be
	// of the same kind (a command for Argv, a URL for URL).
	Identity *surface.Server
	// Reaper, when set, ends the orphans a stdio server leaves behind
	// outside its process group and tree (see Reaper). The program's entry
	// point creates one per process; nil skips the orphan sweep.
	Reaper *Reaper

	// StartupTimeout bounds, over the whole capture, the time stdio servers
	// spend starting: from a spawn until the server reads what warden wrote
	// to it. That time does not use up Timeout, so a package runner's first
	// download of a server (npx on a cold cache) does not fail the capture.
	// Zero means DefaultStartupTimeout. Where the pipe cannot be inspected
	// (not Linux) start-up counts against Timeout as before.
	StartupTimeout time.Duration
	// Progress, when set, is called with a line saying what the capture
	// waits for and how long so far, after 5 s of waiting and every 10 s.
	Progress func(line string)
	// AcceptListErrors names, per list ("tools", "resources", "prompts"),
	// the one JSON-RPC error code a server may answer that list's first page
	// with and still be captured: the section is then empty and the surface
	// records the accepted error in Surface.AcceptedErrors. It is the
	// explicit, recorded opt-in for servers whose lists need a live backend;
	// any other error, or this one on a later page, still fails.
	AcceptListErrors map[string]int64

	// Authorizer, when set, authorizes the requests to an HTTP server
	// (OAuth: internal/oauth). Its header goes to the server's origin only,
	// and it cannot be combined with an Authorization header in Headers.
	Authorizer Authorizer

	// started, when set, is called with the process group of a freshly
	// started stdio server. Tests use it to check that the group is gone.
	started func(pgid int)
}

// ErrorKind classifies a capture failure.
type ErrorKind int

const (
	// Failed is any failure other than the two below: a protocol
	// violation, a refused surface, a server error, a transport error.
	Failed ErrorKind = iota
	// TimedOut means the deadline (Options.Timeout) passed.
	TimedOut
	// CommandNotFound means the stdio command could not be found.
	CommandNotFound
)

// Error is a capture failure. Its message is a single line in the
// reference's wording. Server-provided text reaches it only escaped and
// length-capped: an identifier such as a tool name or cursor, the start of
// a JSON-RPC error's message or a text/plain error body, and the tail of a
// stdio server's stderr. Descriptions and other item text never do.
type Error struct {
	Kind   ErrorKind
	msg    string
	err    error
	exited bool
}

// ServerExited reports whether the failure came with a stdio server that
// had exited by itself (its exit status is in the message).
func (e *Error) ServerExited() bool { return e.exited }

// Error returns the one-line message.
func (e *Error) Error() string { return e.msg }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.err }

// config is Options after defaults and validation.
type config struct {
	Options
	// display names the server in messages: argv[0] or the redacted URL.
	display string
	url     *url.URL
	env     []string
	headers [][2]string
}

// Capture connects to the server described by o, negotiates the protocol
// era (Options.Protocol) and returns the declared surface. Any failure is
// returned as an *Error, except invalid Options, which are reported as plain
// errors.
func Capture(ctx context.Context, o Options) (*surface.Surface, error) {
	cfg, err := configure(o)
	if err != nil {
		return nil, err
	}
	clk := newClock(ctx, cfg)
	defer clk.release()
	var cctx context.Context = clk

	n := &negotiator{cfg: cfg, budget: &budget{limit: cfg.MaxTotalBytes}, clock: clk}
	var surf *surface.Surface
	if cfg.url != nil {
		surf, err = n.overHTTP(cctx)
	} else {
		surf, err = n.overStdio(cctx)
	}
	if err != nil {
		ferr := cfg.failure(ctx, cctx, n.eraHint(err), n.diag, n.stage, n.stray, clk.startupSpent())
		if e, ok := ferr.(*Error); ok && e.Kind == Failed {
			e.exited = n.exited
		}
		return nil, ferr
	}
	switch {
	case cfg.Identity != nil:
		surf.Server = surface.Server{Command: cfg.Identity.Command, Args: append([]string{}, cfg.Identity.Args...), URL: cfg.Identity.URL}
	case cfg.url != nil:
		surf.Server = surface.Server{URL: cfg.URL}
	default:
		surf.Server = surface.Server{Command: cfg.Argv[0], Args: append([]string{}, cfg.Argv[1:]...)}
	}
	return surf, nil
}

// configure validates o and applies defaults.
func configure(o Options) (*config, error) {
	cfg := &config{Options: o}
	switch {
	case len(o.Argv) > 0 && o.URL != "":
		return nil, errors.New("capture: both a command and a URL were given")
	case len(o.Argv) == 0 && o.URL == "":
		return nil, errors.New("capture: neither a command nor a URL was given")
	case o.Timeout < 0 || o.StartupTimeout < 0 || o.MaxPages < 0 || o.MaxItems < 0 || o.MaxMessageBytes < 0 || o.MaxTotalBytes < 0:
		return nil, errors.New("capture: timeout and limits must not be negative")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.StartupTimeout == 0 {
		cfg.StartupTimeout = DefaultStartupTimeout
	}
	if cfg.MaxPages == 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	if cfg.MaxItems == 0 {
		cfg.MaxItems = DefaultMaxItems
	}
	if cfg.MaxMessageBytes == 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.MaxTotalBytes == 0 {
		cfg.MaxTotalBytes = DefaultMaxTotalBytes
	}
	// The line reader works with int; keep the bound well inside it on
	// 32-bit platforms too.
	cfg.MaxMessageBytes = min(cfg.MaxMessageBytes, 1<<30)
	if cfg.Version == "" {
		cfg.Version = DefaultClientVersion
	}
	if id := o.Identity; id != nil && (id.IsHTTP() != (o.URL != "") || (!id.IsHTTP() && id.Command == "")) {
		return nil, errors.New("capture: the recorded identity is not of the launch's kind")
	}
	for list := range o.AcceptListErrors {
		if list != "tools" && list != "resources" && list != "prompts" {
			return nil, fmt.Errorf("capture: accepted list error names %s, not tools, resources or prompts", quoteName(list))
		}
	}
	p, err := ParseProtocol(string(o.Protocol))
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	cfg.Protocol = p
	if o.Prefer != "" && o.Prefer != ProtocolModern && o.Prefer != ProtocolLegacy {
		return nil, fmt.Errorf("capture: preferred era %s is not modern or legacy", quoteName(string(o.Prefer)))
	}
	if o.URL != "" {
		if len(o.Env) > 0 {
			return nil, errors.New("capture: --env applies to stdio servers only")
		}
		u, err := parseServerURL(o.URL)
		if err != nil {
			return nil, err
		}
		cfg.url = u
		cfg.display = u.Redacted()
		if o.Identity != nil {
			// The URL as written, not with the variables expanded.
			cfg.display = redactedURL(o.Identity.URL)
		}
		if cfg.headers, err = parseHeaders(o.Headers); err != nil {
			return nil, err
		}
		if o.Authorizer != nil {
			for _, h := range cfg.headers {
				if h[0] == "Authorization" {
					return nil, errors.New("capture: an Authorization header cannot be combined with OAuth")
				}
			}
		}
		return cfg, nil
	}
	if len(o.Headers) > 0 {
		return nil, errors.New("capture: headers apply to HTTP servers only")
	}
	if o.Authorizer != nil {
		return nil, errors.New("capture: OAuth applies to HTTP servers only")
	}
	if o.Argv[0] == "" {
		return nil, errors.New("capture: the server command is empty")
	}
	cfg.display = o.Argv[0]
	if o.Identity != nil {
		cfg.display = o.Identity.Command
	}
	env, err := childEnv(o.Env)
	if err != nil {
		return nil, err
	}
	cfg.env = env
	return cfg, nil
}

// failure turns an error from any stage into the one-line *Error the CLI
// prints. diag is what the transport learned while shutting down (exit
// status, stderr tail); it is already sanitised.
func (cfg *config) failure(parent, cctx context.Context, err error, diag, stage, stray string, neverStarted bool) error {
	name := oneLine(cfg.display, 200)
	var e *Error
	switch {
	case errors.As(err, &e):
		// startStdio already classified it (command not found).
		return e
	case parent.Err() != nil:
		return &Error{Kind: Failed, msg: fmt.Sprintf("Capture of MCP server '%s' was cancelled.", name), err: parent.Err()}
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && neverStarted:
		secs := strconv.FormatFloat(cfg.StartupTimeout.Seconds(), 'f', -1, 64)
		msg := fmt.Sprintf("MCP server '%s' did not start within %ss: it never read its input (allow more time with --startup-timeout SECONDS, the Action's startup-timeout input).", name, secs)
		if hint := downloadHint(cfg.Argv, "--startup-timeout SECONDS (the Action's startup-timeout input)"); hint != "" {
			msg = fmt.Sprintf("MCP server '%s' did not start within %ss: it never read its input; %s.", name, secs, hint)
		}
		return &Error{Kind: TimedOut, msg: withDiag(msg, diag), err: context.DeadlineExceeded}
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		secs := strconv.FormatFloat(cfg.Timeout.Seconds(), 'f', -1, 64)
		what := "did not complete the handshake"
		switch {
		case strings.Contains(stage, "/list"):
			what = "did not answer " + stage
		case stage != "":
			what += " (no reply to " + stage + ")"
		}
		var msg string
		if cfg.url != nil {
			msg = fmt.Sprintf("MCP server at '%s' %s within %ss (it may be unreachable or hung).", name, what, secs)
		} else {
			msg = fmt.Sprintf("MCP server '%s' %s within %ss (it may be hung or waiting on input).", name, what, secs)
			if hint := downloadHint(cfg.Argv, "--timeout SECONDS (the Action's timeout input)"); hint != "" {
				msg = strings.TrimSuffix(msg, ".") + "; " + hint
			}
		}
		return &Error{Kind: TimedOut, msg: withDiag(withDiag(msg, stray), diag), err: context.DeadlineExceeded}
	}
	what := "MCP server '" + name + "'"
	if cfg.url != nil {
		what = "MCP server at '" + name + "'"
	}
	msg := fmt.Sprintf("Failed to capture %s: %s", what, oneLine(err.Error(), 600))
	return &Error{Kind: Failed, msg: withDiag(msg, diag), err: err}
}

func withDiag(msg, diag string) string {
	if diag == "" {
		return msg
	}
	return strings.TrimSuffix(msg, ".") + "; " + diag
}

// redactedURL is raw with any password hidden, or a placeholder when raw
// does not parse.
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(the configured URL)"
	}
	return u.Redacted()
}

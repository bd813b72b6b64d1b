package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
)

const (
	// deleteTimeout bounds the best-effort DELETE that ends a session.
	deleteTimeout = time.Second
	// maxDiscard bounds how much of an ignored response body is read
	// (acknowledgements of notifications and of our answers).
	maxDiscard = 64 << 10
	// maxRedirects matches net/http's own default.
	maxRedirects = 10
	// maxSessionID bounds the Mcp-Session-Id a server may hand out.
	maxSessionID = 1024
	// maxResumes bounds how often one reply stream may be resumed.
	maxResumes = 32
	// defaultRetry and maxRetry bound the wait before resuming a stream
	// when the server did not ask for a delay, or asked for a long one.
	defaultRetry = 250 * time.Millisecond
	maxRetry     = 5 * time.Second
)

// parseServerURL checks an HTTP(S) endpoint. Errors never echo the URL: it
// may carry credentials.
func parseServerURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("capture: the server URL cannot be parsed")
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return nil, errors.New("capture: the server URL must start with http:// or https://")
	}
	if u.Host == "" {
		return nil, errors.New("capture: the server URL has no host")
	}
	return u, nil
}

// reservedHeaders are set by the transport itself; letting a user override
// them would break or spoof the protocol.
func reservedHeaders() []string {
	return []string{"Accept", "Connection", "Content-Length", "Content-Type", "Host",
		"Last-Event-Id", "Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version", "Mcp-Session-Id", "Transfer-Encoding"}
}

// parseHeaders turns "Name: value" entries into header pairs, expanding
// ${NAME} from the environment. Errors name the header, never its value.
func parseHeaders(entries []string) ([][2]string, error) {
	var out [][2]string
	for _, e := range entries {
		name, value, ok := strings.Cut(e, ":")
		name = strings.TrimSpace(name)
		if !ok || !isToken(name) {
			return nil, fmt.Errorf("capture: invalid header %s: want \"Name: value\"", quoteName(name))
		}
		canon := http.CanonicalHeaderKey(name)
		for _, r := range reservedHeaders() {
			if canon == r {
				return nil, fmt.Errorf("capture: header %s is set by warden itself and cannot be overridden", quoteName(name))
			}
		}
		v, err := expandEnv(strings.Trim(value, " \t"))
		if err != nil {
			return nil, fmt.Errorf("capture: header %s: %w", quoteName(name), err)
		}
		for i := 0; i < len(v); i++ {
			if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
				return nil, fmt.Errorf("capture: header %s: the value contains a control character", quoteName(name))
			}
		}
		out = append(out, [2]string{canon, v})
	}
	return out, nil
}

// isToken reports whether s is an RFC 9110 token, the grammar of a header
// field name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// expandEnv replaces every ${NAME} in s with the environment variable NAME.
// Only the braced form is recognised, so a literal "$" elsewhere stays as
// written; an unset variable or a malformed reference is an error, because
// silently sending an empty credential is worse than failing.
func expandEnv(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", errors.New("unterminated ${ in the value")
		}
		name := s[i+2 : i+end]
		if !IsEnvName(name) {
			return "", fmt.Errorf("invalid variable reference ${%s}", oneLine(name, 40))
		}
		v, ok := os.LookupEnv(name)
		if !ok {
			return "", fmt.Errorf("environment variable %s is not set", name)
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

// IsEnvName reports whether s is a name a "${NAME}" reference may use: a
// letter or underscore, then letters, digits and underscores.
func IsEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// sameOrigin reports whether two URLs share scheme and host (port included).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// httpConn speaks Streamable HTTP, in one of two eras: modern (2026-07-28:
// one independent POST per request, the protocol version and method in
// headers, no session) or 2025-era (a session opened by initialize, with a
// fallback to the legacy HTTP+SSE transport once the server has shown it
// predates Streamable HTTP).
type httpConn struct {
	cfg    *config
	client *http.Client
	budget *budget
	modern bool

	initialized bool // the first POST (initialize) has been answered
	sessionID   string
	version     string

	// Streamable HTTP: the reply source of the last request.
	pending []*jsonv.Value
	body    io.ReadCloser
	events  *sseReader
	resumes int

	// Legacy HTTP+SSE.
	legacy    bool
	endpoint  *url.URL
	inbox     chan inbound
	quit      chan struct{}
	cancelGET context.CancelFunc
	getBody   io.ReadCloser
}

func newHTTPConn(cfg *config, b *budget, modern bool) *httpConn {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	c := &httpConn{cfg: cfg, budget: b, modern: modern}
	c.client = &http.Client{
		Transport: transport,
		// A redirect may move within the server's origin, never to another
		// one: headers (credentials) would follow it, and the captured
		// surface would no longer be the one the URL names.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			if !sameOrigin(req.URL, via[0].URL) {
				return errors.New("refusing to follow a redirect to another origin")
			}
			return nil
		},
	}
	return c
}

// newRequest builds a request carrying the user's headers and, once known,
// the session id and protocol version.
func (c *httpConn) newRequest(ctx context.Context, method string, u *url.URL, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, fmt.Errorf("building the %s request: %w", method, err)
	}
	for _, h := range c.cfg.headers {
		req.Header.Add(h[0], h[1])
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "warden/"+c.cfg.Version)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if !c.legacy {
		if c.sessionID != "" {
			req.Header.Set("Mcp-Session-Id", c.sessionID)
		}
		if c.version != "" {
			req.Header.Set("Mcp-Protocol-Version", c.version)
		}
	}
	return req, nil
}

// do sends a request. Transport errors are reported without the URL that
// net/http puts in them, which may be a server-chosen redirect target.
//
// With an Authorizer, every request carries its header, and a 401 or 403 is
// shown to it: when it asks, the request is sent again (bounded by
// maxAuthRetries).
func (c *httpConn) do(req *http.Request) (*http.Response, error) {
	for tries := 0; ; tries++ {
		if err := c.authorize(req); err != nil {
			return nil, err
		}
		resp, err := c.client.Do(req)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return nil, fmt.Errorf("HTTP %s failed: %w", req.Method, err)
		}
		again, err := c.challenged(req, resp, tries)
		if err != nil {
			return nil, err
		}
		if !again {
			return resp, nil
		}
		discard(resp.Body)
		if err := rewind(req); err != nil {
			return nil, err
		}
	}
}

func (c *httpConn) send(ctx context.Context, msg []byte, kind msgKind, method string) error {
	if c.legacy {
		return c.postLegacy(ctx, msg)
	}
	if kind == kindRequest {
		c.closeStream()
		c.resumes = 0
	}
	req, err := c.newRequest(ctx, http.MethodPost, c.cfg.url, msg)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.modern {
		// The routing headers must repeat what the body says; a modern
		// server answers 400 (-32020) when they differ.
		req.Header.Set("Mcp-Protocol-Version", ModernProtocolVersion)
		req.Header.Set("Mcp-Method", method)
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	if !c.initialized && !c.modern {
		c.initialized = true
		if fallsBack(resp.StatusCode) {
			// A server that speaks only the modern revision refuses
			// initialize with 400 and -32022; that is for the caller to
			// act on, not a reason to try the older transport.
			if serr := c.statusError(resp); serr.rpc != nil && fallsForward(serr.rpc) {
				return serr
			}
			if err := c.openLegacy(ctx, resp.StatusCode); err != nil {
				return err
			}
			return c.postLegacy(ctx, msg)
		}
		if err := c.takeSessionID(resp); err != nil {
			discard(resp.Body)
			return err
		}
	}
	if kind != kindRequest {
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("a message that needs no reply: %w", c.statusError(resp))
		}
		discard(resp.Body)
		return nil
	}
	return c.takeReply(resp)
}

// fallsBack says whether the answer to the first POST means "no Streamable
// HTTP here": the MCP backwards-compatibility rule is any 4xx, except those
// that are about the client (credentials, rate) rather than the transport.
func fallsBack(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired, http.StatusTooManyRequests:
		return false
	}
	return status >= 400 && status < 500
}

// takeSessionID keeps the session id handed out with the initialize reply.
func (c *httpConn) takeSessionID(resp *http.Response) error {
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		return nil
	}
	if len(id) > maxSessionID {
		return fmt.Errorf("server sent an Mcp-Session-Id longer than %d bytes", maxSessionID)
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return errors.New("server sent an Mcp-Session-Id with characters outside visible ASCII")
		}
	}
	c.sessionID = id
	return nil
}

// takeReply makes a request's response the source recv reads from.
func (c *httpConn) takeReply(resp *http.Response) error {
	switch {
	case resp.StatusCode == http.StatusNotFound && c.sessionID != "":
		discard(resp.Body)
		return errors.New("server no longer knows the session (HTTP 404)")
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		discard(resp.Body)
		return fmt.Errorf("server answered a request with HTTP %d and no reply", resp.StatusCode)
	case resp.StatusCode/100 != 2:
		return c.statusError(resp)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		defer resp.Body.Close()
		data, err := readBounded(&countingReader{r: resp.Body, b: c.budget}, c.cfg.MaxMessageBytes)
		if err != nil {
			return fmt.Errorf("reading the reply: %w", err)
		}
		v, err := c.budget.parse(data, "server sent a reply that is not valid JSON")
		if err != nil {
			return err
		}
		c.pending = append(c.pending[:0], v)
	case "text/event-stream":
		c.body = resp.Body
		c.events = newSSEReader(&countingReader{r: resp.Body, b: c.budget}, int(c.cfg.MaxMessageBytes))
	default:
		discard(resp.Body)
		return fmt.Errorf("server answered with content type %s, not JSON or an event stream", quoteName(mt))
	}
	return nil
}

// statusError reads and closes the body of an error status and returns the
// error: with the JSON-RPC error a JSON body carries, or the start of a
// text/plain one (the Go SDK answers "Unsupported protocol version" so).
// Only a small body is read: an error needs no more, and this bounds what an
// error status may cost.
func (c *httpConn) statusError(resp *http.Response) *httpStatusError {
	defer discard(resp.Body)
	e := &httpStatusError{status: resp.StatusCode}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" && mt != "text/plain" {
		return e
	}
	data, err := readBounded(&countingReader{r: resp.Body, b: c.budget}, maxDiscard)
	if err != nil {
		return e
	}
	if mt == "application/json" {
		e.rpc = rpcErrorBody(data)
	} else if text := strings.TrimSpace(string(data)); text != "" {
		e.text = serverClause(text)
	}
	return e
}

// readBounded reads all of r, refusing more than limit bytes.
func readBounded(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &limitError{what: "a message from the server", limit: limit}
	}
	return data, nil
}

// discard reads a little of an ignored body, so that the connection can be
// reused, and closes it.
func discard(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDiscard))
	_ = body.Close()
}

func (c *httpConn) closeStream() {
	if c.body != nil {
		_ = c.body.Close()
	}
	c.body, c.events, c.pending = nil, nil, nil
}

func (c *httpConn) recv(ctx context.Context) (*jsonv.Value, error) {
	if c.legacy {
		select {
		case in, ok := <-c.inbox:
			if !ok {
				return nil, errors.New("server closed its event stream")
			}
			return in.v, in.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if len(c.pending) > 0 {
		v := c.pending[0]
		c.pending = c.pending[1:]
		return v, nil
	}
	if c.events == nil {
		return nil, errors.New("server's reply did not answer the request")
	}
	for {
		ev, err := c.events.next()
		if errors.Is(err, io.EOF) {
			if c.modern {
				// The modern revision has no resumption: a stream
				// that ends early lost the reply.
				c.closeStream()
				return nil, errors.New("server's reply stream ended before the reply")
			}
			if err := c.resume(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the reply stream: %w", err)
		}
		// Events without data (priming events that only carry an id) and
		// events of other types carry no JSON-RPC message.
		if ev.typ != "message" || isBlank(ev.data) {
			continue
		}
		v, err := c.budget.parse(ev.data, "server sent an event that is not valid JSON")
		if err != nil {
			return nil, err
		}
		return v, nil
	}
}

func (c *httpConn) negotiated(version string) { c.version = version }

// resume reopens a reply stream that ended before the reply. Since
// 2025-11-25 a server may close the stream after an event that carries an id
// and expect the client to poll for the rest: a GET with Last-Event-ID,
// after the retry delay it asked for. A stream that ended without any event
// id cannot be resumed and fails the capture.
func (c *httpConn) resume(ctx context.Context) error {
	id, retry := c.events.lastID, c.events.retry
	c.closeStream()
	if id == "" {
		return errors.New("server's reply stream ended before the reply")
	}
	c.resumes++
	if c.resumes > maxResumes {
		return fmt.Errorf("server's reply stream ended %d times without the reply", maxResumes)
	}
	if retry == 0 {
		retry = defaultRetry
	}
	t := time.NewTimer(min(retry, maxRetry))
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
	req, err := c.newRequest(ctx, http.MethodGet, c.cfg.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", id)
	resp, err := c.do(req)
	if err != nil {
		return fmt.Errorf("resuming the reply stream: %w", err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		discard(resp.Body)
		return fmt.Errorf("server's reply stream ended before the reply, and resuming it answered HTTP %d", resp.StatusCode)
	}
	c.body = resp.Body
	c.events = newSSEReader(&countingReader{r: resp.Body, b: c.budget}, int(c.cfg.MaxMessageBytes))
	c.events.lastID = id
	return nil
}

// openLegacy switches to the HTTP+SSE transport of protocol 2024-11-05: GET
// the URL for an event stream, wait for its endpoint event, then POST to that
// endpoint and read replies from the stream.
func (c *httpConn) openLegacy(ctx context.Context, postStatus int) error {
	c.legacy = true
	gctx, cancel := context.WithCancel(ctx)
	c.cancelGET = cancel
	req, err := c.newRequest(gctx, http.MethodGet, c.cfg.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := c.do(req)
	if err != nil {
		return fmt.Errorf("streamable HTTP POST answered HTTP %d, and the legacy SSE transport failed: %w", postStatus, err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		discard(resp.Body)
		return fmt.Errorf("streamable HTTP POST answered HTTP %d, and the legacy SSE GET answered HTTP %d with content type %s",
			postStatus, resp.StatusCode, quoteName(mt))
	}
	c.getBody = resp.Body
	c.inbox = make(chan inbound)
	c.quit = make(chan struct{})
	endpoint := make(chan string, 1)
	go c.readLegacy(resp.Body, endpoint)

	select {
	case ep := <-endpoint:
		ref, err := url.Parse(strings.TrimSpace(ep))
		if err != nil {
			return errors.New("server's endpoint event does not hold a valid URL")
		}
		u := c.cfg.url.ResolveReference(ref)
		if !sameOrigin(u, c.cfg.url) {
			return errors.New("server's endpoint event points to another origin; refused")
		}
		c.endpoint = u
		return nil
	case in, ok := <-c.inbox:
		if !ok || in.err == nil {
			return errors.New("server's event stream did not start with an endpoint event")
		}
		return in.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readLegacy reads the legacy event stream: the first endpoint event goes to
// endpoint, message events to recv.
func (c *httpConn) readLegacy(body io.Reader, endpoint chan<- string) {
	defer close(c.inbox)
	events := newSSEReader(&countingReader{r: body, b: c.budget}, int(c.cfg.MaxMessageBytes))
	haveEndpoint := false
	for {
		ev, err := events.next()
		var in inbound
		switch {
		case errors.Is(err, io.EOF):
			in.err = errors.New("server closed its event stream")
		case err != nil:
			in.err = fmt.Errorf("reading the event stream: %w", err)
		case ev.typ == "endpoint":
			if !haveEndpoint {
				haveEndpoint = true
				endpoint <- string(ev.data)
			}
			continue
		case ev.typ != "message" || isBlank(ev.data):
			continue
		case !haveEndpoint:
			in.err = errors.New("server sent a message before its endpoint event")
		default:
			v, perr := c.budget.parse(ev.data, "server sent an event that is not valid JSON")
			if perr != nil {
				in.err = perr
			} else {
				in.v = v
			}
		}
		select {
		case c.inbox <- in:
		case <-c.quit:
			return
		}
		if in.err != nil {
			return
		}
	}
}

// postLegacy sends one message to the legacy endpoint; replies arrive on the
// event stream, so the POST's own body is ignored.
func (c *httpConn) postLegacy(ctx context.Context, msg []byte) error {
	req, err := c.newRequest(ctx, http.MethodPost, c.endpoint, msg)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	discard(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("server's SSE endpoint answered HTTP %d", resp.StatusCode)
	}
	return nil
}

// close ends the session: the legacy stream is dropped; a Streamable HTTP
// session is ended with a best-effort DELETE, as the MCP transport asks.
func (c *httpConn) close(bool) string {
	c.closeStream()
	if c.legacy {
		if c.cancelGET != nil {
			c.cancelGET()
		}
		if c.quit != nil {
			close(c.quit)
		}
		if c.getBody != nil {
			_ = c.getBody.Close()
		}
	} else if c.sessionID != "" {
		ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
		if req, err := c.newRequest(ctx, http.MethodDelete, c.cfg.url, nil); err == nil && c.authorize(req) == nil {
			if resp, err := c.client.Do(req); err == nil {
				discard(resp.Body)
			}
		}
		cancel()
	}
	c.client.CloseIdleConnections()
	return ""
}

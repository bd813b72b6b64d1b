package capture

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// maxAuthRetries bounds how often one request is sent again after the
// server refused it with 401 or 403 and the Authorizer asked for a retry:
// once for a first or renewed token, once more for a step-up.
const maxAuthRetries = 2

// Authorizer supplies the Authorization header of requests to an HTTP
// server and reacts to the server's refusals (internal/oauth implements it
// for the MCP authorization spec). Its errors must never quote a credential.
type Authorizer interface {
	// Authorization returns the Authorization header value for a request to
	// the server ("" = none).
	Authorization(ctx context.Context) (string, error)
	// Challenged is given a 401/403 answer (its headers; the body is not
	// read); true means the request is sent once more.
	Challenged(ctx context.Context, status int, header http.Header) (bool, error)
}

// RequestAuthorizer is an Authorizer that signs each request itself (a
// DPoP proof, RFC 9449, names the method and URL): capture calls
// AuthorizeRequest instead of Authorization when an Authorizer has it.
type RequestAuthorizer interface {
	Authorizer
	// AuthorizeRequest sets the request's Authorization (and any proof)
	// headers, or none before the server first asked.
	AuthorizeRequest(ctx context.Context, req *http.Request) error
}

// authorize sets the Authorizer's header on a request to the server's own
// origin. Every request warden makes goes there (a legacy endpoint and a
// redirect must stay on it), so the origin test is a second lock, not the
// only one: a credential must never leave the origin it was issued for.
func (c *httpConn) authorize(req *http.Request) error {
	a := c.cfg.Authorizer
	if a == nil {
		return nil
	}
	req.Header.Del("Authorization")
	req.Header.Del("DPoP")
	if !sameOrigin(req.URL, c.cfg.url) {
		return nil
	}
	if ra, ok := a.(RequestAuthorizer); ok {
		if err := ra.AuthorizeRequest(req.Context(), req); err != nil {
			return &authError{err: err}
		}
		return nil
	}
	v, err := a.Authorization(req.Context())
	if err != nil {
		return &authError{err: err}
	}
	if v != "" {
		req.Header.Set("Authorization", v)
	}
	return nil
}

// challenged says whether a refused request should be sent again, asking
// the Authorizer. The response is left unread when it should not, so that
// the caller reports the status as it would without an Authorizer.
func (c *httpConn) challenged(req *http.Request, resp *http.Response, tries int) (bool, error) {
	a := c.cfg.Authorizer
	if a == nil || tries >= maxAuthRetries ||
		(resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return false, nil
	}
	if req.Body != nil && req.GetBody == nil {
		return false, nil
	}
	again, err := a.Challenged(req.Context(), resp.StatusCode, resp.Header.Clone())
	if err != nil {
		discard(resp.Body)
		return false, &authError{status: resp.StatusCode, err: err}
	}
	return again, nil
}

// rewind prepares a request to be sent again: a fresh copy of its body.
func rewind(req *http.Request) error {
	if req.GetBody == nil {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return errors.New("cannot resend the request body")
	}
	req.Body = body
	return nil
}

// authError is a failure of the Authorizer: of credentials, which no
// protocol era changes, so it is never a reason to probe the other era.
type authError struct {
	status int // the refusal that started it; 0 before any
	err    error
}

func (e *authError) Error() string {
	if e.status == 0 {
		return e.err.Error()
	}
	return fmt.Sprintf("HTTP %d, and %v", e.status, e.err)
}

func (e *authError) Unwrap() error { return e.err }

package oauthlogin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// probeBody is a tools/list request, what a capture needs authorization
// for: a protected server answers it 401 before reading it, including one
// that lets initialize through unauthenticated (the MCP spec allows
// protecting per method).
const probeBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`

// ErrNotProtected is returned by Challenge when the server answers without
// asking for authorization.
var ErrNotProtected = errors.New("the server did not ask for authorization")

// Challenge sends serverURL one unauthenticated request and returns the
// headers of its 401 (or 403) answer, whose WWW-Authenticate discovery
// reads.
func Challenge(ctx context.Context, hc *http.Client, serverURL string) (http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(probeBody))
	if err != nil {
		return nil, fmt.Errorf("request %s: %w", clip(serverURL), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("request %s: %w", clip(serverURL), err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		return resp.Header, nil
	}
	return nil, fmt.Errorf("%w (HTTP %d to an unauthenticated tools/list): no login is needed", ErrNotProtected, resp.StatusCode)
}

// NewHTTPClient is the client a login uses: bounded in time, and refusing a
// redirect to another origin, so no request body with a code or a secret
// follows one.
func NewHTTPClient() *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			prev := via[len(via)-1].URL
			if req.URL.Scheme != prev.Scheme || req.URL.Host != prev.Host {
				return fmt.Errorf("refused a redirect from %s to another origin, %s", prev.Host, clip(req.URL.Host))
			}
			if len(via) >= 5 {
				return errors.New("more than 5 redirects")
			}
			return nil
		},
	}
}

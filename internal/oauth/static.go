package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/wardenlock/warden/internal/capture"
)

// TokenAuthorizer presents an access token obtained elsewhere (warden auth
// login --print access-token): as Bearer, or, with the key it is bound to,
// with the DPoP scheme and a fresh proof on every request (RFC 9449 §7.1).
// It fetches nothing; a refused token stays refused, but for one retry
// with a DPoP nonce the server asks for.
type TokenAuthorizer struct {
	serverURL *url.URL
	token     string
	dpop      *DPoP
	mu        sync.Mutex
}

var _ capture.RequestAuthorizer = (*TokenAuthorizer)(nil)

// NewTokenAuthorizer presents token to serverURL; key, when set, is the
// DPoP key the token is bound to.
func NewTokenAuthorizer(serverURL, token string, key *DPoPKey) (*TokenAuthorizer, error) {
	if err := CheckURL(serverURL); err != nil {
		return nil, fmt.Errorf("OAuth: the server URL: %w", err)
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, errors.New("OAuth: the server URL cannot be parsed")
	}
	if token == "" {
		return nil, errors.New("OAuth: no access token")
	}
	a := &TokenAuthorizer{serverURL: u, token: token}
	if key != nil {
		a.dpop = NewDPoP(key)
	}
	return a, nil
}

// Authorization is the header without a proof (for callers that cannot
// sign per request).
func (a *TokenAuthorizer) Authorization(context.Context) (string, error) {
	if a.dpop != nil {
		return "DPoP " + a.token, nil
	}
	return "Bearer " + a.token, nil
}

// AuthorizeRequest sets the Authorization header and, with a key, the
// request's own DPoP proof.
func (a *TokenAuthorizer) AuthorizeRequest(ctx context.Context, req *http.Request) error {
	v, _ := a.Authorization(ctx)
	req.Header.Set("Authorization", v)
	if a.dpop == nil {
		return nil
	}
	proof, err := a.dpop.Proof(req.Method, req.URL, a.token)
	if err != nil {
		return fmt.Errorf("OAuth: %w", err)
	}
	req.Header.Set("DPoP", proof)
	return nil
}

// Challenged retries only a 401 use_dpop_nonce with a nonce not tried yet.
func (a *TokenAuthorizer) Challenged(_ context.Context, status int, header http.Header) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.dpop == nil || !DPoPChallenge(status, header) {
		return false, nil
	}
	return a.dpop.Remember(a.serverURL, header), nil
}

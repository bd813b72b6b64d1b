package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/oauth2"

	"github.com/wardenlock/warden/internal/capture"
)

// maxStepUps bounds the step-up rounds (403 insufficient_scope) of one
// capture; maxRenewals the fresh tokens fetched after the server refused
// one with 401.
const (
	maxStepUps  = 2
	maxRenewals = 1
)

// Config says how a non-interactive client gets tokens. Exactly one grant
// applies: RefreshToken set is the refresh grant; Assertion set is the
// RFC 7523 JWT bearer grant; otherwise client credentials, authenticated
// with ClientSecret or PrivateKeyPEM.
type Config struct {
	// ClientID is the registered client (optional for the JWT bearer
	// grant and public refresh clients, where the server may not need one).
	ClientID string
	// ClientSecret is the client secret (client_secret_basic or _post).
	ClientSecret string
	// PrivateKeyPEM signs private_key_jwt client assertions; SigningAlg is
	// its JWS algorithm ("" = the key's own).
	PrivateKeyPEM []byte
	SigningAlg    string
	// RefreshToken is a refresh token from a person's one-time consent
	// (warden auth login).
	RefreshToken string
	// Assertion returns the JWT the JWT bearer grant presents (a workload
	// identity token) for audience: Audience when set, else the
	// authorization server's issuer.
	Assertion func(ctx context.Context, audience string) (string, error)
	Audience  string
	// IDP, when set, is the enterprise-managed flow (SEP-990): an ID token
	// from the enterprise's identity provider is exchanged there (RFC 8693)
	// for an ID-JAG, which the JWT bearer grant presents.
	IDP *IDPExchange
	// Scopes, when set, replace the scopes discovery selects.
	Scopes []string
	// DPoPKeyPEM is the PEM P-256 key tokens are bound to when the
	// authorization server offers DPoP (RFC 9449); nil makes an ephemeral
	// one. A DPoP-bound refresh token needs the key of its login.
	DPoPKeyPEM []byte
	// TokenAuth forces the token endpoint authentication ("" = choose
	// from the metadata).
	TokenAuth TokenAuth
	// HTTPClient makes discovery and token requests (nil: a default one).
	HTTPClient *http.Client
	// Mask is called with every secret as soon as it is known or obtained
	// (access tokens, rotated refresh tokens, assertions), so that output
	// can hide it; nil means no one is told.
	Mask func(secret string)
	// Warn receives a one-line notice for the user (a rotated refresh
	// token); it never holds a secret.
	Warn func(line string)
}

// Grant names the grant a Config selects.
func (c *Config) Grant() string {
	switch {
	case c.RefreshToken != "":
		return GrantRefreshToken
	case c.Assertion != nil, c.IDP != nil:
		return GrantJWTBearer
	}
	return GrantClientCredentials
}

// Authorizer is a capture.Authorizer for one server URL: nothing is sent
// until the server asks (401), then discovery runs and the grant gets a
// token; a 401 on a token gets one fresh token, a 403 insufficient_scope a
// bounded step-up.
type Authorizer struct {
	serverURL string
	cfg       Config
	key       *SigningKey
	dpopKey   *DPoPKey
	dpop      *DPoP // set once discovery found DPoP offered

	mu       sync.Mutex
	disc     *Discovery
	auth     TokenAuth
	scopes   []string
	token    *oauth2.Token
	refresh  string
	stepUps  int
	renewals int
}

var _ capture.RequestAuthorizer = (*Authorizer)(nil)

// NewAuthorizer checks cfg for serverURL. Nothing goes on the network yet.
func NewAuthorizer(serverURL string, cfg Config) (*Authorizer, error) {
	if err := CheckURL(serverURL); err != nil {
		return nil, fmt.Errorf("OAuth: the server URL: %w", err)
	}
	n := 0
	if cfg.RefreshToken != "" {
		n++
	}
	if cfg.Assertion != nil {
		n++
	}
	if cfg.IDP != nil {
		n++
		if cfg.IDP.TokenEndpoint == "" || cfg.IDP.ClientID == "" || cfg.IDP.IDToken == "" {
			return nil, errors.New("OAuth: the identity provider exchange needs its token endpoint, a client ID there and an ID token")
		}
		if err := CheckURL(cfg.IDP.TokenEndpoint); err != nil {
			return nil, fmt.Errorf("OAuth: the identity provider's token endpoint: %w", err)
		}
	}
	if n == 0 {
		if cfg.ClientID == "" {
			return nil, errors.New("OAuth: client credentials need a client ID")
		}
		if cfg.ClientSecret == "" && cfg.PrivateKeyPEM == nil {
			return nil, errors.New("OAuth: client credentials need a client secret or a private key")
		}
	}
	if n > 1 {
		return nil, errors.New("OAuth: give one grant: a refresh token, a workload identity assertion or an identity provider exchange")
	}
	if cfg.ClientSecret != "" && cfg.PrivateKeyPEM != nil {
		return nil, errors.New("OAuth: give a client secret or a private key, not both")
	}
	a := &Authorizer{serverURL: serverURL, cfg: cfg, refresh: cfg.RefreshToken}
	if cfg.PrivateKeyPEM != nil {
		// Parsed now for a clear early error; checked against the
		// metadata's algorithms once discovered.
		k, err := ParseSigningKey(cfg.PrivateKeyPEM, cfg.SigningAlg, nil)
		if err != nil {
			return nil, fmt.Errorf("OAuth: %w", err)
		}
		a.key = k
	}
	if cfg.DPoPKeyPEM != nil {
		k, err := ParseDPoPKey(cfg.DPoPKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("OAuth: %w", err)
		}
		a.dpopKey = k
	}
	a.mask(cfg.ClientSecret, cfg.RefreshToken)
	if cfg.IDP != nil {
		a.mask(cfg.IDP.ClientSecret, cfg.IDP.IDToken)
	}
	return a, nil
}

func (a *Authorizer) mask(secrets ...string) {
	if a.cfg.Mask == nil {
		return
	}
	for _, s := range secrets {
		if s != "" {
			a.cfg.Mask(s)
		}
	}
}

// Authorization returns "Bearer <token>" (or "DPoP <token>" for a
// DPoP-bound one) once a token was obtained, renewing an expired one; ""
// before the server first asked.
func (a *Authorizer) Authorization(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token == nil {
		return "", nil
	}
	if !a.token.Valid() {
		if err := a.fetch(ctx); err != nil {
			return "", err
		}
	}
	if a.bound() {
		return "DPoP " + a.token.AccessToken, nil
	}
	return "Bearer " + a.token.AccessToken, nil
}

// AuthorizeRequest sets the Authorization header on req and, for a
// DPoP-bound token, a fresh proof of the key for exactly this request.
func (a *Authorizer) AuthorizeRequest(ctx context.Context, req *http.Request) error {
	v, err := a.Authorization(ctx)
	if err != nil || v == "" {
		return err
	}
	req.Header.Set("Authorization", v)
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.bound() {
		return nil
	}
	proof, err := a.dpop.Proof(req.Method, req.URL, a.token.AccessToken)
	if err != nil {
		return fmt.Errorf("OAuth: %w", err)
	}
	req.Header.Set("DPoP", proof)
	return nil
}

// bound says the token held is DPoP-bound (the caller holds a.mu).
func (a *Authorizer) bound() bool {
	return a.dpop != nil && a.token != nil && strings.EqualFold(a.token.Type(), "DPoP")
}

// Challenged reacts to a refusal: the first 401 runs discovery and the
// grant; a later 401 gets one fresh token; a 403 insufficient_scope asking
// for scopes not yet held gets a bounded step-up. Anything else, or a bound
// reached, lets the refusal stand.
func (a *Authorizer) Challenged(ctx context.Context, status int, header http.Header) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.bound() && DPoPChallenge(status, header):
		// RFC 9449 §9: the same token once more, with the server's nonce;
		// only a nonce not tried before is worth a retry.
		u, err := url.Parse(a.serverURL)
		if err != nil {
			return false, nil
		}
		return a.dpop.Remember(u, header), nil
	case status == http.StatusUnauthorized && a.disc == nil:
		d, err := Discover(ctx, a.cfg.HTTPClient, a.serverURL, header)
		if err != nil {
			return false, err
		}
		if err := a.prepare(d); err != nil {
			return false, err
		}
		return true, a.fetch(ctx)
	case status == http.StatusUnauthorized:
		if a.renewals >= maxRenewals {
			return false, nil
		}
		a.renewals++
		return true, a.fetch(ctx)
	case status == http.StatusForbidden && a.disc != nil:
		scopes, ok := StepUp(a.scopes, status, header)
		if !ok || a.stepUps >= maxStepUps {
			return false, nil
		}
		a.stepUps++
		a.scopes = scopes
		return true, a.fetch(ctx)
	}
	return false, nil
}

// prepare settles, from the discovery, the client authentication and the
// scopes.
func (a *Authorizer) prepare(d *Discovery) error {
	haveSecret := a.cfg.ClientSecret != ""
	auth, err := ChooseTokenAuth(d.AuthServer, a.cfg.TokenAuth, haveSecret, a.key != nil)
	if err != nil {
		return fmt.Errorf("OAuth: %w", err)
	}
	if auth == AuthPrivateKeyJWT {
		if _, err := ParseSigningKey(a.cfg.PrivateKeyPEM, a.key.Alg(), d.AuthServer.TokenEndpointAuthSigningAlgValuesSupported); err != nil {
			return fmt.Errorf("OAuth: %w", err)
		}
	}
	if DPoPOffered(d.DPoPAlgs) {
		if a.dpopKey == nil {
			k, err := NewDPoPKey()
			if err != nil {
				return fmt.Errorf("OAuth: %w", err)
			}
			a.dpopKey = k
		}
		a.dpop = NewDPoP(a.dpopKey)
	}
	a.disc, a.auth = d, auth
	a.scopes = d.Scopes
	if len(a.cfg.Scopes) > 0 {
		a.scopes = append([]string(nil), a.cfg.Scopes...)
	}
	return nil
}

// fetch runs the grant once. A failure is final: the JWT bearer grant in
// particular must not be retried or swapped for another grant.
func (a *Authorizer) fetch(ctx context.Context) error {
	client := Client{ID: a.cfg.ClientID, Secret: a.cfg.ClientSecret, Key: a.key, Auth: a.auth, DPoP: a.dpop}
	params := url.Values{}
	scopes := a.scopes
	switch a.cfg.Grant() {
	case GrantClientCredentials:
		params.Set("grant_type", GrantClientCredentials)
	case GrantJWTBearer:
		aud := a.cfg.Audience
		if aud == "" {
			aud = a.disc.Issuer
		}
		var assertion string
		var err error
		if a.cfg.IDP != nil {
			assertion, err = a.cfg.IDP.exchange(ctx, a.cfg.HTTPClient, aud, a.disc.Resource, scopes)
		} else if assertion, err = a.cfg.Assertion(ctx, aud); err != nil {
			err = fmt.Errorf("the workload identity token: %w", err)
		}
		if err != nil {
			return fmt.Errorf("OAuth: %w", err)
		}
		a.mask(assertion)
		params.Set("grant_type", GrantJWTBearer)
		params.Set("assertion", assertion)
	case GrantRefreshToken:
		params.Set("grant_type", GrantRefreshToken)
		params.Set("refresh_token", a.refresh)
		// A refresh asks for the scope of the original consent unless the
		// user or a step-up asks for a specific one.
		if len(a.cfg.Scopes) == 0 && a.stepUps == 0 {
			scopes = nil
		}
	}
	tok, err := TokenRequest(ctx, a.cfg.HTTPClient, a.disc, client, params, scopes)
	if err != nil {
		return fmt.Errorf("OAuth: %w", err)
	}
	a.mask(tok.AccessToken, tok.RefreshToken)
	if a.cfg.Grant() == GrantRefreshToken && tok.RefreshToken != "" && tok.RefreshToken != a.refresh {
		a.refresh = tok.RefreshToken
		if a.cfg.Warn != nil {
			a.cfg.Warn("the authorization server rotated the refresh token: the one warden was given is likely revoked now, and warden cannot store the new one (docs/oauth.md, \"Rotating refresh tokens\")")
		}
	}
	a.token = tok
	return nil
}

// Package logintest is a fixture for tests of warden's OAuth client: a real
// authorization server (RFC 8414 metadata, an authorization endpoint that
// approves at once, a token endpoint that checks PKCE, the resource
// indicator and the client, dynamic client registration, rotating refresh
// tokens) and an MCP server (the official go-sdk) behind
// auth.RequireBearerToken that accepts only the tokens it issued for its own
// resource. Tests play the browser by fetching the authorization URL.
package logintest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Iss is how the authorization endpoint sets RFC 9207's iss on its redirect.
type Iss int

// The iss behaviours.
const (
	IssCorrect Iss = iota
	IssWrong
	IssAbsent
)

// Config shapes the fixture.
type Config struct {
	// IssSupported is advertised as authorization_response_iss_parameter_supported.
	IssSupported bool
	// Iss is what the redirect carries.
	Iss Iss
	// WrongState makes the redirect carry a state other than the client's.
	WrongState bool
	// NoRegistration leaves the registration endpoint out.
	NoRegistration bool
	// ClientID and ClientSecret are a pre-registered client; its secret is
	// checked with client_secret_basic or client_secret_post.
	ClientID, ClientSecret string
	// ScopesSupported goes into both metadata documents.
	ScopesSupported []string
	// PRMResource overrides the resource the protected resource metadata
	// publishes (default: the MCP endpoint's URL).
	PRMResource string
	// NoRotate keeps the refresh token the same across refreshes.
	NoRotate bool
	// NoPKCE leaves code_challenge_methods_supported out of the metadata.
	NoPKCE bool
	// DPoP advertises dpop_signing_alg_values_supported [ES256], binds
	// every token to its request's DPoP proof key (token_type DPoP) and
	// makes the MCP endpoint take only the DPoP scheme with a proof by the
	// same key (RFC 9449; internal/oauth's tests check proofs in depth).
	DPoP bool
}

// Fixture is a running authorization server and MCP server.
type Fixture struct {
	AS, MCP *httptest.Server
	// MCPURL is the MCP endpoint.
	MCPURL string
	cfg    Config

	mu       sync.Mutex
	n        int
	codes    map[string]grant
	access   map[string]time.Time
	jkt      map[string]string // access token → the proof key's jwk x
	refresh  map[string]grant
	clients  map[string]string // id → secret ("" for public)
	requests []Request
}

// Request records a request to the authorization or token endpoint.
type Request struct {
	Endpoint string // "authorize", "token", "register"
	Form     url.Values
	Basic    bool // credentials came in an Authorization: Basic header
}

type grant struct {
	clientID, challenge, redirect, resource, scope string
}

// New starts a fixture; Close stops it.
func New(cfg Config) *Fixture {
	f := &Fixture{cfg: cfg, codes: map[string]grant{}, access: map[string]time.Time{}, jkt: map[string]string{}, refresh: map[string]grant{}, clients: map[string]string{}}
	if cfg.ClientID != "" {
		f.clients[cfg.ClientID] = cfg.ClientSecret
	}
	asMux := http.NewServeMux()
	f.AS = httptest.NewServer(asMux)
	asMux.HandleFunc("GET /.well-known/oauth-authorization-server", f.metadata)
	asMux.HandleFunc("GET /authorize", f.authorize)
	asMux.HandleFunc("POST /token", f.token)
	if !cfg.NoRegistration {
		asMux.HandleFunc("POST /register", f.register)
	}

	mcpMux := http.NewServeMux()
	f.MCP = httptest.NewServer(mcpMux)
	f.MCPURL = f.MCP.URL + "/mcp"
	resource := f.MCPURL
	if cfg.PRMResource != "" {
		resource = cfg.PRMResource
	}
	prmURL := f.MCP.URL + "/.well-known/oauth-protected-resource/mcp"
	mcpMux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             resource,
		AuthorizationServers: []string{f.AS.URL},
		ScopesSupported:      cfg.ScopesSupported,
	}))
	srv := mcp.NewServer(&mcp.Implementation{Name: "logintest", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "says who the token belongs to"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you"}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	protected := auth.RequireBearerToken(f.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(h)
	if cfg.DPoP {
		protected = f.requireDPoP(protected)
	}
	mcpMux.Handle("/mcp", protected)
	return f
}

// Close stops both servers.
func (f *Fixture) Close() {
	f.AS.Close()
	f.MCP.Close()
}

// Requests returns the requests the authorization server has seen.
func (f *Fixture) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// Browse plays the browser: it fetches authURL, which approves at once, and
// follows its redirect to the client's loopback listener. It returns the
// final status.
func Browse(ctx context.Context, authURL string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (f *Fixture) record(endpoint string, r *http.Request) {
	_, _, basic := r.BasicAuth()
	f.requests = append(f.requests, Request{Endpoint: endpoint, Form: r.Form, Basic: basic})
}

func (f *Fixture) metadata(w http.ResponseWriter, r *http.Request) {
	m := map[string]any{
		"issuer":                                f.AS.URL,
		"authorization_endpoint":                f.AS.URL + "/authorize",
		"token_endpoint":                        f.AS.URL + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic", "client_secret_post"},
	}
	if f.cfg.DPoP {
		m["dpop_signing_alg_values_supported"] = []string{"ES256"}
	}
	if f.cfg.NoPKCE {
		delete(m, "code_challenge_methods_supported")
	}
	if !f.cfg.NoRegistration {
		m["registration_endpoint"] = f.AS.URL + "/register"
	}
	if f.cfg.IssSupported {
		m["authorization_response_iss_parameter_supported"] = true
	}
	if f.cfg.ScopesSupported != nil {
		m["scopes_supported"] = f.cfg.ScopesSupported
	}
	writeJSON(w, http.StatusOK, m)
}

func (f *Fixture) authorize(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("authorize", r)
	q := r.Form
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Scheme != "http" || redirect.Hostname() != "127.0.0.1" {
		http.Error(w, "redirect_uri must be a loopback http URL", http.StatusBadRequest)
		return
	}
	if _, ok := f.clients[q.Get("client_id")]; !ok {
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	}
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	}
	code := f.newToken("code")
	f.codes[code] = grant{clientID: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), resource: q.Get("resource"), scope: q.Get("scope")}
	v := redirect.Query()
	v.Set("code", code)
	state := q.Get("state")
	if f.cfg.WrongState {
		state = "not-" + state
	}
	v.Set("state", state)
	switch f.cfg.Iss {
	case IssCorrect:
		v.Set("iss", f.AS.URL)
	case IssWrong:
		v.Set("iss", "https://evil.example")
	}
	redirect.RawQuery = v.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (f *Fixture) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("token", r)
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.Form.Get("client_id"), r.Form.Get("client_secret")
	}
	want, ok := f.clients[id]
	if !ok || secret != want {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	var g grant
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		code := r.Form.Get("code")
		g, ok = f.codes[code]
		delete(f.codes, code)
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		switch {
		case !ok || g.clientID != id || g.redirect != r.Form.Get("redirect_uri"):
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verifier does not match"})
			return
		}
	case "refresh_token":
		rt := r.Form.Get("refresh_token")
		g, ok = f.refresh[rt]
		if !ok || g.clientID != id {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		if !f.cfg.NoRotate {
			delete(f.refresh, rt)
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	if res := r.Form.Get("resource"); res != g.resource || res != f.MCPURL {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_target", "error_description": "resource is not this authorization server's MCP server"})
		return
	}
	at := f.newToken("at")
	f.access[at] = time.Now().Add(time.Hour)
	tokenType := "Bearer"
	if f.cfg.DPoP {
		x := proofKey(r.Header.Get("DPoP"))
		if x == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_dpop_proof"})
			return
		}
		f.jkt[at] = x
		tokenType = "DPoP"
	}
	rt := r.Form.Get("refresh_token")
	if rt == "" || !f.cfg.NoRotate {
		rt = f.newToken("rt")
		f.refresh[rt] = g
	}
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": tokenType, "expires_in": 3600, "refresh_token": rt})
}

func (f *Fixture) register(w http.ResponseWriter, r *http.Request) {
	var m oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&m); err != nil || len(m.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, Request{Endpoint: "register", Form: url.Values{"token_endpoint_auth_method": {m.TokenEndpointAuthMethod}, "application_type": {m.ApplicationType}}})
	id := f.newToken("client")
	secret := ""
	if m.TokenEndpointAuthMethod != "none" {
		secret = f.newToken("secret")
	}
	f.clients[id] = secret
	resp := map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": m.TokenEndpointAuthMethod}
	if secret != "" {
		resp["client_secret"] = secret
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (f *Fixture) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	exp, ok := f.access[token]
	if !ok {
		return nil, fmt.Errorf("%w: not a token of this server", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{Expiration: exp}, nil
}

// newToken is a fresh random value; the caller holds mu.
func (f *Fixture) newToken(kind string) string {
	f.n++
	return fmt.Sprintf("%s-%d-%s", kind, f.n, strings.ToLower(rand.Text()[:10]))
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// ErrNoURL is returned by FindURL when the text holds no authorization URL.
var ErrNoURL = errors.New("no authorization URL in the output")

// FindURL returns the first line of text that starts with prefix's URL
// (the authorization endpoint), as login --no-browser prints it.
func FindURL(text, authorizeURL string) (string, error) {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, authorizeURL) {
			return line, nil
		}
	}
	return "", ErrNoURL
}

// requireDPoP lets through only the DPoP scheme with a proof by the key
// the token is bound to, handing next the token as Bearer.
func (f *Fixture) requireDPoP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Authorization"); v != "" {
			tok, ok := strings.CutPrefix(v, "DPoP ")
			f.mu.Lock()
			want := f.jkt[tok]
			f.mu.Unlock()
			if !ok || want == "" || proofKey(r.Header.Get("DPoP")) != want {
				w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			r.Header.Set("Authorization", "Bearer "+tok)
		}
		next.ServeHTTP(w, r)
	})
}

// proofKey is the jwk x of a DPoP proof's header, "" when it is not one.
func proofKey(proof string) string {
	head, _, ok := strings.Cut(proof, ".")
	if !ok {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return ""
	}
	var h struct {
		Typ string            `json:"typ"`
		JWK map[string]string `json:"jwk"`
	}
	if json.Unmarshal(b, &h) != nil || h.Typ != "dpop+jwt" {
		return ""
	}
	return h.JWK["x"]
}

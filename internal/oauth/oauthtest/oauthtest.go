// Package oauthtest runs an OAuth-protected MCP server and its
// authorization server over real HTTP on loopback, for tests of warden's
// OAuth client: the MCP endpoint is the go-sdk's streamable HTTP handler
// behind auth.RequireBearerToken, with RFC 9728 metadata; the authorization
// server publishes RFC 8414 metadata and issues tokens for the grants a CI
// job uses (client credentials with a secret or a private_key_jwt assertion,
// the RFC 7523 JWT bearer grant, refresh tokens), checking the client's
// authentication and the RFC 8707 resource of every request.
package oauthtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Options shape the fixture.
type Options struct {
	// AuthMethods is token_endpoint_auth_methods_supported (default
	// client_secret_basic, client_secret_post, private_key_jwt, none).
	AuthMethods []string
	// Scopes the MCP endpoint requires; also its scopes_supported.
	Scopes []string
	// RotateRefresh makes every refresh answer a new refresh token and
	// revoke the one used.
	RotateRefresh bool
}

// TokenRequest records one request the token endpoint received.
type TokenRequest struct {
	Grant    string
	Auth     string // the client authentication seen: basic, post, private_key_jwt, none
	Resource string
	Scope    string
}

// Fixture is a running protected MCP server and authorization server.
type Fixture struct {
	// URL is the MCP endpoint (streamable HTTP).
	URL string
	// SSEURL is the same server over the legacy HTTP+SSE transport.
	SSEURL string
	// Issuer is the authorization server's issuer (its base URL).
	Issuer string
	// ClientID and ClientSecret are the registered confidential client.
	ClientID, ClientSecret string
	// KeyPEM is the client's private key (PKCS #8 PEM) for private_key_jwt.
	KeyPEM string
	// RefreshToken is a valid refresh token for ClientID.
	RefreshToken string

	opts     Options
	key      *ecdsa.PrivateKey
	workload *ecdsa.PrivateKey
	as, rs   *httptest.Server

	mu       sync.Mutex
	access   map[string][]string // access token → scopes
	refresh  map[string]bool
	requests []TokenRequest
	secrets  []string
}

// New starts the fixture; call Close when done.
func New(opts Options) (*Fixture, error) {
	if opts.AuthMethods == nil {
		opts.AuthMethods = []string{"client_secret_basic", "client_secret_post", "private_key_jwt", "none"}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	workload, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	f := &Fixture{
		ClientID:     "warden-ci",
		ClientSecret: "s3cret-" + random(),
		KeyPEM:       string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		RefreshToken: "rt-" + random(),
		opts:         opts,
		key:          key,
		workload:     workload,
		access:       map[string][]string{},
		refresh:      map[string]bool{},
	}
	f.refresh[f.RefreshToken] = true
	f.secrets = append(f.secrets, f.ClientSecret, f.RefreshToken, f.KeyPEM)

	f.as = httptest.NewServer(http.HandlerFunc(f.serveAS))
	f.Issuer = f.as.URL
	// The handler needs the server's own URL; it is built once that is
	// known, and a request that comes earlier waits for it (ready's close
	// also orders the handler's assignment before its use).
	var rsMux http.Handler
	ready := make(chan struct{})
	f.rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-ready
		rsMux.ServeHTTP(w, r)
	}))
	f.URL = f.rs.URL + "/mcp"
	f.SSEURL = f.rs.URL + "/sse"
	rsMux = f.rsHandler()
	close(ready)
	return f, nil
}

// Close stops both servers.
func (f *Fixture) Close() {
	f.rs.Close()
	f.as.Close()
}

// Requests returns the token requests received so far.
func (f *Fixture) Requests() []TokenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// Secrets returns every credential and token the fixture handed out or
// holds (client secret, private key, refresh and access tokens, workload
// JWTs): none of them may appear in any output.
func (f *Fixture) Secrets() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.secrets)
}

// Issue mints an access token with the given scopes directly, as if a
// grant had run: for tests of the transport rather than of the grants.
func (f *Fixture) Issue(scopes ...string) string {
	tok := "at-" + random()
	f.mu.Lock()
	f.access[tok] = scopes
	f.secrets = append(f.secrets, tok)
	f.mu.Unlock()
	return tok
}

// WorkloadJWT is a workload identity token (as a CI provider would issue)
// for the given audience, which the authorization server trusts for the
// JWT bearer grant.
func (f *Fixture) WorkloadJWT(aud string) string {
	now := time.Now()
	tok := signES256(f.workload, map[string]any{
		"iss": "https://token.actions.example", "sub": "repo:example/app:ref:refs/heads/main",
		"aud": aud, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
	})
	f.mu.Lock()
	f.secrets = append(f.secrets, tok)
	f.mu.Unlock()
	return tok
}

func (f *Fixture) rsHandler() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "oauth-fixture", Version: "1.0.0"}, nil)
	server.AddTool(&mcp.Tool{Name: "whoami", Description: "Says who the caller is.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ci"}}}, nil
		})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		f.mu.Lock()
		scopes, ok := f.access[token]
		f.mu.Unlock()
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: scopes, Expiration: time.Now().Add(time.Hour)}, nil
	}
	mux := http.NewServeMux()
	protect := func(path string, h http.Handler) {
		prmPath := "/.well-known/oauth-protected-resource" + path
		mux.Handle(prmPath, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:             f.rs.URL + path,
			AuthorizationServers: []string{f.Issuer},
			ScopesSupported:      f.opts.Scopes,
		}))
		protected := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
			ResourceMetadataURL: f.rs.URL + prmPath,
			Scopes:              f.opts.Scopes,
		})(h)
		mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			protected.ServeHTTP(&stepUpWriter{ResponseWriter: w}, r)
		}))
	}
	protect("/mcp", mcpHandler)
	protect("/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil))
	return mux
}

func (f *Fixture) serveAS(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                           f.Issuer,
			"authorization_endpoint":                           f.Issuer + "/authorize",
			"token_endpoint":                                   f.Issuer + "/token",
			"response_types_supported":                         []string{"code"},
			"grant_types_supported":                            []string{"client_credentials", "refresh_token", "urn:ietf:params:oauth:grant-type:jwt-bearer"},
			"code_challenge_methods_supported":                 []string{"S256"},
			"token_endpoint_auth_methods_supported":            f.opts.AuthMethods,
			"token_endpoint_auth_signing_alg_values_supported": []string{"ES256"},
		})
	case "/token":
		f.serveToken(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *Fixture) serveToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	grant := r.PostForm.Get("grant_type")
	method, clientID, err := f.clientAuth(r)
	req := TokenRequest{Grant: grant, Auth: method, Resource: r.PostForm.Get("resource"), Scope: r.PostForm.Get("scope")}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	if err != nil {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": err.Error()})
		return
	}
	if req.Resource != f.URL && req.Resource != f.SSEURL {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_target", "error_description": "resource is not this server"})
		return
	}
	if !slices.Contains(f.opts.AuthMethods, method) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": method + " is not offered"})
		return
	}
	answer := map[string]any{"token_type": "Bearer", "expires_in": 3600}
	switch grant {
	case "client_credentials":
		if clientID != f.ClientID || method == "none" {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if err := verifyES256(&f.workload.PublicKey, r.PostForm.Get("assertion"), f.Issuer); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": err.Error()})
			return
		}
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		f.mu.Lock()
		ok := f.refresh[rt]
		if ok && f.opts.RotateRefresh {
			delete(f.refresh, rt)
			next := "rt-" + random()
			f.refresh[next] = true
			f.secrets = append(f.secrets, next)
			answer["refresh_token"] = next
		}
		f.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown refresh token"})
			return
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	tok := "at-" + random()
	scopes := strings.Fields(req.Scope)
	if len(scopes) == 0 {
		scopes = f.opts.Scopes
	}
	f.mu.Lock()
	f.access[tok] = scopes
	f.secrets = append(f.secrets, tok)
	f.mu.Unlock()
	answer["access_token"] = tok
	if len(scopes) > 0 {
		answer["scope"] = strings.Join(scopes, " ")
	}
	writeJSON(w, http.StatusOK, answer)
}

// clientAuth identifies the client authentication of a token request and
// checks it.
func (f *Fixture) clientAuth(r *http.Request) (method, clientID string, err error) {
	if id, secret, ok := r.BasicAuth(); ok {
		if id != f.ClientID || secret != f.ClientSecret {
			return "client_secret_basic", id, errors.New("bad basic credentials")
		}
		return "client_secret_basic", id, nil
	}
	form := r.PostForm
	switch {
	case form.Get("client_assertion") != "":
		if form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			return "private_key_jwt", "", errors.New("bad client_assertion_type")
		}
		claims, err := parseVerify(&f.key.PublicKey, form.Get("client_assertion"), f.Issuer)
		if err != nil {
			return "private_key_jwt", "", err
		}
		if claims["iss"] != f.ClientID || claims["sub"] != f.ClientID {
			return "private_key_jwt", "", errors.New("assertion iss/sub is not the client")
		}
		return "private_key_jwt", f.ClientID, nil
	case form.Get("client_secret") != "":
		if form.Get("client_id") != f.ClientID || form.Get("client_secret") != f.ClientSecret {
			return "client_secret_post", "", errors.New("bad post credentials")
		}
		return "client_secret_post", f.ClientID, nil
	}
	return "none", form.Get("client_id"), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func random() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func signES256(k *ecdsa.PrivateKey, claims map[string]any) string {
	h, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "JWT"})
	p, _ := json.Marshal(claims)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p)
	d := sha256.Sum256([]byte(input))
	r, s, _ := ecdsa.Sign(rand.Reader, k, d[:])
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func verifyES256(pub *ecdsa.PublicKey, tok, aud string) error {
	_, err := parseVerify(pub, tok, aud)
	return err
}

// parseVerify checks an ES256 JWT's signature, audience and expiry.
func parseVerify(pub *ecdsa.PublicKey, tok, aud string) (map[string]any, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, errors.New("not a JWT")
	}
	var header map[string]any
	if b, err := base64.RawURLEncoding.DecodeString(parts[0]); err != nil || json.Unmarshal(b, &header) != nil || header["alg"] != "ES256" {
		return nil, errors.New("bad JWT header")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return nil, errors.New("bad JWT signature encoding")
	}
	d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return nil, errors.New("bad JWT signature")
	}
	var claims map[string]any
	if b, err := base64.RawURLEncoding.DecodeString(parts[1]); err != nil || json.Unmarshal(b, &claims) != nil {
		return nil, errors.New("bad JWT claims")
	}
	if a, _ := claims["aud"].(string); strings.TrimSuffix(a, "/") != strings.TrimSuffix(aud, "/") {
		return nil, fmt.Errorf("JWT audience %q is not %q", a, aud)
	}
	if exp, _ := claims["exp"].(float64); time.Unix(int64(exp), 0).Before(time.Now()) {
		return nil, errors.New("JWT expired")
	}
	return claims, nil
}

// stepUpWriter adds error="insufficient_scope" to the challenge of a 403,
// as the MCP spec's step-up flow has it (the SDK's middleware sends the
// scope but not the error code).
type stepUpWriter struct {
	http.ResponseWriter
}

func (w *stepUpWriter) WriteHeader(status int) {
	if status == http.StatusForbidden {
		if c := w.Header().Get("WWW-Authenticate"); c != "" {
			w.Header().Set("WWW-Authenticate", c+`, error="insufficient_scope"`)
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *stepUpWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

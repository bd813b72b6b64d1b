// Package oauthlogin runs the OAuth 2.1 authorization-code flow with PKCE
// once, on a developer's machine, against the authorization server an MCP
// server names, so that the refresh token it yields can be stored as a CI
// secret: a server that allows only a person's consent can then be gated by
// a job with no person in the loop. Discovery (which authorization server,
// which resource, which scopes) happens before it, in internal/oauth; this
// package picks the client registration, listens on a loopback redirect,
// checks the authorization response (state, RFC 9207 iss) and exchanges the
// code with the resource indicator of RFC 8707.
package oauthlogin

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// DefaultTimeout bounds the whole login: a person has to read the page,
// sign in and consent.
const DefaultTimeout = 5 * time.Minute

// CallbackPath is the redirect URI's path on the loopback listener.
const CallbackPath = "/callback"

// Target is what discovery found: the resource to ask a token for, the
// authorization server that issues it, and the scopes chosen for it by the
// specification's selection rules.
type Target struct {
	// Resource is the resource indicator (RFC 8707), exactly as the
	// protected resource metadata publishes it.
	Resource string
	// Issuer is the authorization server's issuer identifier, the value an
	// RFC 9207 iss parameter must equal.
	Issuer string
	// AuthServer is the authorization server's metadata.
	AuthServer *oauthex.AuthServerMeta
	// Scopes are the scopes to request (the challenge's, else the
	// resource's scopes_supported); empty leaves scope out.
	Scopes []string
	// DPoPAlgs is the authorization server's
	// dpop_signing_alg_values_supported (RFC 9449).
	DPoPAlgs []string
}

// Registration names how the client was identified to the authorization
// server.
type Registration string

// The registrations, in the order the MCP specification prefers them.
const (
	PreRegistered    Registration = "pre-registered client"
	MetadataDocument Registration = "client ID metadata document"
	Dynamic          Registration = "dynamic client registration (RFC 7591)"
)

// Options are the person's choices for one login.
type Options struct {
	// HTTPClient sends the registration and token requests; nil means a
	// client with a 30-second timeout.
	HTTPClient *http.Client
	// ClientID and ClientSecret are a pre-registered client's; the secret
	// may be empty (a public client).
	ClientID, ClientSecret string
	// ClientMetadataURL is the https URL of a client ID metadata document
	// to use as the client ID when the server supports those documents.
	ClientMetadataURL string
	// ClientName goes into a dynamic registration.
	ClientName string
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// Open shows the authorization URL to the person (a browser, or a line
	// on stderr). It must not block until the login ends.
	Open func(authURL string) error
	// Timeout bounds the whole login; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Result is what a login obtained.
type Result struct {
	Token *oauth2.Token
	// Registration says which kind of client was used; ClientID (and, for a
	// dynamic registration that issued one, ClientSecret) identify it for
	// the refresh-token grant later.
	Registration Registration
	ClientID     string
	ClientSecret string
	// AuthStyle is how the client authenticates at the token endpoint.
	AuthStyle oauth2.AuthStyle
	// RedirectURI is the loopback redirect the client was registered or
	// authorized with.
	RedirectURI string
	// Scopes are the scopes that were requested.
	Scopes []string
}

// client is the resolved client registration.
type client struct {
	registration Registration
	id, secret   string
	authStyle    oauth2.AuthStyle
}

// Login runs the authorization-code flow for t and returns the token. Every
// refusal (a state or iss that does not match, an error the server sends to
// the redirect, a failed exchange) is an error; nothing is retried.
func Login(ctx context.Context, t Target, o Options) (*Result, error) {
	if t.AuthServer == nil {
		return nil, errors.New("no authorization server metadata")
	}
	if t.Resource == "" {
		return nil, errors.New("no resource to ask a token for")
	}
	asm := t.AuthServer
	if asm.AuthorizationEndpoint == "" || asm.TokenEndpoint == "" {
		return nil, fmt.Errorf("authorization server %s names no authorization or token endpoint", t.Issuer)
	}
	if err := checkEndpoint(asm.AuthorizationEndpoint); err != nil {
		return nil, fmt.Errorf("authorization endpoint: %w", err)
	}
	if err := checkEndpoint(asm.TokenEndpoint); err != nil {
		return nil, fmt.Errorf("token endpoint: %w", err)
	}
	if ms := asm.CodeChallengeMethodsSupported; len(ms) > 0 && !slices.Contains(ms, "S256") {
		return nil, fmt.Errorf("authorization server %s does not support PKCE S256 (code_challenge_methods_supported: %s)", t.Issuer, strings.Join(ms, " "))
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}

	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		return nil, fmt.Errorf("listen for the redirect on 127.0.0.1:%d: %w", o.Port, err)
	}
	redirect := "http://" + ln.Addr().String() + CallbackPath
	cb := newCallback()
	srv := &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer scancel()
		_ = srv.Shutdown(sctx)
	}()

	c, err := resolveClient(ctx, hc, asm, o, redirect)
	if err != nil {
		return nil, err
	}
	scopes := slices.Clone(t.Scopes)
	// A refresh token is the point of logging in; OpenID-style servers
	// issue one only for offline_access, which is requested only when the
	// server advertises it.
	if slices.Contains(asm.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	cfg := &oauth2.Config{
		ClientID:     c.id,
		ClientSecret: c.secret,
		Endpoint: oauth2.Endpoint{
			AuthURL:   asm.AuthorizationEndpoint,
			TokenURL:  asm.TokenEndpoint,
			AuthStyle: c.authStyle,
		},
		RedirectURL: redirect,
		Scopes:      scopes,
	}
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	cb.expect(state)
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", t.Resource))
	if o.Open != nil {
		if err := o.Open(authURL); err != nil {
			return nil, err
		}
	}

	var resp response
	select {
	case resp = <-cb.done:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("no authorization response on %s within %s", redirect, timeout)
		}
		return nil, ctx.Err()
	}
	if resp.err != nil {
		return nil, resp.err
	}
	if err := checkIssuer(resp.iss, asm.Issuer, asm.AuthorizationResponseIssParameterSupported); err != nil {
		return nil, err
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, hc), resp.code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", t.Resource))
	if err != nil {
		return nil, fmt.Errorf("token request to %s: %w", asm.TokenEndpoint, tokenError(err))
	}
	return &Result{
		Token:        tok,
		Registration: c.registration,
		ClientID:     c.id,
		ClientSecret: c.secret,
		AuthStyle:    c.authStyle,
		RedirectURI:  redirect,
		Scopes:       scopes,
	}, nil
}

// resolveClient picks the client in the specification's order: the
// pre-registered one the person named, else a client ID metadata document
// when the server takes them, else a dynamic registration.
func resolveClient(ctx context.Context, hc *http.Client, asm *oauthex.AuthServerMeta, o Options, redirect string) (*client, error) {
	if o.ClientID != "" {
		style, err := secretStyle(asm.TokenEndpointAuthMethodsSupported, o.ClientSecret != "")
		if err != nil {
			return nil, err
		}
		return &client{registration: PreRegistered, id: o.ClientID, secret: o.ClientSecret, authStyle: style}, nil
	}
	if o.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported {
		return &client{registration: MetadataDocument, id: o.ClientMetadataURL, authStyle: oauth2.AuthStyleInParams}, nil
	}
	if asm.RegistrationEndpoint == "" {
		switch {
		case o.ClientMetadataURL != "":
			return nil, fmt.Errorf("authorization server %s supports neither client ID metadata documents nor dynamic client registration: register a client there and pass --client-id", asm.Issuer)
		default:
			return nil, fmt.Errorf("authorization server %s has no registration endpoint: register a client there and pass --client-id (or --client-metadata-url if it takes client ID metadata documents)", asm.Issuer)
		}
	}
	if err := checkEndpoint(asm.RegistrationEndpoint); err != nil {
		return nil, fmt.Errorf("registration endpoint: %w", err)
	}
	name := o.ClientName
	if name == "" {
		name = "warden"
	}
	// A public native client: the secret a registration might issue would
	// sit on the developer's disk and in CI beside the refresh token, and
	// PKCE already binds the code to this client.
	method := "none"
	if ms := asm.TokenEndpointAuthMethodsSupported; len(ms) > 0 && !slices.Contains(ms, "none") {
		switch {
		case slices.Contains(ms, "client_secret_basic"):
			method = "client_secret_basic"
		case slices.Contains(ms, "client_secret_post"):
			method = "client_secret_post"
		default:
			return nil, fmt.Errorf("authorization server %s supports no token endpoint auth method warden has (none, client_secret_basic, client_secret_post): %s", asm.Issuer, strings.Join(ms, " "))
		}
	}
	reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{redirect},
		TokenEndpointAuthMethod: method,
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		ClientName:              name,
		ApplicationType:         "native",
	}, hc)
	if err != nil {
		return nil, fmt.Errorf("dynamic client registration at %s: %w", asm.RegistrationEndpoint, err)
	}
	// The server has the last word on the method (RFC 7591 section 3.2.1).
	if reg.TokenEndpointAuthMethod != "" {
		method = reg.TokenEndpointAuthMethod
	}
	c := &client{registration: Dynamic, id: reg.ClientID, secret: reg.ClientSecret}
	switch method {
	case "none", "client_secret_post":
		c.authStyle = oauth2.AuthStyleInParams
	case "client_secret_basic":
		c.authStyle = oauth2.AuthStyleInHeader
	default:
		return nil, fmt.Errorf("dynamic client registration at %s: the server chose token endpoint auth method %q, which warden does not have", asm.RegistrationEndpoint, method)
	}
	if method == "none" {
		c.secret = ""
	}
	return c, nil
}

// secretStyle is how a pre-registered client authenticates at the token
// endpoint: with a secret, basic when the server takes it (RFC 6749's
// default), else post; without one, the client ID alone in the body.
func secretStyle(supported []string, hasSecret bool) (oauth2.AuthStyle, error) {
	if !hasSecret {
		return oauth2.AuthStyleInParams, nil
	}
	switch {
	case len(supported) == 0, slices.Contains(supported, "client_secret_basic"):
		return oauth2.AuthStyleInHeader, nil
	case slices.Contains(supported, "client_secret_post"):
		return oauth2.AuthStyleInParams, nil
	}
	return 0, fmt.Errorf("the token endpoint takes none of client_secret_basic and client_secret_post (it lists %s), so a client secret cannot be sent", strings.Join(supported, " "))
}

// checkIssuer applies RFC 9207: when the server says it sends iss, iss
// must be there and equal the issuer; when it does not say so, an iss that
// is there must still equal it (section 2.4). The comparison is exact: a
// trailing slash is another issuer.
func checkIssuer(iss, issuer string, supported bool) error {
	switch {
	case iss == "" && supported:
		return fmt.Errorf("authorization response has no iss, which %s says it sends (RFC 9207): refused", issuer)
	case iss == "":
		return nil
	case iss != issuer:
		return fmt.Errorf("authorization response's iss %q is not the authorization server's issuer %q (RFC 9207): refused", clip(iss), issuer)
	}
	return nil
}

// checkEndpoint allows https, and plain http only to a loopback host: a
// code, a secret or a token must not cross the network in clear.
func checkEndpoint(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL", clip(raw))
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("%s is neither https nor http to a loopback address", clip(raw))
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// tokenError keeps a token endpoint's error code and description and drops
// the raw body the oauth2 package quotes.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			msg := re.ErrorCode
			if re.ErrorDescription != "" {
				msg += ": " + clip(re.ErrorDescription)
			}
			return fmt.Errorf("HTTP %d, %s", re.Response.StatusCode, msg)
		}
		return fmt.Errorf("HTTP %d", re.Response.StatusCode)
	}
	return err
}

// clip bounds server text quoted in an error.
func clip(s string) string {
	const max = 200
	s = strings.ToValidUTF8(s, "?")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if len(s) > max {
		cut := max
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// response is what the redirect brought.
type response struct {
	code, iss string
	err       error
}

// callback is the loopback redirect's handler: the first request to
// CallbackPath ends the login, whatever it carries; a request with the wrong
// state is refused rather than waited past, since only an attacker (or a
// stale tab) sends one.
type callback struct {
	state chan string
	done  chan response
}

func newCallback() *callback {
	return &callback{state: make(chan string, 1), done: make(chan response, 1)}
}

func (c *callback) expect(state string) { c.state <- state }

func (c *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != CallbackPath || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	var state string
	select {
	case state = <-c.state:
	default:
		// Already answered, or not yet started.
		http.Error(w, "This login is no longer waiting for a response.", http.StatusGone)
		return
	}
	q := r.URL.Query()
	var resp response
	switch {
	case q.Get("state") != state:
		resp.err = errors.New("authorization response's state does not match the one warden sent: refused (a stale browser tab, or a forged redirect)")
	case q.Get("error") != "":
		msg := clip(q.Get("error"))
		if d := q.Get("error_description"); d != "" {
			msg += ": " + clip(d)
		}
		resp.err = fmt.Errorf("authorization server refused: %s", msg)
	case q.Get("code") == "":
		resp.err = errors.New("authorization response has no code")
	default:
		resp.code, resp.iss = q.Get("code"), q.Get("iss")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if resp.err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "warden auth login failed; see the terminal.\n")
	} else {
		_, _ = io.WriteString(w, "warden received the authorization response; you can close this page.\n")
	}
	c.done <- resp
}

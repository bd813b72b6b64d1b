package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Discovery is what the spec's discovery learned about a protected MCP
// server: where to get a token and for which resource.
type Discovery struct {
	// Resource is the RFC 8707 resource indicator sent in every token
	// request: the resource exactly as the protected resource metadata
	// published it (the server URL under the 2025-03-26 fallback).
	Resource string
	// ResourceMetadata is the RFC 9728 document; nil under the 2025-03-26
	// fallback (a server without one).
	ResourceMetadata *oauthex.ProtectedResourceMetadata
	// Issuer is the authorization server's issuer identifier.
	Issuer string
	// AuthServer is its metadata: fetched (RFC 8414 or OpenID discovery),
	// or the 2025-03-26 default endpoints when it publishes none (then
	// Fallback is set).
	AuthServer *oauthex.AuthServerMeta
	// Fallback says AuthServer holds the 2025-03-26 default endpoints
	// (/authorize, /token, /register at the server's origin), not fetched
	// metadata.
	Fallback bool
	// PKCE says the metadata lists code_challenge_methods_supported. The
	// authorization code flow must refuse a server without it (the MCP
	// spec); the grants of a CI job do not use PKCE. It is false under
	// Fallback too, where no metadata says either way.
	PKCE bool
	// DPoPAlgs is the metadata's dpop_signing_alg_values_supported: when
	// it lists ES256, tokens are bound to a DPoP key (RFC 9449).
	DPoPAlgs []string
	// Scopes is the scope the spec's selection rules give: the challenge's
	// scope, else the metadata's scopes_supported, else none (omit scope).
	Scopes []string
}

// Challenge is what a 401 or 403 answer's WWW-Authenticate says, per the
// MCP authorization spec: its Bearer challenge's parameters.
type Challenge struct {
	// ResourceMetadata is the resource_metadata URL ("" = none).
	ResourceMetadata string
	// Scope is the scope parameter, split ("" = none).
	Scope []string
	// Error is the error parameter (insufficient_scope, invalid_token).
	Error string
}

// ParseChallenge reads the Bearer challenge of header's WWW-Authenticate
// fields. A malformed header yields an empty Challenge: discovery then
// proceeds from the well-known locations, as for a server that sent none.
func ParseChallenge(header http.Header) Challenge {
	var c Challenge
	if header == nil {
		return c
	}
	cs, err := oauthex.ParseWWWAuthenticate(header.Values("WWW-Authenticate"))
	if err != nil {
		return c
	}
	for _, ch := range cs {
		if ch.Scheme != "bearer" {
			continue
		}
		if c.ResourceMetadata == "" {
			c.ResourceMetadata = ch.Params["resource_metadata"]
		}
		if c.Scope == nil && ch.Params["scope"] != "" {
			c.Scope = strings.Fields(ch.Params["scope"])
		}
		if c.Error == "" {
			c.Error = ch.Params["error"]
		}
	}
	return c
}

// Discover runs the spec's discovery for serverURL: the 401's
// WWW-Authenticate (resource_metadata, scope), protected resource metadata
// at both RFC 9728 well-known locations in the spec's order, authorization
// server metadata (RFC 8414 and OpenID discovery in the spec's order), the
// 2025-03-26 fallbacks, resource and issuer checks. challenge is the 401's
// header (nil: none). hc makes the requests (nil: a default client); a
// redirect is never followed to another origin, nor from https to http.
//
// A metadata document that exists but fails a check (its resource is not
// this server, its issuer is not the one it was fetched for, a URL is plain
// http off loopback) is an error, never a reason to look elsewhere.
func Discover(ctx context.Context, hc *http.Client, serverURL string, challenge http.Header) (*Discovery, error) {
	su, err := url.Parse(serverURL)
	if err != nil || su.Host == "" {
		return nil, errors.New("discovery: the server URL cannot be parsed")
	}
	if err := CheckURL(serverURL); err != nil {
		return nil, fmt.Errorf("discovery: the server URL: %w", err)
	}
	ch := ParseChallenge(challenge)
	rec := newRecorder(hc)

	d := &Discovery{}
	prm, err := findResourceMetadata(ctx, rec, su, ch.ResourceMetadata)
	if err != nil {
		return nil, err
	}
	origin := (&url.URL{Scheme: su.Scheme, Host: su.Host}).String()
	var issuer string
	if prm != nil {
		if len(prm.AuthorizationServers) == 0 {
			return nil, errors.New("discovery: the protected resource metadata names no authorization server")
		}
		d.ResourceMetadata = prm
		d.Resource = prm.Resource
		issuer = prm.AuthorizationServers[0]
	} else {
		// 2025-03-26: no protected resource metadata; the server's origin
		// is the authorization server.
		d.Resource = serverURL
		issuer = origin
	}
	asm, err := findAuthServerMeta(ctx, rec, issuer)
	if err != nil {
		return nil, err
	}
	if asm != nil {
		// oauthex.AuthServerMeta has no field for it; the document just
		// read has.
		var extra struct {
			Algs []string `json:"dpop_signing_alg_values_supported"`
		}
		if json.Unmarshal(rec.lastBody(), &extra) == nil {
			d.DPoPAlgs = extra.Algs
		}
	}
	if asm == nil {
		if prm != nil {
			return nil, fmt.Errorf("discovery: authorization server %s publishes no metadata (RFC 8414 or OpenID discovery)", quote(issuer))
		}
		asm = &oauthex.AuthServerMeta{
			Issuer:                origin,
			AuthorizationEndpoint: origin + "/authorize",
			TokenEndpoint:         origin + "/token",
			RegistrationEndpoint:  origin + "/register",
		}
		d.Fallback = true
	}
	if err := CheckURL(asm.TokenEndpoint); err != nil {
		return nil, fmt.Errorf("discovery: the token endpoint: %w", err)
	}
	d.Issuer = asm.Issuer
	d.AuthServer = asm
	d.PKCE = len(asm.CodeChallengeMethodsSupported) > 0
	switch {
	case len(ch.Scope) > 0:
		d.Scopes = ch.Scope
	case prm != nil && len(prm.ScopesSupported) > 0:
		d.Scopes = append([]string(nil), prm.ScopesSupported...)
	}
	return d, nil
}

// ResourceMetadataURLs lists where protected resource metadata is looked
// for, in the spec's order: the challenge's resource_metadata, then the
// well-known URI with the server URL's path, then the one at the root. Each
// comes with the resource its document must name (RFC 9728 §3.3).
func ResourceMetadataURLs(server *url.URL, fromChallenge string) [][2]string {
	var out [][2]string
	resource := server.String()
	if fromChallenge != "" {
		out = append(out, [2]string{fromChallenge, resource})
	}
	base := url.URL{Scheme: server.Scheme, Host: server.Host}
	if p := strings.Trim(server.Path, "/"); p != "" {
		u := base
		u.Path = "/.well-known/oauth-protected-resource/" + p
		out = append(out, [2]string{u.String(), resource})
	}
	u := base
	u.Path = "/.well-known/oauth-protected-resource"
	out = append(out, [2]string{u.String(), base.String()})
	return out
}

// AuthServerMetadataURLs lists where an issuer's metadata is looked for,
// in the spec's order: for an issuer with a path, RFC 8414 and OpenID
// discovery with path insertion, then OpenID with path appending; without
// one, RFC 8414 then OpenID discovery.
func AuthServerMetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	base := url.URL{Scheme: u.Scheme, Host: u.Host}
	p := strings.Trim(u.Path, "/")
	at := func(path string) string {
		v := base
		v.Path = path
		return v.String()
	}
	if p == "" {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}
	}
	return []string{
		at("/.well-known/oauth-authorization-server/" + p),
		at("/.well-known/openid-configuration/" + p),
		at("/" + p + "/.well-known/openid-configuration"),
	}
}

func findResourceMetadata(ctx context.Context, rec *recorder, server *url.URL, fromChallenge string) (*oauthex.ProtectedResourceMetadata, error) {
	if fromChallenge != "" {
		if err := CheckURL(fromChallenge); err != nil {
			return nil, fmt.Errorf("discovery: the challenge's resource_metadata: %w", err)
		}
	}
	for _, c := range ResourceMetadataURLs(server, fromChallenge) {
		rec.reset()
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c[0], c[1], rec.client)
		if err == nil {
			return prm, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// Only a missing document sends discovery on: one that exists but
		// fails a check (above all a resource that is not this server)
		// means this server's authorization cannot be trusted.
		if status := rec.status(); status == http.StatusOK {
			return nil, fmt.Errorf("discovery: protected resource metadata at %s is refused: %s", quote(c[0]), clip(err.Error()))
		} else if status == 0 {
			return nil, fmt.Errorf("discovery: fetching protected resource metadata at %s failed: %s", quote(c[0]), clip(err.Error()))
		}
	}
	return nil, nil
}

func findAuthServerMeta(ctx context.Context, rec *recorder, issuer string) (*oauthex.AuthServerMeta, error) {
	if err := CheckURL(issuer); err != nil {
		return nil, fmt.Errorf("discovery: authorization server %s: %w", quote(issuer), err)
	}
	for _, u := range AuthServerMetadataURLs(issuer) {
		rec.reset()
		asm, err := oauthex.GetAuthServerMeta(ctx, u, issuer, rec.client)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if rec.status() == http.StatusOK {
				if asm, ok := withoutPKCE(rec.lastBody(), issuer); ok {
					return asm, nil
				}
			}
			return nil, fmt.Errorf("discovery: authorization server metadata at %s is refused: %s", quote(u), clip(err.Error()))
		}
		if asm != nil {
			return asm, nil
		}
	}
	return nil, nil
}

// withoutPKCE accepts metadata that oauthex refused only because it lists
// no code_challenge_methods_supported: PKCE belongs to the authorization
// code flow, and servers for machine clients often omit it (Microsoft Entra
// ID's discovery does). The other checks are made again here: the issuer
// (trailing slash aside, as oauthex compares it), https endpoints, no
// script-capable URL schemes. A login flow must refuse such metadata;
// Discovery.PKCE says which it is.
func withoutPKCE(body []byte, issuer string) (*oauthex.AuthServerMeta, bool) {
	var asm oauthex.AuthServerMeta
	if json.Unmarshal(body, &asm) != nil || len(asm.CodeChallengeMethodsSupported) > 0 {
		return nil, false
	}
	if strings.TrimSuffix(asm.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
		return nil, false
	}
	for _, u := range []string{asm.TokenEndpoint, asm.AuthorizationEndpoint, asm.RegistrationEndpoint, asm.IntrospectionEndpoint} {
		if u != "" && CheckURL(u) != nil {
			return nil, false
		}
	}
	for _, u := range []string{asm.JWKSURI, asm.ServiceDocumentation, asm.OpPolicyURI, asm.OpTOSURI, asm.RevocationEndpoint} {
		if v, err := url.Parse(u); u != "" && (err != nil || (v.Scheme != "https" && v.Scheme != "http")) {
			return nil, false
		}
	}
	return &asm, asm.TokenEndpoint != ""
}

// CheckURL refuses a URL a credential must not travel to: anything but
// https, except plain http to a loopback host (a local test server).
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("not an absolute URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if IsLoopback(u.Hostname()) {
			return nil
		}
		return errors.New("plain http:// is allowed only for a loopback host; use https://")
	}
	return errors.New("not an https:// URL")
}

// IsLoopback reports whether host is localhost or a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// recorder wraps a client so that discovery can tell a missing document
// (404: look at the next location) from one that exists but fails a check
// (200: stop). oauthex reports both as errors.
type recorder struct {
	client *http.Client
	mu     sync.Mutex
	last   int
	body   *bytes.Buffer // what was read of the last answer's body
}

func newRecorder(hc *http.Client) *recorder {
	if hc == nil {
		hc = &http.Client{}
	}
	r := &recorder{}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c := *hc
	c.Transport = roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := base.RoundTrip(req)
		if err == nil {
			r.mu.Lock()
			r.last = resp.StatusCode
			r.body = new(bytes.Buffer)
			resp.Body = teeBody{Reader: io.TeeReader(io.LimitReader(resp.Body, maxMetadata), r.body), Closer: resp.Body}
			r.mu.Unlock()
		}
		return resp, err
	})
	prev := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if !sameOrigin(req.URL, via[0].URL) {
			return errors.New("refusing to follow a metadata redirect to another origin")
		}
		if prev != nil {
			return prev(req, via)
		}
		return nil
	}
	r.client = &c
	return r
}

// reset forgets the last status, before a fetch.
func (r *recorder) reset() {
	r.mu.Lock()
	r.last = 0
	r.body = nil
	r.mu.Unlock()
}

// status is the status of the last answer (after any redirects), 0 if
// nothing answered since reset. Discovery fetches one document at a time.
func (r *recorder) status() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// lastBody is what was read of the last answer's body.
func (r *recorder) lastBody() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.body == nil {
		return nil
	}
	return r.body.Bytes()
}

// maxMetadata bounds a metadata document, as oauthex does.
const maxMetadata = 1 << 20

type teeBody struct {
	io.Reader
	io.Closer
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// clip makes server- or metadata-provided text safe for a one-line
// message: quoted, control characters escaped, at most 200 bytes.
func clip(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// quote quotes a URL or name for a message, clipped.
func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strconv.Quote(s)
}

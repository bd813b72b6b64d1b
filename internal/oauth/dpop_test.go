package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/wardenlock/warden/internal/capture"
)

// verifyProof checks a proof as a resource server does (RFC 9449 §4.3):
// typ, alg, a public jwk, the ES256 signature by that jwk; it returns the
// claims and the jwk.
func verifyProof(t *testing.T, proof string) (map[string]any, map[string]string) {
	t.Helper()
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		t.Fatalf("proof has %d parts", len(parts))
	}
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("base64url: %v", err)
		}
		return b
	}
	var hdr struct {
		Typ string            `json:"typ"`
		Alg string            `json:"alg"`
		JWK map[string]string `json:"jwk"`
	}
	if err := json.Unmarshal(dec(parts[0]), &hdr); err != nil {
		t.Fatal(err)
	}
	if hdr.Typ != "dpop+jwt" || hdr.Alg != "ES256" {
		t.Fatalf("header typ %q alg %q", hdr.Typ, hdr.Alg)
	}
	if _, ok := hdr.JWK["d"]; ok {
		t.Fatal("the jwk carries the private key")
	}
	if hdr.JWK["kty"] != "EC" || hdr.JWK["crv"] != "P-256" {
		t.Fatalf("jwk %v", hdr.JWK)
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(dec(hdr.JWK["x"])), Y: new(big.Int).SetBytes(dec(hdr.JWK["y"]))}
	sig := dec(parts[2])
	if len(sig) != 64 {
		t.Fatalf("signature is %d bytes, not 64 (r||s)", len(sig))
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("the proof's signature does not verify with its jwk")
	}
	var claims map[string]any
	if err := json.Unmarshal(dec(parts[1]), &claims); err != nil {
		t.Fatal(err)
	}
	return claims, hdr.JWK
}

func TestDPoPProof(t *testing.T) {
	k, err := NewDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	target, _ := url.Parse("https://mcp.example/mcp?session=1#frag")
	tok := "access-token-value"
	p1, err := k.Proof("POST", target, tok, "", now)
	if err != nil {
		t.Fatal(err)
	}
	c, jwk := verifyProof(t, p1)
	sum := sha256.Sum256([]byte(tok))
	want := map[string]any{"htm": "POST", "htu": "https://mcp.example/mcp", "iat": float64(now.Unix()), "ath": base64.RawURLEncoding.EncodeToString(sum[:])}
	for name, v := range want {
		if c[name] != v {
			t.Errorf("claim %s = %v, want %v", name, c[name], v)
		}
	}
	if _, ok := c["nonce"]; ok {
		t.Error("nonce claim without a nonce")
	}
	jti, _ := c["jti"].(string)
	if len(jti) < 16 {
		t.Errorf("jti %q too short", jti)
	}
	// RFC 7638 thumbprint of the header's jwk equals the key's.
	canon := `{"crv":"P-256","kty":"EC","x":"` + jwk["x"] + `","y":"` + jwk["y"] + `"}`
	ts := sha256.Sum256([]byte(canon))
	if got := base64.RawURLEncoding.EncodeToString(ts[:]); got != k.Thumbprint() {
		t.Errorf("thumbprint %s, jwk gives %s", k.Thumbprint(), got)
	}

	p2, err := k.Proof("GET", target, "", "srv-nonce", now)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := verifyProof(t, p2)
	if c2["jti"] == c["jti"] {
		t.Error("two proofs share a jti")
	}
	if c2["htm"] != "GET" || c2["nonce"] != "srv-nonce" {
		t.Errorf("claims %v", c2)
	}
	if _, ok := c2["ath"]; ok {
		t.Error("ath without an access token")
	}
}

func TestParseDPoPKey(t *testing.T) {
	k, err := NewDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.PEM()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseDPoPKey(p)
	if err != nil || back.Thumbprint() != k.Thumbprint() {
		t.Fatalf("PEM round trip: %v", err)
	}
	ec384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	der384, _ := x509.MarshalPKCS8PrivateKey(ec384)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	derRSA, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	bad := map[string][]byte{
		"not PEM": []byte("not a key"),
		"P-384":   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der384}),
		"RSA":     pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: derRSA}),
		"garbage": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("xyz-secret-bytes")}),
	}
	for name, b := range bad {
		_, err := ParseDPoPKey(b)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), "xyz") || strings.Contains(err.Error(), "BEGIN") {
			t.Errorf("%s: error quotes the key: %v", name, err)
		}
	}
}

// tokenServer is a token endpoint that demands a DPoP proof and, with
// nonce set, a nonce (RFC 9449 §8); rotate makes it ask for a new one every
// time. It records the proofs it saw.
type tokenServer struct {
	nonce, rotate bool
	errCode       string // answer every request with this 400 error instead

	mu     sync.Mutex
	proofs []string
	n      int
}

func (s *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	p := r.Header.Get("DPoP")
	s.proofs = append(s.proofs, p)
	w.Header().Set("Content-Type", "application/json")
	if s.errCode != "" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"` + s.errCode + `"}`))
		return
	}
	ask := func(nonce string) {
		w.Header().Set("DPoP-Nonce", nonce)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"use_dpop_nonce"}`))
	}
	switch {
	case p == "":
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_dpop_proof"}`))
		return
	case s.rotate:
		ask("n" + string(rune('0'+s.n)))
		return
	case s.nonce && nonceOf(p) != "n1":
		ask("n1")
		return
	}
	_, _ = w.Write([]byte(`{"access_token":"bound-token","token_type":"DPoP","expires_in":60}`))
}

func nonceOf(proof string) string {
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return ""
	}
	b, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Nonce string `json:"nonce"`
	}
	_ = json.Unmarshal(b, &c)
	return c.Nonce
}

func TestTokenRequestDPoPNonce(t *testing.T) {
	tests := []struct {
		name     string
		srv      *tokenServer
		requests int
		wantErr  string
	}{
		{name: "no nonce asked", srv: &tokenServer{}, requests: 1},
		{name: "nonce asked once", srv: &tokenServer{nonce: true}, requests: 2},
		{name: "a new nonce every time: one retry only", srv: &tokenServer{rotate: true}, requests: 2, wantErr: "use_dpop_nonce"},
		{name: "another error: no retry", srv: &tokenServer{errCode: "invalid_grant"}, requests: 1, wantErr: "invalid_grant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(tt.srv)
			defer ts.Close()
			k, _ := NewDPoPKey()
			d := &Discovery{AuthServer: &oauthex.AuthServerMeta{TokenEndpoint: ts.URL + "/token"}, Issuer: ts.URL}
			params := url.Values{"grant_type": {GrantClientCredentials}}
			tok, err := TokenRequest(context.Background(), ts.Client(), d, Client{ID: "c", Secret: "s", Auth: AuthPost, DPoP: NewDPoP(k)}, params, nil)
			if tt.srv.n != tt.requests {
				t.Errorf("%d token requests, want %d", tt.srv.n, tt.requests)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.Type() != "DPoP" || tok.AccessToken != "bound-token" {
				t.Errorf("token %s %s", tok.Type(), tok.AccessToken)
			}
			for i, p := range tt.srv.proofs {
				c, _ := verifyProof(t, p)
				if c["htm"] != "POST" || c["htu"] != ts.URL+"/token" {
					t.Errorf("proof %d: htm %v htu %v", i, c["htm"], c["htu"])
				}
				if _, ok := c["ath"]; ok {
					t.Errorf("proof %d: ath at the token endpoint", i)
				}
			}
			if tt.srv.nonce && nonceOf(tt.srv.proofs[1]) != "n1" {
				t.Error("the retry does not carry the server's nonce")
			}
		})
	}
}

func TestTokenRequestRefusesDPoPWithoutKey(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"bound-token","token_type":"DPoP","expires_in":60}`))
	}))
	defer ts.Close()
	d := &Discovery{AuthServer: &oauthex.AuthServerMeta{TokenEndpoint: ts.URL + "/token"}, Issuer: ts.URL}
	_, err := TokenRequest(context.Background(), ts.Client(), d, Client{ID: "c", Secret: "s", Auth: AuthPost}, url.Values{"grant_type": {GrantClientCredentials}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not Bearer") || strings.Contains(err.Error(), "bound-token") {
		t.Fatalf("err = %v", err)
	}
}

func TestTokenAuthorizerDPoP(t *testing.T) {
	k, _ := NewDPoPKey()
	a, err := NewTokenAuthorizer("https://mcp.example/mcp", "tok-123", k)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "https://mcp.example/mcp", nil)
	if err := a.AuthorizeRequest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("Authorization"); got != "DPoP tok-123" {
		t.Errorf("Authorization %q", got)
	}
	c, _ := verifyProof(t, req.Header.Get("DPoP"))
	if _, ok := c["nonce"]; ok {
		t.Error("nonce before the server gave one")
	}
	h := http.Header{}
	h.Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
	h.Set("DPoP-Nonce", "rs-1")
	if again, _ := a.Challenged(context.Background(), http.StatusUnauthorized, h); !again {
		t.Fatal("no retry on use_dpop_nonce")
	}
	if again, _ := a.Challenged(context.Background(), http.StatusUnauthorized, h); again {
		t.Fatal("a second retry with the same nonce")
	}
	if again, _ := a.Challenged(context.Background(), http.StatusUnauthorized, http.Header{"Www-Authenticate": {`DPoP error="invalid_token"`}}); again {
		t.Fatal("retry on invalid_token")
	}
	req = httptest.NewRequest(http.MethodGet, "https://mcp.example/mcp", nil)
	if err := a.AuthorizeRequest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	c, _ = verifyProof(t, req.Header.Get("DPoP"))
	if c["nonce"] != "rs-1" || c["htm"] != "GET" {
		t.Errorf("claims after the nonce: %v", c)
	}
	// A Bearer token (no key) carries no proof.
	b, _ := NewTokenAuthorizer("https://mcp.example/mcp", "tok-123", nil)
	req = httptest.NewRequest(http.MethodPost, "https://mcp.example/mcp", nil)
	_ = b.AuthorizeRequest(context.Background(), req)
	if req.Header.Get("Authorization") != "Bearer tok-123" || req.Header.Get("DPoP") != "" {
		t.Errorf("bearer headers %v", req.Header)
	}
}

// dpopFixture is an MCP server behind DPoP (RFC 9449 §7): its
// authorization server binds client-credentials tokens to the proof's key
// and, like the resource, demands a nonce first when nonce is set.
type dpopFixture struct {
	as, rs *httptest.Server
	nonce  bool

	mu        sync.Mutex
	bound     map[string]string // access token → jwk thumbprint
	schemes   []string
	jtis      map[string]bool
	tokenReqs int
	failures  []string
}

func (f *dpopFixture) fail(format string, args ...any) {
	f.failures = append(f.failures, fmt.Sprintf(format, args...))
}

func newDPoPFixture(t *testing.T, nonce bool) *dpopFixture {
	f := &dpopFixture{nonce: nonce, bound: map[string]string{}, jtis: map[string]bool{}}
	f.as = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			_ = json.NewEncoder(w).Encode(map[string]any{
				"issuer": f.as.URL, "token_endpoint": f.as.URL + "/token",
				"response_types_supported":              []string{"code"},
				"code_challenge_methods_supported":      []string{"S256"},
				"token_endpoint_auth_methods_supported": []string{"client_secret_post"},
				"dpop_signing_alg_values_supported":     []string{"ES256"},
			})
		case "/token":
			f.mu.Lock()
			defer f.mu.Unlock()
			f.tokenReqs++
			c, jwk, err := checkProof(r.Header.Get("DPoP"), "POST", f.as.URL+"/token")
			if err != nil {
				f.fail("token request: %v", err)
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_dpop_proof"}`))
				return
			}
			if f.nonce && c["nonce"] != "as-nonce" {
				w.Header().Set("DPoP-Nonce", "as-nonce")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"use_dpop_nonce"}`))
				return
			}
			tok := fmt.Sprintf("dpop-at-%d", f.tokenReqs)
			f.bound[tok] = thumb(jwk)
			_, _ = fmt.Fprintf(w, `{"access_token":%q,"token_type":"DPoP","expires_in":3600}`, tok)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.as.Close)
	server := mcp.NewServer(&mcp.Implementation{Name: "dpop-fixture", Version: "1.0.0"}, nil)
	server.AddTool(&mcp.Tool{Name: "whoami", Description: "Says who.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	f.rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prm := f.rs.URL + "/.well-known/oauth-protected-resource/mcp"
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": f.rs.URL + "/mcp", "authorization_servers": []string{f.as.URL}})
			return
		}
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if scheme == "" {
			w.Header().Set("WWW-Authenticate", `DPoP resource_metadata="`+prm+`"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		f.mu.Lock()
		f.schemes = append(f.schemes, scheme)
		c, jwk, err := checkProof(r.Header.Get("DPoP"), r.Method, f.rs.URL+"/mcp")
		ok := err == nil && scheme == "DPoP" && f.bound[tok] == thumb(jwk) && c["ath"] == ath(tok)
		if err != nil {
			f.fail("MCP %s: %v", r.Method, err)
		} else if f.jtis[c["jti"].(string)] {
			f.fail("MCP %s: jti reused", r.Method)
		} else {
			f.jtis[c["jti"].(string)] = true
		}
		needNonce := ok && f.nonce && c["nonce"] != "rs-nonce"
		f.mu.Unlock()
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token", resource_metadata="`+prm+`"`)
			w.WriteHeader(http.StatusUnauthorized)
		case needNonce:
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", resource_metadata="`+prm+`"`)
			w.Header().Set("DPoP-Nonce", "rs-nonce")
			w.WriteHeader(http.StatusUnauthorized)
		default:
			mcpHandler.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(f.rs.Close)
	return f
}

// checkProof verifies a proof's signature and its htm and htu, without
// failing the test (it runs in a server goroutine).
func checkProof(proof, method, htu string) (map[string]any, map[string]string, error) {
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return nil, nil, fmt.Errorf("no proof")
	}
	var hdr struct {
		Typ string            `json:"typ"`
		JWK map[string]string `json:"jwk"`
	}
	h, _ := base64.RawURLEncoding.DecodeString(parts[0])
	p, _ := base64.RawURLEncoding.DecodeString(parts[1])
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	var c map[string]any
	if json.Unmarshal(h, &hdr) != nil || json.Unmarshal(p, &c) != nil || hdr.Typ != "dpop+jwt" || len(sig) != 64 {
		return nil, nil, fmt.Errorf("malformed proof")
	}
	x, _ := base64.RawURLEncoding.DecodeString(hdr.JWK["x"])
	y, _ := base64.RawURLEncoding.DecodeString(hdr.JWK["y"])
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return nil, nil, fmt.Errorf("bad signature")
	}
	if c["htm"] != method || c["htu"] != htu {
		return nil, nil, fmt.Errorf("htm %v htu %v", c["htm"], c["htu"])
	}
	if _, ok := c["jti"].(string); !ok {
		return nil, nil, fmt.Errorf("no jti")
	}
	return c, hdr.JWK, nil
}

func thumb(jwk map[string]string) string {
	s := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + jwk["x"] + `","y":"` + jwk["y"] + `"}`))
	return base64.RawURLEncoding.EncodeToString(s[:])
}

func ath(tok string) string {
	s := sha256.Sum256([]byte(tok))
	return base64.RawURLEncoding.EncodeToString(s[:])
}

// TestAuthorizerDPoP: a client-credentials grant against an authorization
// server that offers DPoP gets a bound token and presents it, through
// capture, with the DPoP scheme and a fresh proof per request, retrying
// each nonce challenge once.
func TestAuthorizerDPoP(t *testing.T) {
	for _, nonce := range []bool{false, true} {
		t.Run(fmt.Sprintf("nonce=%v", nonce), func(t *testing.T) {
			f := newDPoPFixture(t, nonce)
			var masked []string
			a, err := NewAuthorizer(f.rs.URL+"/mcp", Config{ClientID: "c", ClientSecret: "s3cret", Mask: func(s string) { masked = append(masked, s) }})
			if err != nil {
				t.Fatal(err)
			}
			s, err := capture.Capture(context.Background(), capture.Options{URL: f.rs.URL + "/mcp", Authorizer: a})
			f.mu.Lock()
			defer f.mu.Unlock()
			if err != nil {
				t.Fatalf("capture: %v (server saw: %q)", err, f.failures)
			}
			if len(s.Tools) != 1 {
				t.Errorf("tools = %d", len(s.Tools))
			}
			if len(f.failures) > 0 {
				t.Errorf("server saw: %q", f.failures)
			}
			wantReqs := 1
			if nonce {
				wantReqs = 2
			}
			if f.tokenReqs != wantReqs {
				t.Errorf("token requests = %d, want %d", f.tokenReqs, wantReqs)
			}
			for _, sc := range f.schemes {
				if sc != "DPoP" {
					t.Errorf("scheme %q", sc)
				}
			}
			for tok := range f.bound {
				if !slices.Contains(masked, tok) {
					t.Error("the bound access token was not masked")
				}
			}
		})
	}
}

// FuzzParseDPoPKey: any input is a key or an error that quotes none of it.
func FuzzParseDPoPKey(f *testing.F) {
	k, _ := NewDPoPKey()
	p, _ := k.PEM()
	f.Add(p)
	f.Add([]byte("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		key, err := ParseDPoPKey(b)
		if err != nil {
			if len(b) > 12 && strings.Contains(err.Error(), string(b)) {
				t.Fatal("the error quotes the input")
			}
			return
		}
		if _, err := key.Proof("POST", &url.URL{Scheme: "https", Host: "x", Path: "/"}, "", "", time.Now()); err != nil {
			t.Fatal(err)
		}
	})
}

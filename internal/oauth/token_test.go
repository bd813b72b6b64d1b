package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func TestChooseTokenAuth(t *testing.T) {
	meta := func(m ...string) *oauthex.AuthServerMeta {
		return &oauthex.AuthServerMeta{TokenEndpointAuthMethodsSupported: m}
	}
	tests := []struct {
		name          string
		meta          *oauthex.AuthServerMeta
		want          TokenAuth
		secret, key   bool
		got           TokenAuth
		wantErrSubstr string
	}{
		{name: "secret, nothing listed: basic (RFC 8414 default)", meta: meta(), secret: true, got: AuthBasic},
		{name: "secret, both listed: basic", meta: meta("client_secret_post", "client_secret_basic"), secret: true, got: AuthBasic},
		{name: "secret, post only", meta: meta("client_secret_post"), secret: true, got: AuthPost},
		{name: "key", meta: meta("private_key_jwt", "client_secret_basic"), key: true, got: AuthPrivateKeyJWT},
		{name: "key, not offered", meta: meta("client_secret_basic"), key: true, wantErrSubstr: "offers no token endpoint authentication"},
		{name: "nothing: none", meta: meta("none"), got: AuthNone},
		{name: "nothing, none not offered", meta: meta("client_secret_basic"), wantErrSubstr: "offers no"},
		{name: "forced post", meta: meta("client_secret_basic", "client_secret_post"), want: AuthPost, secret: true, got: AuthPost},
		{name: "forced, not listed", meta: meta("client_secret_basic"), want: AuthPost, secret: true, wantErrSubstr: "does not offer"},
		{name: "forced basic without a secret", meta: meta(), want: AuthBasic, wantErrSubstr: "needs a client secret"},
	}
	for _, tt := range tests {
		got, err := ChooseTokenAuth(tt.meta, tt.want, tt.secret, tt.key)
		if tt.wantErrSubstr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErrSubstr) {
				t.Errorf("%s: err = %v", tt.name, err)
			}
			continue
		}
		if err != nil || got != tt.got {
			t.Errorf("%s: = %s, %v; want %s", tt.name, got, err, tt.got)
		}
	}
}

func TestCheckIssuer(t *testing.T) {
	adv := &oauthex.AuthServerMeta{Issuer: "https://as.example.com", AuthorizationResponseIssParameterSupported: true}
	quiet := &oauthex.AuthServerMeta{Issuer: "https://as.example.com"}
	for _, c := range []struct {
		iss  string
		meta *oauthex.AuthServerMeta
		ok   bool
	}{
		{"https://as.example.com", adv, true},
		{"", adv, false},
		{"https://evil.example.com", adv, false},
		{"https://as.example.com/", adv, false}, // no normalisation
		{"", quiet, true},
		{"https://as.example.com", quiet, true},
		{"https://evil.example.com", quiet, false},
	} {
		if err := CheckIssuer(c.iss, c.meta); (err == nil) != c.ok {
			t.Errorf("CheckIssuer(%q, advertised=%v) = %v", c.iss, c.meta.AuthorizationResponseIssParameterSupported, err)
		}
	}
}

func TestStepUpRule(t *testing.T) {
	h := func(v string) http.Header { return http.Header{"Www-Authenticate": {v}} }
	for _, c := range []struct {
		status int
		header http.Header
		held   []string
		want   []string
		ok     bool
	}{
		{403, h(`Bearer error="insufficient_scope", scope="mcp:write"`), []string{"mcp:read"}, []string{"mcp:read", "mcp:write"}, true},
		{403, h(`Bearer error="insufficient_scope", scope="mcp:read"`), []string{"mcp:read"}, nil, false},
		{403, h(`Bearer error="invalid_token"`), nil, nil, false},
		{401, h(`Bearer error="insufficient_scope", scope="x"`), nil, nil, false},
	} {
		got, ok := StepUp(c.held, c.status, c.header)
		if ok != c.ok || (ok && !slices.Equal(got, c.want)) {
			t.Errorf("StepUp(%v, %d, %v) = %v, %v", c.held, c.status, c.header, got, ok)
		}
	}
}

func TestMetadataURLs(t *testing.T) {
	if got := AuthServerMetadataURLs("https://as.example.com/tenant1/"); !slices.Equal(got, []string{
		"https://as.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://as.example.com/.well-known/openid-configuration/tenant1",
		"https://as.example.com/tenant1/.well-known/openid-configuration",
	}) {
		t.Errorf("with a path: %q", got)
	}
	if got := AuthServerMetadataURLs("https://as.example.com"); !slices.Equal(got, []string{
		"https://as.example.com/.well-known/oauth-authorization-server",
		"https://as.example.com/.well-known/openid-configuration",
	}) {
		t.Errorf("without a path: %q", got)
	}
}

// TestAssertion signs with each supported key kind and verifies the JWS
// with the standard library, so the encoding (raw r||s for ECDSA) is
// checked, not only produced.
func TestAssertion(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	sec1, _ := x509.MarshalECPrivateKey(ec)
	for name, c := range map[string]struct {
		pem     []byte
		alg     string
		allowed []string
		wantAlg string
	}{
		"pkcs8 EC":        {pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}), "", nil, "ES256"},
		"sec1 EC":         {pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}), "ES256", []string{"ES256"}, "ES256"},
		"pkcs1 RSA":       {pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)}), "", nil, "RS256"},
		"RSA picks PS256": {pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)}), "", []string{"PS256"}, "PS256"},
	} {
		k, err := ParseSigningKey(c.pem, c.alg, c.allowed)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if k.Alg() != c.wantAlg {
			t.Errorf("%s: alg %s", name, k.Alg())
		}
		jwt, err := k.Assertion("client", "client", "https://as.example.com")
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(jwt, ".")
		var claims map[string]any
		b, _ := base64.RawURLEncoding.DecodeString(parts[1])
		if json.Unmarshal(b, &claims) != nil || claims["aud"] != "https://as.example.com" || claims["iss"] != "client" || claims["jti"] == "" {
			t.Errorf("%s: claims %v", name, claims)
		}
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		d := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		var ok bool
		switch k.Alg() {
		case "ES256":
			ok = len(sig) == 64 && ecdsa.Verify(&ec.PublicKey, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
		case "RS256":
			ok = rsa.VerifyPKCS1v15(&rk.PublicKey, crypto.SHA256, d[:], sig) == nil
		case "PS256":
			ok = rsa.VerifyPSS(&rk.PublicKey, crypto.SHA256, d[:], sig, nil) == nil
		}
		if !ok {
			t.Errorf("%s: the signature does not verify", name)
		}
	}
	if _, err := ParseSigningKey([]byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), "", nil); err == nil || strings.Contains(err.Error(), "AAAA") {
		t.Errorf("bad key: %v", err)
	}
	ecPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER})
	if _, err := ParseSigningKey(ecPEM, "RS256", nil); err == nil {
		t.Error("RS256 with an EC key accepted")
	}
	if _, err := ParseSigningKey(ecPEM, "", []string{"RS256"}); err == nil {
		t.Error("ES256 accepted where the server lists only RS256")
	}
}

func FuzzParseChallenge(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"`,
		`Bearer error="insufficient_scope", scope="mcp:write", Basic realm="x"`,
		`Basic`, `"`, `Bearer a=`, `Bearer a="unterminated`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		c := ParseChallenge(http.Header{"Www-Authenticate": {v}})
		for _, s := range c.Scope {
			if s == "" || strings.ContainsAny(s, " \t\n") {
				t.Fatalf("scope token %q", s)
			}
		}
	})
}

func FuzzParseSigningKey(f *testing.F) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(ec)
	f.Add(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), "")
	f.Add([]byte("not pem"), "ES256")
	f.Fuzz(func(t *testing.T, data []byte, alg string) {
		k, err := ParseSigningKey(data, alg, nil)
		if err == nil {
			if _, err := k.Assertion("c", "c", "https://as.example.com"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/oauth/oauthtest"
)

func newFixture(t *testing.T, o oauthtest.Options) *oauthtest.Fixture {
	t.Helper()
	f, err := oauthtest.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// run captures the fixture through an Authorizer for cfg and returns the
// token requests the authorization server saw.
func run(t *testing.T, f *oauthtest.Fixture, cfg Config, url string) ([]oauthtest.TokenRequest, error) {
	t.Helper()
	a, err := NewAuthorizer(url, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := capture.Capture(context.Background(), capture.Options{URL: url, Authorizer: a})
	if err == nil && len(s.Tools) != 1 {
		t.Fatalf("tools = %d", len(s.Tools))
	}
	return f.Requests(), err
}

func TestGrants(t *testing.T) {
	all := []string{"client_secret_basic", "client_secret_post", "private_key_jwt", "none"}
	tests := []struct {
		name     string
		methods  []string
		cfg      func(f *oauthtest.Fixture) Config
		grant    string
		auth     string
		wantWarn bool
		rotate   bool
	}{
		{"client secret, basic by default", all,
			func(f *oauthtest.Fixture) Config { return Config{ClientID: f.ClientID, ClientSecret: f.ClientSecret} },
			"client_credentials", "client_secret_basic", false, false},
		{"client secret, post when only post is offered", []string{"client_secret_post"},
			func(f *oauthtest.Fixture) Config { return Config{ClientID: f.ClientID, ClientSecret: f.ClientSecret} },
			"client_credentials", "client_secret_post", false, false},
		{"client secret, post forced", all,
			func(f *oauthtest.Fixture) Config {
				return Config{ClientID: f.ClientID, ClientSecret: f.ClientSecret, TokenAuth: AuthPost}
			},
			"client_credentials", "client_secret_post", false, false},
		{"private_key_jwt", all,
			func(f *oauthtest.Fixture) Config {
				return Config{ClientID: f.ClientID, PrivateKeyPEM: []byte(f.KeyPEM)}
			},
			"client_credentials", "private_key_jwt", false, false},
		{"workload identity JWT bearer", all,
			func(f *oauthtest.Fixture) Config {
				return Config{ClientID: "workload", Assertion: func(_ context.Context, aud string) (string, error) { return f.WorkloadJWT(aud), nil }}
			},
			GrantJWTBearer, "none", false, false},
		{"refresh token, public client", all,
			func(f *oauthtest.Fixture) Config { return Config{ClientID: f.ClientID, RefreshToken: f.RefreshToken} },
			"refresh_token", "none", false, false},
		{"refresh token rotated", all,
			func(f *oauthtest.Fixture) Config { return Config{ClientID: f.ClientID, RefreshToken: f.RefreshToken} },
			"refresh_token", "none", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, oauthtest.Options{AuthMethods: tt.methods, RotateRefresh: tt.rotate})
			cfg := tt.cfg(f)
			var masked, warns []string
			cfg.Mask = func(s string) { masked = append(masked, s) }
			cfg.Warn = func(s string) { warns = append(warns, s) }
			reqs, err := run(t, f, cfg, f.URL)
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != 1 {
				t.Fatalf("token requests = %+v, want one", reqs)
			}
			r := reqs[0]
			if r.Grant != tt.grant || r.Auth != tt.auth || r.Resource != f.URL {
				t.Errorf("token request = %+v, want grant %s auth %s resource %s", r, tt.grant, tt.auth, f.URL)
			}
			if (len(warns) > 0) != tt.wantWarn {
				t.Errorf("warnings = %q", warns)
			}
			for _, w := range warns {
				for _, s := range f.Secrets() {
					if strings.Contains(w, s) {
						t.Fatal("a warning holds a secret")
					}
				}
			}
			// Every access token issued was handed to Mask.
			for _, s := range f.Secrets() {
				if strings.HasPrefix(s, "at-") && !slices.Contains(masked, s) {
					t.Errorf("access token not masked")
				}
			}
		})
	}
}

func TestGrantOverLegacySSE(t *testing.T) {
	f := newFixture(t, oauthtest.Options{})
	if _, err := run(t, f, Config{ClientID: f.ClientID, ClientSecret: f.ClientSecret}, f.SSEURL); err != nil {
		t.Fatal(err)
	}
}

func TestStepUp(t *testing.T) {
	f := newFixture(t, oauthtest.Options{Scopes: []string{"mcp:read", "mcp:write"}})
	reqs, err := run(t, f, Config{ClientID: f.ClientID, ClientSecret: f.ClientSecret, Scopes: []string{"mcp:read"}}, f.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].Scope != "mcp:read" || reqs[1].Scope != "mcp:read mcp:write" {
		t.Fatalf("token requests = %+v, want mcp:read then the union", reqs)
	}
}

func TestGrantFailures(t *testing.T) {
	f := newFixture(t, oauthtest.Options{AuthMethods: []string{"client_secret_basic"}})
	for name, cfg := range map[string]Config{
		"wrong secret":     {ClientID: f.ClientID, ClientSecret: "wrong"},
		"post not offered": {ClientID: f.ClientID, ClientSecret: f.ClientSecret, TokenAuth: AuthPost},
		"key not offered":  {ClientID: f.ClientID, PrivateKeyPEM: []byte(f.KeyPEM)},
		"bad assertion":    {Assertion: func(context.Context, string) (string, error) { return "a.b.c", nil }},
	} {
		t.Run(name, func(t *testing.T) {
			before := len(f.Requests())
			_, err := run(t, f, cfg, f.URL)
			if err == nil {
				t.Fatal("capture succeeded")
			}
			for _, s := range append(f.Secrets(), "wrong", "a.b.c") {
				if strings.Contains(err.Error(), s) {
					t.Fatalf("the error quotes a secret: %v", err)
				}
			}
			// A refused grant is not retried.
			if n := len(f.Requests()) - before; n > 1 {
				t.Errorf("%d token requests, want at most one", n)
			}
		})
	}
}

func TestNewAuthorizerRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		url string
		cfg Config
	}{
		"plain http":     {"http://mcp.example.com/mcp", Config{ClientID: "a", ClientSecret: "b"}},
		"no credentials": {"https://mcp.example.com/mcp", Config{ClientID: "a"}},
		"secret and key": {"https://mcp.example.com/mcp", Config{ClientID: "a", ClientSecret: "b", PrivateKeyPEM: []byte("x")}},
		"two grants":     {"https://mcp.example.com/mcp", Config{RefreshToken: "r", Assertion: func(context.Context, string) (string, error) { return "", nil }}},
		"key is not PEM": {"https://mcp.example.com/mcp", Config{ClientID: "a", PrivateKeyPEM: []byte("not pem")}},
	} {
		if _, err := NewAuthorizer(c.url, c.cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestEnterpriseManaged runs the SEP-990 flow: an identity provider
// exchanges the ID token for an ID-JAG (here one the fixture's
// authorization server trusts), which the JWT bearer grant presents.
func TestEnterpriseManaged(t *testing.T) {
	f := newFixture(t, oauthtest.Options{})
	var got url.Values
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		got = r.PostForm
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{
			"access_token": f.WorkloadJWT(r.PostForm.Get("audience")), "token_type": "N_A",
			"issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
		})
	}))
	defer idp.Close()
	cfg := Config{ClientID: f.ClientID, ClientSecret: f.ClientSecret,
		IDP: &IDPExchange{TokenEndpoint: idp.URL + "/token", ClientID: "idp-client", IDToken: "id-token-value"}}
	reqs, err := run(t, f, cfg, f.URL)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": "id-token-value",
		"subject_token_type": "urn:ietf:params:oauth:token-type:id_token", "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
		"audience": f.Issuer, "resource": f.URL, "client_id": "idp-client",
	} {
		if got.Get(k) != want {
			t.Errorf("exchange %s = %q, want %q", k, got.Get(k), want)
		}
	}
	if len(reqs) != 1 || reqs[0].Grant != GrantJWTBearer || reqs[0].Auth != "client_secret_basic" {
		t.Errorf("token requests = %+v", reqs)
	}
}

package oauthlogin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/wardenlock/warden/internal/oauthlogin"
	"github.com/wardenlock/warden/internal/oauthlogin/logintest"
)

// target reads the fixture's authorization server metadata, as discovery
// would have.
func target(t *testing.T, f *logintest.Fixture) oauthlogin.Target {
	t.Helper()
	resp, err := http.Get(f.AS.URL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var asm oauthex.AuthServerMeta
	if err := json.NewDecoder(resp.Body).Decode(&asm); err != nil {
		t.Fatal(err)
	}
	return oauthlogin.Target{Resource: f.MCPURL, Issuer: asm.Issuer, AuthServer: &asm}
}

// browse is an Open that plays the browser in the background and reports
// the URL it was given.
func browse(t *testing.T, seen *string) func(string) error {
	return func(u string) error {
		*seen = u
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := logintest.Browse(ctx, u); err != nil {
				t.Logf("browse: %v", err)
			}
		}()
		return nil
	}
}

func TestLogin(t *testing.T) {
	tests := []struct {
		name     string
		cfg      logintest.Config
		opts     oauthlogin.Options
		reg      oauthlogin.Registration
		style    oauth2.AuthStyle
		wantErr  string
		scope    string // the authorize request's scope
		basicTok bool   // the token request authenticates with Basic
	}{
		{name: "dynamic registration, public client", cfg: logintest.Config{IssSupported: true}, reg: oauthlogin.Dynamic, style: oauth2.AuthStyleInParams},
		{name: "pre-registered with secret uses basic", cfg: logintest.Config{ClientID: "ci", ClientSecret: "s3cret", NoRegistration: true}, opts: oauthlogin.Options{ClientID: "ci", ClientSecret: "s3cret"}, reg: oauthlogin.PreRegistered, style: oauth2.AuthStyleInHeader, basicTok: true},
		{name: "pre-registered wins over registration", cfg: logintest.Config{ClientID: "ci"}, opts: oauthlogin.Options{ClientID: "ci"}, reg: oauthlogin.PreRegistered, style: oauth2.AuthStyleInParams},
		{name: "offline_access added when advertised", cfg: logintest.Config{ScopesSupported: []string{"read", "offline_access"}}, reg: oauthlogin.Dynamic, style: oauth2.AuthStyleInParams, scope: "offline_access"},
		{name: "unadvertised but correct iss accepted", cfg: logintest.Config{}, reg: oauthlogin.Dynamic, style: oauth2.AuthStyleInParams},
		{name: "no iss, not advertised", cfg: logintest.Config{Iss: logintest.IssAbsent}, reg: oauthlogin.Dynamic, style: oauth2.AuthStyleInParams},
		{name: "state mismatch refused", cfg: logintest.Config{WrongState: true}, wantErr: "state does not match"},
		{name: "wrong iss refused", cfg: logintest.Config{IssSupported: true, Iss: logintest.IssWrong}, wantErr: `iss "https://evil.example" is not`},
		{name: "wrong iss refused when not advertised", cfg: logintest.Config{Iss: logintest.IssWrong}, wantErr: `iss "https://evil.example" is not`},
		{name: "missing iss refused when advertised", cfg: logintest.Config{IssSupported: true, Iss: logintest.IssAbsent}, wantErr: "has no iss"},
		{name: "no client possible", cfg: logintest.Config{NoRegistration: true}, wantErr: "has no registration endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := logintest.New(tt.cfg)
			defer f.Close()
			var seen string
			opts := tt.opts
			opts.Open = browse(t, &seen)
			opts.Timeout = 20 * time.Second
			res, err := oauthlogin.Login(context.Background(), target(t, f), opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				for _, r := range f.Requests() {
					if r.Endpoint == "token" {
						t.Fatal("a refused authorization response still reached the token endpoint")
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Registration != tt.reg || res.AuthStyle != tt.style {
				t.Errorf("registration %q style %v, want %q %v", res.Registration, res.AuthStyle, tt.reg, tt.style)
			}
			if res.Token.RefreshToken == "" || res.Token.AccessToken == "" {
				t.Fatalf("token %+v lacks a refresh or access token", res.Token)
			}
			if !strings.HasPrefix(res.RedirectURI, "http://127.0.0.1:") {
				t.Errorf("redirect %q is not loopback", res.RedirectURI)
			}
			var sawAuth, sawToken bool
			for _, r := range f.Requests() {
				switch r.Endpoint {
				case "authorize":
					sawAuth = true
					if r.Form.Get("resource") != f.MCPURL || r.Form.Get("code_challenge_method") != "S256" || r.Form.Get("state") == "" {
						t.Errorf("authorize request %v lacks resource, S256 or state", r.Form)
					}
					if tt.scope != "" && !strings.Contains(r.Form.Get("scope"), tt.scope) {
						t.Errorf("scope %q lacks %q", r.Form.Get("scope"), tt.scope)
					}
				case "token":
					sawToken = true
					if r.Form.Get("resource") != f.MCPURL || r.Form.Get("code_verifier") == "" {
						t.Errorf("token request %v lacks resource or code_verifier", r.Form)
					}
					if r.Basic != tt.basicTok {
						t.Errorf("token request Basic = %v, want %v", r.Basic, tt.basicTok)
					}
				}
			}
			if !sawAuth || !sawToken {
				t.Errorf("authorize %v token %v: a request is missing", sawAuth, sawToken)
			}
			// The refresh token works (with the resource indicator the
			// fixture insists on), and its access token opens the MCP server.
			form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {res.Token.RefreshToken}, "resource": {f.MCPURL}, "client_id": {res.ClientID}}
			req, _ := http.NewRequest(http.MethodPost, f.AS.URL+"/token", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if res.ClientSecret != "" {
				req.SetBasicAuth(res.ClientID, res.ClientSecret)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var tok struct {
				AccessToken string `json:"access_token"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&tok)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || tok.AccessToken == "" {
				t.Fatalf("refresh: HTTP %d", resp.StatusCode)
			}
			if code := mcpStatus(t, f.MCPURL, tok.AccessToken); code == http.StatusUnauthorized {
				t.Fatal("the refreshed access token was refused by the MCP server")
			}
			if code := mcpStatus(t, f.MCPURL, "forged"); code != http.StatusUnauthorized {
				t.Fatalf("a forged token got HTTP %d, want 401", code)
			}
		})
	}
}

func TestLoginTimeout(t *testing.T) {
	f := logintest.New(logintest.Config{})
	defer f.Close()
	start := time.Now()
	_, err := oauthlogin.Login(context.Background(), target(t, f), oauthlogin.Options{Open: func(string) error { return nil }, Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no authorization response") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("login waited %s past its 200ms bound", time.Since(start))
	}
}

func TestLoginRefusesPlainHTTPEndpoint(t *testing.T) {
	asm := &oauthex.AuthServerMeta{Issuer: "http://as.example", AuthorizationEndpoint: "http://as.example/authorize", TokenEndpoint: "https://as.example/token"}
	_, err := oauthlogin.Login(context.Background(), oauthlogin.Target{Resource: "https://mcp.example/mcp", AuthServer: asm}, oauthlogin.Options{})
	if err == nil || !strings.Contains(err.Error(), "neither https nor http to a loopback") {
		t.Fatalf("err = %v", err)
	}
}

// mcpStatus is the status of an initialize POST with token.
func mcpStatus(t *testing.T, mcpURL, token string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

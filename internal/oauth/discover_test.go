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

	"github.com/wardenlock/warden/internal/oauth/oauthtest"
)

// layout is one way a protected server and its authorization server may
// publish their metadata; the test server serves exactly the paths given.
type layout struct {
	prmPath     string // "" = none
	prmResource string // "" = the MCP URL; "origin" = the server's origin
	inChallenge bool   // the 401 names prmPath
	scopeHeader string
	scopes      []string // scopes_supported
	asPrefix    string   // the issuer's path
	asMetaPath  string   // "" = none
	issuer      string   // "" = the right one
	noPKCE      bool     // the metadata lists no code_challenge_methods_supported
}

func serve(t *testing.T, l layout) (mcpURL string, seen *[]string) {
	t.Helper()
	var paths []string
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		base := srv.URL
		switch {
		case r.URL.Path == "/mcp":
			var params []string
			if l.inChallenge {
				params = append(params, `resource_metadata="`+base+l.prmPath+`"`)
			}
			if l.scopeHeader != "" {
				params = append(params, `scope="`+l.scopeHeader+`"`)
			}
			w.Header().Set("WWW-Authenticate", strings.TrimSpace("Bearer "+strings.Join(params, ", ")))
			w.WriteHeader(http.StatusUnauthorized)
		case l.prmPath != "" && r.URL.Path == l.prmPath:
			res := base + "/mcp"
			switch l.prmResource {
			case "origin":
				res = base
			case "":
			default:
				res = l.prmResource
			}
			m := map[string]any{"resource": res, "authorization_servers": []string{base + l.asPrefix}}
			if l.scopes != nil {
				m["scopes_supported"] = l.scopes
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(m)
		case l.asMetaPath != "" && r.URL.Path == l.asMetaPath:
			iss := base + l.asPrefix
			if l.issuer != "" {
				iss = l.issuer
			}
			w.Header().Set("Content-Type", "application/json")
			m := map[string]any{
				"issuer": iss, "authorization_endpoint": base + l.asPrefix + "/authorize",
				"token_endpoint": base + l.asPrefix + "/token", "response_types_supported": []string{"code"},
				"code_challenge_methods_supported": []string{"S256"},
			}
			if l.noPKCE {
				delete(m, "code_challenge_methods_supported")
			}
			_ = json.NewEncoder(w).Encode(m)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", &paths
}

func challengeOf(t *testing.T, mcpURL string) http.Header {
	t.Helper()
	resp, err := http.Post(mcpURL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
	return resp.Header
}

func TestDiscoverLayouts(t *testing.T) {
	tests := []struct {
		name       string
		l          layout
		wantErr    string
		resource   string // "mcp" or "origin"
		scopes     []string
		fallback   bool
		noPKCE     bool
		firstPaths []string // the metadata paths asked, in order, before the AS's
	}{
		{name: "challenge names path-based PRM, RFC 8414 at root",
			l:        layout{prmPath: "/.well-known/oauth-protected-resource/mcp", inChallenge: true, asMetaPath: "/.well-known/oauth-authorization-server"},
			resource: "mcp", firstPaths: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"}},
		{name: "path-based PRM without challenge, OpenID discovery",
			l:        layout{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/openid-configuration"},
			resource: "mcp", firstPaths: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}},
		{name: "root PRM names the origin, issuer with a path (RFC 8414 insertion)",
			l:        layout{prmPath: "/.well-known/oauth-protected-resource", prmResource: "origin", asPrefix: "/tenant1", asMetaPath: "/.well-known/oauth-authorization-server/tenant1"},
			resource: "origin", firstPaths: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server/tenant1"}},
		{name: "custom PRM location, OpenID path appending",
			l:        layout{prmPath: "/custom/metadata/location.json", inChallenge: true, asPrefix: "/tenant1", asMetaPath: "/tenant1/.well-known/openid-configuration"},
			resource: "mcp", firstPaths: []string{"/custom/metadata/location.json", "/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"}},
		{name: "scope from the challenge wins",
			l:        layout{prmPath: "/.well-known/oauth-protected-resource/mcp", scopeHeader: "mcp:basic", scopes: []string{"mcp:a", "mcp:b"}, asMetaPath: "/.well-known/oauth-authorization-server"},
			resource: "mcp", scopes: []string{"mcp:basic"}},
		{name: "scopes_supported without a challenge scope",
			l:        layout{prmPath: "/.well-known/oauth-protected-resource/mcp", scopes: []string{"mcp:a", "mcp:b"}, asMetaPath: "/.well-known/oauth-authorization-server"},
			resource: "mcp", scopes: []string{"mcp:a", "mcp:b"}},
		{name: "2025-03-26: no PRM, metadata at the server's root",
			l:        layout{asMetaPath: "/.well-known/oauth-authorization-server"},
			resource: "mcp"},
		{name: "2025-03-26: no metadata at all, default endpoints",
			l:        layout{},
			resource: "mcp", fallback: true},
		{name: "metadata without PKCE: accepted for CI grants, PKCE false",
			l:        layout{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server", noPKCE: true},
			resource: "mcp", noPKCE: true},
		{name: "metadata without PKCE, wrong issuer: refused",
			l:       layout{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server", noPKCE: true, issuer: "https://evil.example.com"},
			wantErr: "authorization server metadata"},
		{name: "PRM for another resource is refused",
			l:       layout{prmPath: "/.well-known/oauth-protected-resource/mcp", prmResource: "https://evil.example.com/mcp", inChallenge: true, asMetaPath: "/.well-known/oauth-authorization-server"},
			wantErr: "protected resource metadata"},
		{name: "issuer mismatch is refused",
			l:       layout{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server", issuer: "https://evil.example.com"},
			wantErr: "authorization server metadata"},
		{name: "PRM without metadata at its authorization server",
			l:       layout{prmPath: "/.well-known/oauth-protected-resource/mcp"},
			wantErr: "publishes no metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mcpURL, seen := serve(t, tt.l)
			d, err := Discover(context.Background(), nil, mcpURL, challengeOf(t, mcpURL))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(mcpURL)
			want := mcpURL
			if tt.resource == "origin" {
				want = u.Scheme + "://" + u.Host
			}
			if d.Resource != want {
				t.Errorf("Resource = %q, want %q", d.Resource, want)
			}
			if !slices.Equal(d.Scopes, tt.scopes) {
				t.Errorf("Scopes = %q, want %q", d.Scopes, tt.scopes)
			}
			if d.PKCE != (!tt.noPKCE && !tt.fallback) {
				t.Errorf("PKCE = %v", d.PKCE)
			}
			if d.Fallback != tt.fallback {
				t.Errorf("Fallback = %v", d.Fallback)
			}
			if !strings.HasSuffix(d.AuthServer.TokenEndpoint, "/token") {
				t.Errorf("token endpoint %q", d.AuthServer.TokenEndpoint)
			}
			if tt.firstPaths != nil {
				got := slices.DeleteFunc(slices.Clone(*seen), func(p string) bool { return p == "/mcp" })
				if len(got) > len(tt.firstPaths) {
					got = got[:len(tt.firstPaths)]
				}
				if !slices.Equal(got, tt.firstPaths) {
					t.Errorf("asked %q, want %q", got, tt.firstPaths)
				}
			}
		})
	}
}

func TestDiscoverFixture(t *testing.T) {
	f, err := oauthtest.New(oauthtest.Options{Scopes: []string{"mcp:read"}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Discover(context.Background(), nil, f.URL, challengeOf(t, f.URL))
	if err != nil {
		t.Fatal(err)
	}
	if d.Resource != f.URL || d.Issuer != f.Issuer || !slices.Equal(d.Scopes, []string{"mcp:read"}) {
		t.Fatalf("discovery = %+v", d)
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://mcp.example.com/mcp": true,
		"http://127.0.0.1:8080/mcp":   true,
		"http://localhost/mcp":        true,
		"http://[::1]:9/x":            true,
		"http://mcp.example.com/mcp":  false,
		"http://10.0.0.1/mcp":         false,
		"ftp://example.com/":          false,
		"/relative":                   false,
	} {
		if err := CheckURL(raw); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v", raw, err)
		}
	}
}

func TestDiscoverRefusesPlainHTTP(t *testing.T) {
	if _, err := Discover(context.Background(), nil, "http://mcp.example.com/mcp", nil); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("err = %v", err)
	}
}

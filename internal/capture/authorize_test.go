package capture

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/wardenlock/warden/internal/oauth/oauthtest"
)

// tokenAuthorizer hands out a token once challenged, as an OAuth grant
// would, and counts what it was asked.
type tokenAuthorizer struct {
	mu         sync.Mutex
	token      func() string
	current    string
	challenges []int
	always     bool // ask for a retry on every challenge
}

func (a *tokenAuthorizer) Authorization(context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.current == "" {
		return "", nil
	}
	return "Bearer " + a.current, nil
}

func (a *tokenAuthorizer) Challenged(_ context.Context, status int, h http.Header) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.challenges = append(a.challenges, status)
	if h.Get("WWW-Authenticate") == "" {
		return false, nil
	}
	if a.current != "" && !a.always {
		return false, nil
	}
	a.current = a.token()
	return true, nil
}

func TestCaptureWithAuthorizer(t *testing.T) {
	f, err := oauthtest.New(oauthtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		name, url string
		proto     Protocol
	}{
		{"streamable auto", f.URL, ProtocolAuto},
		{"streamable 2025", f.URL, ProtocolLegacy},
		{"legacy SSE", f.SSEURL, ProtocolLegacy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &tokenAuthorizer{token: func() string { return f.Issue() }}
			s, err := Capture(context.Background(), Options{URL: tc.url, Protocol: tc.proto, Authorizer: a, Timeout: DefaultTimeout})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Tools) != 1 {
				t.Fatalf("tools = %d, want 1", len(s.Tools))
			}
			if len(a.challenges) != 1 || a.challenges[0] != http.StatusUnauthorized {
				t.Errorf("challenges = %v, want one 401", a.challenges)
			}
		})
	}
	t.Run("no authorizer", func(t *testing.T) {
		_, err := Capture(context.Background(), Options{URL: f.URL})
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Fatalf("err = %v, want HTTP 401", err)
		}
	})
	t.Run("retries are bounded", func(t *testing.T) {
		a := &tokenAuthorizer{token: func() string { return "not-a-token" }, always: true}
		_, err := Capture(context.Background(), Options{URL: f.URL, Protocol: ProtocolLegacy, Authorizer: a})
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Fatalf("err = %v, want HTTP 401", err)
		}
		if n := len(a.challenges); n != maxAuthRetries {
			t.Errorf("challenged %d times, want %d", n, maxAuthRetries)
		}
	})
	t.Run("combined with an Authorization header", func(t *testing.T) {
		_, err := Capture(context.Background(), Options{URL: f.URL, Headers: []string{"Authorization: Bearer x"}, Authorizer: &tokenAuthorizer{}})
		if err == nil || !strings.Contains(err.Error(), "cannot be combined") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestAuthorizerNeverCrossesOrigin: a server that answers with a redirect
// to another origin gets the token; the other origin never sees it.
func TestAuthorizerNeverCrossesOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer other.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer scope="x"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	a := &tokenAuthorizer{token: func() string { return "tok-secret" }}
	_, err := Capture(context.Background(), Options{URL: origin.URL + "/mcp", Protocol: ProtocolLegacy, Authorizer: a})
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("err = %v, want the redirect refused", err)
	}
	if strings.Contains(err.Error(), "tok-secret") {
		t.Fatal("the token is in the error")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) != 0 {
		t.Fatalf("the other origin was asked %d times", len(leaked))
	}
}

// TestAuthorizerFollowsSameOriginRedirect: a redirect within the server's
// origin keeps the header (net/http copies it; it drops it only across
// domains, and warden refuses those redirects before that matters).
func TestAuthorizerFollowsSameOriginRedirect(t *testing.T) {
	f, err := oauthtest.New(oauthtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	target, _ := url.Parse(f.URL)
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	var front *httptest.Server
	front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, front.URL+"/mcp", http.StatusPermanentRedirect)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	a := &tokenAuthorizer{token: func() string { return f.Issue() }}
	s, err := Capture(context.Background(), Options{URL: front.URL + "/old", Protocol: ProtocolLegacy, Authorizer: a})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tools) != 1 {
		t.Fatalf("tools = %d", len(s.Tools))
	}
}

package ghoidc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestIDToken(t *testing.T) {
	const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJ4In0.c2ln"
	var gotAud, gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAud, gotAuth = r.URL.Query().Get("audience"), r.Header.Get("Authorization")
		switch r.URL.Query().Get("audience") {
		case "fail":
			http.Error(w, "request-token-secret", http.StatusForbidden)
		case "empty":
			_, _ = w.Write([]byte(`{}`))
		default:
			_, _ = w.Write([]byte(`{"value":"` + jwt + `"}`))
		}
	}))
	defer srv.Close()
	env := map[string]string{
		"ACTIONS_ID_TOKEN_REQUEST_URL":   srv.URL + "/token?api-version=2.0",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "request-token-secret",
	}
	getenv := func(k string) string { return env[k] }

	tok, err := IDToken(context.Background(), nil, getenv, "https://as.example.com")
	if err != nil || tok != jwt {
		t.Fatalf("IDToken = %q, %v", tok, err)
	}
	if gotAud != "https://as.example.com" || gotAuth != "Bearer request-token-secret" {
		t.Errorf("audience %q, authorization %q", gotAud, gotAuth)
	}
	for _, aud := range []string{"fail", "empty"} {
		_, err := IDToken(context.Background(), nil, getenv, aud)
		if err == nil || strings.Contains(err.Error(), "request-token-secret") {
			t.Errorf("audience %s: err = %v", aud, err)
		}
	}
	if _, err := IDToken(context.Background(), nil, func(string) string { return "" }, ""); err == nil || !strings.Contains(err.Error(), "id-token: write") {
		t.Errorf("outside Actions: err = %v", err)
	}
	env["ACTIONS_ID_TOKEN_REQUEST_URL"] = "http://token.example.com/x"
	if _, err := IDToken(context.Background(), nil, getenv, ""); err == nil || !strings.Contains(err.Error(), "https") {
		t.Errorf("plain http: err = %v", err)
	}
}

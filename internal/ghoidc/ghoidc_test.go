package ghoidc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestIDToken(t *testing.T) {
	const reqTok, idTok = "request-secret-123", "eyJ.id-token-secret.sig"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+reqTok {
			http.Error(w, "no "+r.Header.Get("Authorization"), http.StatusUnauthorized)
			return
		}
		switch r.URL.Query().Get("audience") {
		case "sigstore":
			if r.URL.Query().Get("api-version") != "2.0" {
				http.Error(w, "query lost", http.StatusBadRequest)
				return
			}
			w.Write([]byte(`{"count":1,"value":"` + idTok + `"}`))
		case "empty":
			w.Write([]byte(`{"value":""}`))
		case "huge":
			w.Write([]byte(`{"value":"` + strings.Repeat("a", maxResponse) + `"}`))
		default:
			http.Error(w, "bad audience", http.StatusForbidden)
		}
	}))
	defer srv.Close()
	e := map[string]string{"ACTIONS_ID_TOKEN_REQUEST_URL": srv.URL + "/token?api-version=2.0", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": reqTok}
	got, err := IDToken(context.Background(), srv.Client(), env(e), "sigstore")
	if err != nil || got != idTok {
		t.Fatalf("IDToken = %q, %v", got, err)
	}
	for _, c := range []struct {
		name, aud string
		env       map[string]string
		want      string
	}{
		{"unset", "sigstore", map[string]string{}, "id-token: write"},
		{"no request token", "sigstore", map[string]string{"ACTIONS_ID_TOKEN_REQUEST_URL": srv.URL}, "id-token: write"},
		{"refused", "other", e, "HTTP 403"},
		{"wrong request token", "sigstore", map[string]string{"ACTIONS_ID_TOKEN_REQUEST_URL": srv.URL, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "x"}, "HTTP 401"},
		{"empty token", "empty", e, "no token"},
		{"huge response", "huge", e, "larger than"},
		{"plain http elsewhere", "sigstore", map[string]string{"ACTIONS_ID_TOKEN_REQUEST_URL": "http://example.com/t", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": reqTok}, "https only"},
		{"not a URL", "sigstore", map[string]string{"ACTIONS_ID_TOKEN_REQUEST_URL": "::", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": reqTok}, "not a URL"},
	} {
		_, err := IDToken(context.Background(), srv.Client(), env(c.env), c.aud)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), reqTok) || strings.Contains(err.Error(), idTok) {
			t.Errorf("%s: error shows a secret: %v", c.name, err)
		}
	}
}

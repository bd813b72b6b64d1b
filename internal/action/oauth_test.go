package action

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/oauth/oauthtest"
)

// TestRunOAuth pins and checks an OAuth-protected server through the
// Action with a client secret and with the job's GitHub OIDC token, and
// asserts that every token is announced with ::add-mask:: and that no
// secret byte appears anywhere else: stdout, stderr, summary, outputs,
// SARIF, lock, snapshot.
func TestRunOAuth(t *testing.T) {
	for _, grant := range []string{"client secret", "github oidc"} {
		t.Run(grant, func(t *testing.T) {
			f, err := oauthtest.New(oauthtest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			oidc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer oidc-request-token-value" {
					http.Error(w, "no", http.StatusUnauthorized)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"value":"` + f.WorkloadJWT(r.URL.Query().Get("audience")) + `"}`))
			}))
			defer oidc.Close()
			h := newHarness(t)
			setInputs := func(mode string) {
				h.reset()
				h.input("server-url", f.URL)
				h.input("mode", mode)
				switch grant {
				case "client secret":
					h.input("oauth-client-id", f.ClientID)
					h.input("oauth-client-secret", f.ClientSecret)
				case "github oidc":
					h.input("oauth-github-oidc", "true")
					h.vars["ACTIONS_ID_TOKEN_REQUEST_URL"] = oidc.URL + "/token"
					h.vars["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = "oidc-request-token-value"
				}
			}
			var outputs []string
			var stdouts []string
			for _, mode := range []string{"pin", "check"} {
				setInputs(mode)
				r := h.run()
				if r.code != ExitClean {
					t.Fatalf("%s exit %d\nstdout:\n%s\nstderr:\n%s", mode, r.code, r.stdout, r.stderr)
				}
				stdouts = append(stdouts, r.stdout)
				outputs = append(outputs, r.stderr, r.summary)
				for k, v := range r.outputs {
					outputs = append(outputs, k+"="+v)
				}
			}
			files, _ := filepath.Glob(filepath.Join(h.ws, "*"))
			for _, p := range files {
				data, err := os.ReadFile(p)
				if err == nil {
					outputs = append(outputs, string(data))
				}
			}
			if len(files) < 3 {
				t.Fatalf("workspace holds %q, want lock, snapshot and SARIF", files)
			}
			secrets := append(f.Secrets(), "oidc-request-token-value")
			issued := 0
			for _, s := range secrets {
				if strings.HasPrefix(s, "at-") {
					issued++
					announced := false
					for _, out := range stdouts {
						announced = announced || strings.Contains(out, "::add-mask::"+s+"\n")
					}
					if !announced {
						t.Errorf("access token %d was not masked with the runner", issued)
					}
				}
				if grant == "client secret" && strings.HasPrefix(s, "s3cret-") && !strings.Contains(stdouts[0], "::add-mask::"+s+"\n") {
					t.Error("the client secret was not masked with the runner")
				}
			}
			if issued < 2 {
				t.Fatalf("%d access tokens issued, want one per run", issued)
			}
			for _, out := range stdouts {
				var rest []string
				for _, line := range strings.Split(out, "\n") {
					if !strings.HasPrefix(line, "::add-mask::") {
						rest = append(rest, line)
					}
				}
				outputs = append(outputs, strings.Join(rest, "\n"))
			}
			for _, s := range secrets {
				for _, part := range strings.Split(s, "\n") {
					if len(part) < 8 {
						continue
					}
					for i, out := range outputs {
						if strings.Contains(out, part) {
							t.Fatalf("output %d holds a secret: %q", i, part)
						}
					}
				}
			}
		})
	}
}

func TestOAuthInputErrors(t *testing.T) {
	for _, c := range []struct {
		inputs map[string]string
		want   string
	}{
		{map[string]string{"server-cmd": "srv", "oauth-client-id": "a"}, "only used with server-url"},
		{map[string]string{"server-url": "https://x.example/mcp", "oauth-github-oidc": "yes"}, "want true or false"},
		{map[string]string{"server-url": "https://x.example/mcp", "oauth-audience": "a"}, "only used with oauth-github-oidc"},
		{map[string]string{"server-url": "https://x.example/mcp", "oauth-token-endpoint-auth": "magic"}, "oauth-token-endpoint-auth"},
	} {
		_, err := ParseInputs(func(k string) string { return c.inputs[k] })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.inputs, err, c.want)
		}
	}
}

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/oauth/oauthtest"
)

// runEnv executes one warden command in-process with the given environment.
func runEnv(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code = Main(ctx, Env{Args: args, Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }, Version: "test"})
	return code, out.String(), errb.String()
}

// TestOAuthNoSecretInOutput pins and checks an OAuth-protected server with
// each CI grant, text and --json, SARIF and snapshot, with and without
// GITHUB_ACTIONS, and asserts that no credential or token the fixture
// handed out appears in any stream or in any file warden wrote.
func TestOAuthNoSecretInOutput(t *testing.T) {
	grants := []struct {
		name   string
		rotate bool
		flags  func(f *oauthtest.Fixture) ([]string, map[string]string)
	}{
		{"client secret", false, func(f *oauthtest.Fixture) ([]string, map[string]string) {
			return []string{"--oauth-client-id", f.ClientID, "--oauth-client-secret", "${CLIENT_SECRET}"},
				map[string]string{"CLIENT_SECRET": f.ClientSecret}
		}},
		{"private_key_jwt", false, func(f *oauthtest.Fixture) ([]string, map[string]string) {
			return []string{"--oauth-client-id", "${CLIENT_ID}", "--oauth-private-key", "${CLIENT_KEY}"},
				map[string]string{"CLIENT_ID": f.ClientID, "CLIENT_KEY": f.KeyPEM}
		}},
		{"workload assertion", false, func(f *oauthtest.Fixture) ([]string, map[string]string) {
			return []string{"--oauth-assertion", "${WORKLOAD_JWT}"},
				map[string]string{"WORKLOAD_JWT": f.WorkloadJWT(f.Issuer)}
		}},
		{"rotating refresh token", true, func(f *oauthtest.Fixture) ([]string, map[string]string) {
			return []string{"--oauth-client-id", f.ClientID, "--oauth-refresh-token", "${REFRESH}"},
				map[string]string{"REFRESH": f.RefreshToken}
		}},
	}
	for _, g := range grants {
		t.Run(g.name, func(t *testing.T) {
			f, err := oauthtest.New(oauthtest.Options{RotateRefresh: g.rotate})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			flags, vars := g.flags(f)
			dir := t.TempDir()
			lockPath := filepath.Join(dir, "warden.lock")
			base := append([]string{"--url", f.URL, "--lock", lockPath}, flags...)
			var streams []string
			step := func(want int, actions bool, args ...string) string {
				t.Helper()
				v := map[string]string{}
				for k, x := range vars {
					v[k] = x
				}
				if actions {
					v["GITHUB_ACTIONS"] = "true"
				}
				code, out, errs := runEnv(t, v, append(args, base...)...)
				if code != want {
					t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, errs)
				}
				streams = append(streams, out, errs)
				return errs
			}
			pinErr := step(0, false, "pin", "--sarif", filepath.Join(dir, "pin.sarif"))
			if g.rotate {
				if !strings.Contains(pinErr, "rotated the refresh token") {
					t.Errorf("no rotation notice: %s", pinErr)
				}
				// The rotated-away token is dead: the next run with the
				// stored one fails, which is what the notice warns of.
				errs := step(2, false, "check", "--json", "--sarif", filepath.Join(dir, "check.sarif"))
				if !strings.Contains(errs, "invalid_grant") {
					t.Errorf("check with the rotated-away token: %s", errs)
				}
			} else {
				step(0, false, "check")
				step(0, false, "check", "--json", "--sarif", filepath.Join(dir, "check.sarif"))
				step(0, true, "check")
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			if len(files) < 3 {
				t.Fatalf("files written: %q", files)
			}
			for _, p := range files {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				streams = append(streams, string(data))
			}
			secrets := f.Secrets()
			if len(secrets) < 4 {
				t.Fatalf("fixture handed out %d secrets", len(secrets))
			}
			for _, s := range secrets {
				for _, part := range strings.Split(s, "\n") {
					if len(part) < 8 {
						continue
					}
					for i, out := range streams {
						if strings.Contains(out, part) {
							t.Fatalf("output %d holds a secret: %q", i, part)
						}
					}
				}
			}
		})
	}
}

func TestOAuthFlagErrors(t *testing.T) {
	vars := map[string]string{"SECRET": "x"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pin", "--url", "https://mcp.example.com/mcp", "--oauth-client-id", "a", "--oauth-client-secret", "hunter2-literal"}, "never the secret itself"},
		{[]string{"pin", "--url", "https://mcp.example.com/mcp", "--oauth-client-id", "a", "--oauth-client-secret", "${UNSET}"}, "UNSET is not set"},
		{[]string{"pin", "--url", "http://mcp.example.com/mcp", "--oauth-client-id", "a", "--oauth-client-secret", "${SECRET}"}, "loopback"},
		{[]string{"pin", "--url", "https://mcp.example.com/mcp", "--oauth-client-id", "a", "--oauth-client-secret", "${SECRET}", "--oauth-token-endpoint-auth", "magic"}, "not one of"},
		{[]string{"pin", "--oauth-client-secret", "${SECRET}", "--", "node", "s.js"}, "apply to a --url server"},
		{[]string{"pin", "--config", "x.json", "--oauth-client-id", "a"}, "does not apply with --config"},
	} {
		code, out, errs := runEnv(t, vars, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s%s; want %q", c.args, code, out, errs, c.want)
		}
		if strings.Contains(out+errs, "hunter2-literal") {
			t.Errorf("%v: the literal secret was echoed", c.args)
		}
	}
}

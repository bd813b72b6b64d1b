package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/oauthlogin/logintest"
)

// browserWriter is the stderr of a login under test: it plays the browser
// as soon as the authorization URL is printed, as a person would.
type browserWriter struct {
	t         *testing.T
	authorize string
	mu        sync.Mutex
	buf       bytes.Buffer
	once      sync.Once
}

func (w *browserWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if u, err := logintest.FindURL(w.buf.String(), w.authorize); err == nil {
		w.once.Do(func() {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if _, err := logintest.Browse(ctx, u); err != nil {
					w.t.Logf("browse: %v", err)
				}
			}()
		})
	}
	return len(p), nil
}

func (w *browserWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// login runs 'warden auth login --no-browser' against f, headless.
func login(t *testing.T, f *logintest.Fixture, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out bytes.Buffer
	errw := &browserWriter{t: t, authorize: f.AS.URL + "/authorize?"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	argv := append([]string{"auth", "login", "--no-browser", "--timeout", "20"}, args...)
	argv = append(argv, f.MCPURL)
	code = Main(ctx, Env{Args: argv, Stdout: &out, Stderr: errw, Getenv: func(k string) string { return vars[k] }, Version: "test"})
	return code, out.String(), errw.String()
}

// TestAuthLoginThenPin: the token login prints is the only stdout line,
// and it opens the protected server for pin and check.
func TestAuthLoginThenPin(t *testing.T) {
	f := logintest.New(logintest.Config{IssSupported: true, ScopesSupported: []string{"mcp", "offline_access"}})
	defer f.Close()
	code, out, errs := login(t, f, nil)
	if code != ExitClean {
		t.Fatalf("login exit %d:\n%s", code, errs)
	}
	rt := strings.TrimSuffix(out, "\n")
	if !strings.HasPrefix(rt, "rt-") || strings.Contains(rt, "\n") {
		t.Fatalf("stdout is not one refresh token: %q", out)
	}
	if strings.Contains(errs, rt) {
		t.Fatal("the refresh token reached stderr")
	}
	for _, want := range []string{"dynamic client registration", "rotates refresh tokens", "gh secret set"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}

	// The printed refresh token is what a CI job stores: pin and check
	// with the refresh-token grant. The fixture rotates refresh tokens, so
	// the second use gets the rotated one's refusal; pin uses it once.
	idLine := regexp.MustCompile(`oauth-client-id: (\S+)\)`).FindStringSubmatch(errs)
	if idLine == nil {
		t.Fatalf("stderr names no client ID to reuse:\n%s", errs)
	}
	rtLock := filepath.Join(t.TempDir(), "warden.lock")
	t.Setenv("WARDEN_TEST_RT", rt)
	code, pout, perrs := runWith(t, map[string]string{"WARDEN_TEST_RT": rt}, "pin", "--lock", rtLock, "--url", f.MCPURL,
		"--oauth-client-id", idLine[1], "--oauth-refresh-token", "${WARDEN_TEST_RT}")
	if code != ExitClean {
		t.Fatalf("pin with the login's refresh token: exit %d\n%s%s", code, pout, perrs)
	}
	if strings.Contains(pout+perrs, rt) {
		t.Fatal("pin printed the refresh token")
	}
	code, pout, perrs = runWith(t, map[string]string{"WARDEN_TEST_RT": rt}, "check", "--lock", rtLock, "--url", f.MCPURL,
		"--oauth-client-id", idLine[1], "--oauth-refresh-token", "${WARDEN_TEST_RT}")
	if code != ExitError || !strings.Contains(perrs, "invalid_grant") {
		t.Fatalf("check with the rotated-away refresh token: exit %d, want 2 naming invalid_grant\n%s%s", code, pout, perrs)
	}

	code, out, errs = login(t, f, nil, "--print", "access-token")
	if code != ExitClean {
		t.Fatalf("login --print access-token exit %d:\n%s", code, errs)
	}
	at := strings.TrimSpace(out)
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	// A header's ${NAME} is read from the process environment.
	t.Setenv("WARDEN_TEST_TOKEN", at)
	vars := map[string]string{"WARDEN_TEST_TOKEN": at}
	for _, cmd := range []string{"pin", "check"} {
		code, out, errs := runWith(t, vars, cmd, "--lock", lockPath, "--url", f.MCPURL, "--header", "Authorization: Bearer ${WARDEN_TEST_TOKEN}")
		if code != ExitClean {
			t.Fatalf("%s with the login's token: exit %d\n%s%s", cmd, code, out, errs)
		}
		if strings.Contains(out+errs, at) {
			t.Fatalf("%s printed the access token", cmd)
		}
	}
}

// TestAuthLoginRefusals: every refusal is one line on stderr, exit 2, and
// nothing on stdout.
func TestAuthLoginRefusals(t *testing.T) {
	tests := []struct {
		name string
		cfg  logintest.Config
		vars map[string]string
		args []string
		want string
	}{
		{"state mismatch", logintest.Config{WrongState: true}, nil, nil, "state does not match"},
		{"iss mismatch", logintest.Config{IssSupported: true, Iss: logintest.IssWrong}, nil, nil, "is not the authorization server's issuer"},
		{"resource in metadata is not the server", logintest.Config{PRMResource: "https://other.example/mcp"}, nil, nil, "discovery"},
		{"no PKCE in the metadata", logintest.Config{NoPKCE: true}, nil, nil, "code_challenge_methods_supported"},
		{"secret in argv", logintest.Config{ClientID: "ci", ClientSecret: "s"}, nil, []string{"--client-id", "ci", "--client-secret", "s"}, "environment reference"},
		{"secret unset", logintest.Config{ClientID: "ci", ClientSecret: "s"}, nil, []string{"--client-id", "ci", "--client-secret", "${CS}"}, "CS is unset"},
		{"wrong client secret", logintest.Config{ClientID: "ci", ClientSecret: "right"}, map[string]string{"CS": "wrong-secret-value"}, []string{"--client-id", "ci", "--client-secret", "${CS}"}, "invalid_client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := logintest.New(tt.cfg)
			defer f.Close()
			code, out, errs := login(t, f, tt.vars, tt.args...)
			if code != ExitError || out != "" {
				t.Fatalf("exit %d stdout %q, want 2 and nothing", code, out)
			}
			lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "error: auth login") && !strings.HasPrefix(last, "error: --client-secret") {
				t.Fatalf("last line %q is not the error:\n%s", last, errs)
			}
			if !strings.Contains(last, tt.want) {
				t.Fatalf("error %q lacks %q", last, tt.want)
			}
			if strings.Contains(errs, "wrong-secret-value") {
				t.Fatal("the client secret reached stderr")
			}
		})
	}
}

// TestAuthLoginPreRegistered: a pre-registered confidential client's secret
// comes from the environment and authenticates the token request.
func TestAuthLoginPreRegistered(t *testing.T) {
	f := logintest.New(logintest.Config{ClientID: "ci-client", ClientSecret: "pre-registered-secret", NoRegistration: true})
	defer f.Close()
	code, out, errs := login(t, f, map[string]string{"CS": "pre-registered-secret"}, "--client-id", "ci-client", "--client-secret", "${CS}")
	if code != ExitClean || !strings.HasPrefix(out, "rt-") {
		t.Fatalf("exit %d stdout %q\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "pre-registered client ci-client") || strings.Contains(errs, "pre-registered-secret") {
		t.Fatalf("stderr:\n%s", errs)
	}
}

// TestAuthLoginDPoP: against a server that binds tokens (RFC 9449), login
// refuses to print a bound token without a place for its key, writes the
// key 0600 with --dpop-key-out, and pin and check present token and key
// from ${NAME}s; neither the token nor the key reaches any output.
func TestAuthLoginDPoP(t *testing.T) {
	f := logintest.New(logintest.Config{IssSupported: true, DPoP: true})
	defer f.Close()
	code, out, errs := login(t, f, nil, "--print", "access-token")
	if code != ExitError || !strings.Contains(errs, "--dpop-key-out") || out != "" {
		t.Fatalf("bound token without --dpop-key-out: exit %d, stdout %q\n%s", code, out, errs)
	}
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "dpop.pem")
	code, out, errs = login(t, f, nil, "--print", "access-token", "--dpop-key-out", keyPath)
	if code != ExitClean {
		t.Fatalf("login exit %d:\n%s", code, errs)
	}
	at := strings.TrimSpace(out)
	key, err := os.ReadFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(keyPath); st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v", st.Mode().Perm())
	}
	if !strings.Contains(string(key), "BEGIN PRIVATE KEY") {
		t.Fatalf("key file is not a PEM key")
	}
	streams := []string{errs}
	lockPath := filepath.Join(dir, "warden.lock")
	vars := map[string]string{"AT": at, "KEY": string(key)}
	for _, cmd := range []string{"pin", "check"} {
		code, out, errs := runWith(t, vars, cmd, "--lock", lockPath, "--url", f.MCPURL, "--json",
			"--oauth-access-token", "${AT}", "--oauth-dpop-key", "${KEY}")
		if code != ExitClean {
			t.Fatalf("%s: exit %d\n%s%s", cmd, code, out, errs)
		}
		streams = append(streams, out, errs)
	}
	// The token without its key is refused: it is bound.
	code, out2, errs2 := runWith(t, vars, "check", "--lock", lockPath, "--url", f.MCPURL, "--oauth-access-token", "${AT}")
	if code != ExitError {
		t.Errorf("bound token without its key: exit %d", code)
	}
	streams = append(streams, out2, errs2)
	lock, _ := os.ReadFile(lockPath)
	streams = append(streams, string(lock))
	for i, s := range streams {
		if strings.Contains(s, at) {
			t.Errorf("output %d holds the access token", i)
		}
		for _, line := range strings.Split(string(key), "\n") {
			if len(line) >= 16 && strings.Contains(s, line) {
				t.Errorf("output %d holds the DPoP key", i)
			}
		}
	}
	// --json carries the key for a caller that stores it itself.
	code, out, errs = login(t, f, nil, "--print", "access-token", "--json")
	if code != ExitClean || !strings.Contains(out, `"dpop_key":"-----BEGIN PRIVATE KEY`) || !strings.Contains(out, `"token_type":"DPoP"`) {
		t.Fatalf("--json: exit %d %s\n%s", code, out, errs)
	}
}

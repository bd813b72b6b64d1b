//go:build unix

package mcpsuite

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/oauth/oauthtest"
	"github.com/wardenlock/warden/internal/testserver"
)

// scriptResult is one run of scripts/mcp-conformance-client.sh.
type scriptResult struct {
	code   int
	stdout string
	stderr string
}

// runScript runs the client script with args and env added to the test's
// environment, the way the suite does (a shell, the URL as the last word).
func runScript(t *testing.T, root string, env []string, args ...string) scriptResult {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "scripts", "mcp-conformance-client.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "WARDEN_PROTOCOL=", "WARDEN_TIMEOUT=", "MCP_CONFORMANCE_CONTEXT=")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := scriptResult{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running the client script: %v", err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// loggedRequests reads the requests a rawhttp fixture received.
func loggedRequests(t *testing.T, mcpURL string) []struct {
	RPC     string      `json:"rpc"`
	Headers http.Header `json:"headers"`
} {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(mcpURL, "/mcp") + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var log []struct {
		RPC     string      `json:"rpc"`
		Headers http.Header `json:"headers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&log); err != nil {
		t.Fatalf("rawhttp /log: %v", err)
	}
	return log
}

// TestClientScript: the client script the suite runs pins, then checks, the
// URL with warden, turns a context's headers into --header flags whose
// values never pass through a shell, names the context keys it cannot use,
// and exits 2 on bad usage and with warden's status when warden fails.
func TestClientScript(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	warden := buildWarden(t, root)
	raw := testserver.Build(t, "testdata/servers/rawhttp")
	bin := "WARDEN_BIN=" + warden
	// A value a shell would expand, split or run if the script let one see it.
	const hostile = "a  b $(touch pwned) `id` ${HOME} 'q' \"d\""

	for _, tc := range []struct {
		name    string
		mode    string // rawhttp mode to serve; "" for none
		args    []string
		env     []string
		code    int
		stderr  []string // substrings of the script's stderr
		headers bool     // every request carried X-Conformance-Test: hostile
		noCheck bool     // the script must stop after pin
	}{
		{name: "no URL", env: []string{bin}, code: 2, stderr: []string{"usage: mcp-conformance-client.sh URL"}},
		{name: "two arguments", args: []string{"http://127.0.0.1:1/mcp", "x"}, env: []string{bin}, code: 2, stderr: []string{"usage"}},
		{name: "not http", args: []string{"file:///etc/passwd"}, env: []string{bin}, code: 2, stderr: []string{"URL must start with http:// or https://"}},
		{name: "context not an object", mode: "json", env: []string{bin, `MCP_CONFORMANCE_CONTEXT=["x"]`}, code: 2, stderr: []string{"not a JSON object"}},
		{name: "header name not a token", mode: "json", env: []string{bin, `MCP_CONFORMANCE_CONTEXT={"headers":{"X Bad":"v"}}`}, code: 2, stderr: []string{"not a token"}},
		{name: "missing warden", mode: "json", env: []string{"WARDEN_BIN=" + filepath.Join(t.TempDir(), "none")}, code: 2, stderr: []string{"WARDEN_BIN is not an executable file"}},
		{name: "pin and check", mode: "json", env: []string{bin}, stderr: []string{"warden pin (scenario unknown)", "warden check"}},
		{
			name: "context headers and unused keys", mode: "modern",
			env: []string{bin, "MCP_CONFORMANCE_SCENARIO=demo",
				`MCP_CONFORMANCE_CONTEXT={"name":"demo","client_id":"c","toolCalls":[],"headers":{"X-Conformance-Test":` + jsonString(t, hostile) + `}}`},
			stderr:  []string{"warden pin (scenario demo)", "context keys not used (warden lists; it makes no tool calls): client_id, toolCalls"},
			headers: true,
		},
		{name: "pin fails", mode: "discover-500", env: []string{bin}, code: 2, stderr: []string{"warden pin", "HTTP 500"}, noCheck: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // where a shell's expansion would leave "pwned"
			args := tc.args
			url := ""
			if tc.mode != "" {
				url = testserver.StartHTTP(t, raw, "-mode", tc.mode)
				args = []string{url}
			}
			r := runScript(t, root, tc.env, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if tc.code == 0 && !strings.Contains(r.stdout, "OK no drift") {
				t.Errorf("the check did not report a clean run:\n%s", r.stdout)
			}
			if tc.noCheck && strings.Contains(r.stderr, "warden check") {
				t.Errorf("the script went on to check after pin failed:\n%s", r.stderr)
			}
			if _, err := os.Stat("pwned"); err == nil {
				t.Error("a shell expanded the header value")
			}
			if strings.Contains(r.stdout+r.stderr, hostile) {
				t.Errorf("the header value was printed (it is a secret to warden):\n%s\n%s", r.stdout, r.stderr)
			}
			if !tc.headers {
				return
			}
			log := loggedRequests(t, url)
			if len(log) < 2 {
				t.Fatalf("rawhttp logged %d requests, want a pin's and a check's", len(log))
			}
			for _, e := range log {
				if got := e.Headers.Values("X-Conformance-Test"); len(got) != 1 || got[0] != hostile {
					t.Errorf("%s carried X-Conformance-Test %q, want exactly %q", e.RPC, got, hostile)
				}
			}
		})
	}
}

// jsonString is s as a JSON string literal.
func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestClientScriptBuildsWarden: without WARDEN_BIN the script builds warden
// from the checkout, static (CGO_ENABLED=0) whatever the environment says,
// into its cache, and runs the cached binary while no Go file is newer.
func TestClientScriptBuildsWarden(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	url := testserver.StartHTTP(t, testserver.Build(t, "testdata/servers/rawhttp"), "-mode", "json")
	cache := t.TempDir()
	// Not XDG_CACHE_HOME: it moves Go's build cache too, and a cold one
	// costs a minute.
	env := []string{"WARDEN_BIN=", "WARDEN_CONFORMANCE_CACHE=" + cache, "CGO_ENABLED=1"}
	if r := runScript(t, root, env, url); r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	bin := filepath.Join(cache, "warden")
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatalf("the script left no warden in its cache: %v", err)
	}
	cgo := ""
	for _, s := range info.Settings {
		if s.Key == "CGO_ENABLED" {
			cgo = s.Value
		}
	}
	if cgo != "0" {
		t.Errorf("the script built warden with CGO_ENABLED=%q, want 0", cgo)
	}
	// A rebuild renames a new file into place, so the file's identity tells
	// whether the second run built. (An edit of a Go file between the two
	// runs, in a tree someone is working in, rightly makes it rebuild.)
	before, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if r := runScript(t, root, env, url); r.code != 0 {
		t.Fatalf("second run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	after, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the second run rebuilt warden although no Go file changed")
	}
	leftovers, _ := filepath.Glob(filepath.Join(cache, "warden.*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary builds left in the cache: %v", leftovers)
	}
}

// TestClientScriptOAuth: the context's client credentials reach warden as
// --oauth-* flags naming environment variables, so the secret is never in
// argv nor printed, and the pin and check authenticate with it.
func TestClientScriptOAuth(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	warden := buildWarden(t, root)
	f, err := oauthtest.New(oauthtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := `{"name":"cc","client_id":` + jsonString(t, f.ClientID) + `,"client_secret":` + jsonString(t, f.ClientSecret) + `}`
	r := runScript(t, root, []string{"WARDEN_BIN=" + warden, "MCP_CONFORMANCE_CONTEXT=" + ctx}, f.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "OK no drift") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "not used") {
		t.Errorf("the credentials were not used:\n%s", r.stderr)
	}
	reqs := f.Requests()
	if len(reqs) != 2 || reqs[0].Grant != "client_credentials" || reqs[0].Auth != "client_secret_basic" {
		t.Errorf("token requests = %+v, want one client_credentials grant per warden run", reqs)
	}
	for _, s := range f.Secrets() {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Fatal("a secret was printed")
		}
	}
}

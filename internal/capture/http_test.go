//go:build unix

package capture

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/testserver"
)

const rawHTTPPkg = "testdata/servers/rawhttp"

// rawHTTPSurface is what rawhttp declares, in every mode that completes.
func rawHTTPSurface() []string {
	return []string{
		`tool echo desc="Echo the input text back." in={"type":"object","properties":{"text":{"type":"string"}},"required":["text"]} ann=<absent> out=<absent>`,
		`resource mem://greeting name="greeting" desc=<absent> mime="text/plain"`,
		`prompt greet desc=<absent> args=[{"name":"who","description":null,"required":true}]`,
	}
}

// logEntry mirrors rawhttp's request log.
type logEntry struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	RPC         string `json:"rpc"`
	Accept      string `json:"accept"`
	ContentType string `json:"contentType"`
	Session     string `json:"session"`
	Protocol    string `json:"protocol"`
	Token       string `json:"token"`
	McpMethod   string `json:"mcpMethod"`
}

func requestLog(t *testing.T, mcpURL string) []logEntry {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(mcpURL, "/mcp") + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var log []logEntry
	if err := json.NewDecoder(resp.Body).Decode(&log); err != nil {
		t.Fatal(err)
	}
	return log
}

// TestCaptureStreamableHTTPHeaders is not parallel: it sets an environment
// variable for ${NAME} expansion.
func TestCaptureStreamableHTTPHeaders(t *testing.T) {
	t.Setenv("WARDEN_TEST_TOKEN", "s3cret")
	bin := testserver.Build(t, rawHTTPPkg)
	for _, mode := range []string{"json", "sse"} {
		t.Run(mode, func(t *testing.T) {
			url := testserver.StartHTTP(t, bin, "-mode", mode)
			s := mustCapture(t, Options{URL: url, Headers: []string{"X-Test-Token: tok-${WARDEN_TEST_TOKEN}-end"}})
			equalLines(t, render(s), rawHTTPSurface())
			if s.ProtocolVersion != "2025-11-25" {
				t.Errorf("ProtocolVersion = %q", s.ProtocolVersion)
			}

			log := requestLog(t, url)
			var rpcs []string
			for i, e := range log {
				rpcs = append(rpcs, e.Method+" "+e.RPC)
				if e.Token != "tok-s3cret-end" {
					t.Errorf("request %d carried X-Test-Token %q", i, e.Token)
				}
				if e.Method != http.MethodPost {
					continue
				}
				if e.Accept != "application/json, text/event-stream" || e.ContentType != "application/json" {
					t.Errorf("request %d: Accept %q, Content-Type %q", i, e.Accept, e.ContentType)
				}
				switch i {
				case 0:
					// The era probe: a 2025-era server answers it with an
					// error, and the handshake follows.
					if e.RPC != "server/discover" || e.Session != "" || e.Protocol != ModernProtocolVersion {
						t.Errorf("probe %s carried session %q / protocol %q", e.RPC, e.Session, e.Protocol)
					}
				case 1:
					if e.Session != "" || e.Protocol != "" {
						t.Errorf("initialize carried session %q / protocol %q", e.Session, e.Protocol)
					}
				default:
					if e.Session != "rawhttp-session-1" || e.Protocol != "2025-11-25" {
						t.Errorf("request %d (%s) carried session %q / protocol %q", i, e.RPC, e.Session, e.Protocol)
					}
				}
			}
			want := []string{"POST server/discover", "POST initialize", "POST notifications/initialized", "POST tools/list",
				"POST resources/list", "POST prompts/list", "DELETE "}
			if mode == "sse" {
				// The answers to the server's ping and roots/list requests.
				want = []string{"POST server/discover", "POST initialize", "POST notifications/initialized", "POST tools/list",
					"POST response", "POST response", "POST resources/list", "POST prompts/list", "DELETE "}
			}
			if strings.Join(rpcs, ",") != strings.Join(want, ",") {
				t.Errorf("requests = %q\nwant       %q", rpcs, want)
			}
			if last := log[len(log)-1]; last.Session != "rawhttp-session-1" {
				t.Errorf("DELETE carried session %q", last.Session)
			}
		})
	}
}

func TestCaptureHTTPModes(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t, rawHTTPPkg)
	cases := []struct {
		mode    string
		path    string
		wantErr []string
	}{
		{mode: "legacy"},
		{mode: "resumable"},
		{mode: "json", path: "/redirect"},
		{mode: "legacy-cross-origin", wantErr: []string{
			"initialize: server's endpoint event points to another origin; refused"}},
		{mode: "session-lost", wantErr: []string{"tools/list page 1: server no longer knows the session (HTTP 404)"}},
		{mode: "no-reply", wantErr: []string{"tools/list page 1: server's reply stream ended before the reply, and resuming it answered HTTP 405"}},
	}
	for _, tc := range cases {
		t.Run(tc.mode+tc.path, func(t *testing.T) {
			t.Parallel()
			url := testserver.StartHTTP(t, bin, "-mode", tc.mode)
			if tc.path != "" {
				url = strings.TrimSuffix(url, "/mcp") + tc.path
			}
			s, err := run(t, Options{URL: url})
			if tc.wantErr != nil {
				wantFailure(t, err, Failed, append([]string{"Failed to capture MCP server at '" + url + "': "}, tc.wantErr...)...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			equalLines(t, render(s), rawHTTPSurface())
			if s.Server.URL != url {
				t.Errorf("Server.URL = %q, want %q as given", s.Server.URL, url)
			}
		})
	}
}

func TestCaptureRefusesCrossOriginRedirect(t *testing.T) {
	t.Parallel()
	target := testserver.StartHTTP(t, testserver.Build(t, rawHTTPPkg), "-mode", "json")
	redirector := httptest.NewServer(http.RedirectHandler(target, http.StatusTemporaryRedirect))
	defer redirector.Close()
	_, err := run(t, Options{URL: redirector.URL + "/mcp"})
	wantFailure(t, err, Failed, "refusing to follow a redirect to another origin")
	if log := requestLog(t, target); len(log) != 0 {
		t.Errorf("the redirect target received %d requests", len(log))
	}
}

func TestCaptureHTTPTimeoutAndUnreachable(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hung.Close()
	defer close(release)
	_, err := run(t, Options{URL: hung.URL + "/mcp", Timeout: 500 * time.Millisecond})
	wantFailure(t, err, TimedOut,
		"MCP server at '"+hung.URL+"/mcp' did not complete the handshake (no reply to server/discover) within 0.5s (it may be unreachable or hung).")

	closed := httptest.NewServer(http.NotFoundHandler())
	url := closed.URL + "/mcp"
	closed.Close()
	_, err = run(t, Options{URL: url})
	wantFailure(t, err, Failed, "server/discover: HTTP POST failed: ", "connection refused")

	_, err = Capture(context.Background(), Options{URL: "https://user:pw@127.0.0.1:1/mcp", Timeout: 2 * time.Second})
	if err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("error leaks the URL password or is missing: %v", err)
	}
}

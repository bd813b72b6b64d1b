//go:build unix

package capture

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/testserver"
)

// rawCleanSurface is what rawserver declares in its clean mode, and in every
// modern mode that completes (the items are the same in both eras).
func rawCleanSurface() []string {
	return []string{
		`tool echo desc="Echo the input text back." in={"type":"object","properties":{"text":{"type":"string"}},"required":["text"]} ann=<absent> out=<absent>`,
		`tool add desc="Add two numbers." in={"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]} ann={"readOnlyHint":true} out=<absent>`,
		`resource mem://greeting name="greeting" desc="A friendly greeting." mime="text/plain"`,
		`prompt greet desc="Greet someone." args=[{"name":"name","description":"Who to greet.","required":true}]`,
	}
}

// rawLogs runs rawserver in mode with request and spawn logs and returns
// the argv plus readers of both logs.
func rawLogs(t *testing.T, mode string, extra ...string) (argv []string, requests func() []map[string]any, spawns func() int) {
	t.Helper()
	dir := t.TempDir()
	reqs, spawnLog := filepath.Join(dir, "requests"), filepath.Join(dir, "spawns")
	argv = raw(t, mode, append([]string{"-requests", reqs, "-spawnlog", spawnLog}, extra...)...)
	requests = func() []map[string]any {
		data, _ := os.ReadFile(reqs)
		var out []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil {
				out = append(out, m)
			}
		}
		return out
	}
	spawns = func() int {
		data, _ := os.ReadFile(spawnLog)
		return strings.Count(string(data), "spawn ")
	}
	return argv, requests, spawns
}

func methods(reqs []map[string]any) string {
	var ms []string
	for _, r := range reqs {
		m, _ := r["method"].(string)
		if m == "" {
			m = "response"
		}
		ms = append(ms, m)
	}
	return strings.Join(ms, ",")
}

// TestCaptureEraProbeStdio runs the probe against hand-written servers for
// every pitfall of the era negotiation: who is modern, who is legacy, on how
// many processes, with how many requests.
func TestCaptureEraProbeStdio(t *testing.T) {
	t.Parallel()
	legacyRequests := "server/discover,initialize,notifications/initialized,tools/list,resources/list,prompts/list"
	cases := []struct {
		mode     string
		extra    []string
		timeout  time.Duration
		version  string
		spawns   int
		requests string // the methods the last process received, in order
	}{
		// A modern server: discover plus the list pages, nothing else
		// (tools/list has two pages).
		{mode: "modern", version: ModernProtocolVersion, spawns: 1,
			requests: "server/discover,tools/list,tools/list,resources/list,prompts/list"},
		// A cold start of several seconds is not silence.
		{mode: "modern-slow", extra: []string{"-slow-first", "4s"}, version: ModernProtocolVersion, spawns: 1,
			requests: "server/discover,tools/list,tools/list,resources/list,prompts/list"},
		{mode: "discover-no-resulttype", version: ModernProtocolVersion, spawns: 1,
			requests: "server/discover,tools/list,tools/list,resources/list,prompts/list"},
		// Lists in legacy shape after a modern discover are read as the
		// items they are (resultType absent reads as "complete").
		{mode: "modern-resume-legacy-shape", version: ModernProtocolVersion, spawns: 1,
			requests: "server/discover,tools/list,tools/list,resources/list,prompts/list"},
		{mode: "modern-dual", version: ModernProtocolVersion, spawns: 1,
			requests: "server/discover,tools/list,tools/list,resources/list,prompts/list"},
		// 2025-era servers: the handshake follows on the same process
		// when the probe was answered...
		{mode: "clean", version: "2025-11-25", spawns: 1, requests: legacyRequests},
		{mode: "probe-32022-legacy", version: "2025-11-25", spawns: 1, requests: legacyRequests},
		{mode: "discover-draft", version: "2025-11-25", spawns: 1, requests: legacyRequests},
		// ... and on a fresh one when the server died on the probe, or
		// stayed silent past the probe timer (here 3 s of a 6 s timeout)
		// and again on a second process, probed once more so that a slow
		// first start is not taken for silence.
		{mode: "exit-on-probe", version: "2025-11-25", spawns: 2,
			requests: "initialize,notifications/initialized,tools/list,resources/list,prompts/list"},
		{mode: "silent-probe", timeout: 6 * time.Second, version: "2025-11-25", spawns: 3,
			requests: legacyRequests[len("server/discover,"):]},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			argv, requests, spawns := rawLogs(t, tc.mode, tc.extra...)
			s := mustCapture(t, Options{Argv: argv, Timeout: tc.timeout})
			if s.ProtocolVersion != tc.version {
				t.Errorf("ProtocolVersion = %q, want %q", s.ProtocolVersion, tc.version)
			}
			equalLines(t, render(s), rawCleanSurface())
			if n := spawns(); n != tc.spawns {
				t.Errorf("%d processes, want %d", n, tc.spawns)
			}
			reqs := requests()
			got := methods(reqs)
			if tc.spawns > 1 {
				// The log holds every process's requests; keep the last
				// process's, which start at its first request.
				first := strings.Split(tc.requests, ",")[0]
				all := strings.Split(got, ",")
				for i := len(all) - 1; i >= 0; i-- {
					if all[i] == first {
						got = strings.Join(all[i:], ",")
						break
					}
				}
			}
			if got != tc.requests {
				t.Errorf("requests %s\nwant     %s", got, tc.requests)
			}
			if tc.version != ModernProtocolVersion {
				return
			}
			for i, r := range reqs {
				params, _ := r["params"].(map[string]any)
				meta, _ := params["_meta"].(map[string]any)
				info, _ := meta[metaClientInfo].(map[string]any)
				if meta[metaProtocolVersion] != ModernProtocolVersion || meta[metaClientCapabilities] == nil || info["name"] != "warden" {
					t.Errorf("request %d (%s) carried _meta %v", i, r["method"], meta)
				}
			}
		})
	}
}

// TestCaptureEraFailuresStdio: once a server has claimed the modern
// revision, breaking it is a failure naming the request and the field, never
// a silent fallback; and a version list with nothing in common fails.
func TestCaptureEraFailuresStdio(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode     string
		protocol Protocol
		want     []string
	}{
		// Malformed discover is no evidence, so initialize is tried; it
		// says modern-only, so a fresh process is asked again, strictly.
		{mode: "discover-malformed", want: []string{"server/discover: capabilities is a string, not an object"}},
		{mode: "modern-bad-resulttype", want: []string{`tools/list page 1: resultType is "incomplete", not "complete"`}},
		{mode: "probe-future", want: []string{`server and warden share no protocol version: the server supports ["2099-01-01"], warden speaks 2026-07-28, 2025-11-25`}},
		{mode: "discover-draft", protocol: ProtocolModern, want: []string{`server/discover: server and warden share no protocol version: the server supports ["DRAFT-2026-v1"]`}},
		{mode: "modern", protocol: ProtocolLegacy, want: []string{"initialize: server answered JSON-RPC error -32022", "the server speaks only 2026-07-28 (use --protocol auto or modern)"}},
		{mode: "clean", protocol: ProtocolModern, want: []string{"server/discover: server answered JSON-RPC error -32601"}},
	}
	for _, tc := range cases {
		t.Run(tc.mode+"-"+string(tc.protocol), func(t *testing.T) {
			t.Parallel()
			_, err := run(t, Options{Argv: raw(t, tc.mode), Protocol: tc.protocol})
			wantFailure(t, err, Failed, tc.want...)
		})
	}
}

// TestCaptureModernToolsOnly: lists the server does not advertise are not
// called, and their sections are empty.
func TestCaptureModernToolsOnly(t *testing.T) {
	t.Parallel()
	argv, requests, _ := rawLogs(t, "modern-tools-only")
	s := mustCapture(t, Options{Argv: argv})
	if len(s.Tools) != 2 || len(s.Resources) != 0 || len(s.Prompts) != 0 {
		t.Errorf("surface: %d tools, %d resources, %d prompts", len(s.Tools), len(s.Resources), len(s.Prompts))
	}
	if got := methods(requests()); got != "server/discover,tools/list,tools/list" {
		t.Errorf("requests %s", got)
	}
}

// TestCaptureEraMigrationSameItems: the same server captured in either era
// gives the same items (rawserver's dual mode sends identical items).
func TestCaptureEraMigrationSameItems(t *testing.T) {
	t.Parallel()
	argv := raw(t, "modern-dual")
	modern := mustCapture(t, Options{Argv: argv})
	old := mustCapture(t, Options{Argv: argv, Protocol: ProtocolLegacy})
	if modern.ProtocolVersion != ModernProtocolVersion || old.ProtocolVersion != "2025-11-25" {
		t.Errorf("versions %q / %q", modern.ProtocolVersion, old.ProtocolVersion)
	}
	equalLines(t, render(modern), render(old))
}

// TestCaptureEraProbeHTTP covers the streamable HTTP probe: modern endpoints
// get independent POSTs with the routing headers and no session; a 4xx
// means legacy; silence, 5xx, 401 and a non-JSON 2xx fail instead of
// falling back.
func TestCaptureEraProbeHTTP(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t, rawHTTPPkg)
	modernSurface := rawHTTPSurface()[:1] // tools only: the others are not offered
	cases := []struct {
		mode     string
		protocol Protocol
		version  string
		surface  []string
		requests string
		wantErr  []string
	}{
		{mode: "modern", version: ModernProtocolVersion, surface: modernSurface, requests: "POST server/discover,POST tools/list"},
		{mode: "modern", protocol: ProtocolModern, version: ModernProtocolVersion, surface: modernSurface, requests: "POST server/discover,POST tools/list"},
		{mode: "modern-sse", version: ModernProtocolVersion, surface: modernSurface, requests: "POST server/discover,POST tools/list"},
		{mode: "modern-lists-404", version: ModernProtocolVersion, surface: modernSurface,
			requests: "POST server/discover,POST tools/list,POST resources/list,POST prompts/list"},
		{mode: "probe-32022-legacy", version: "2025-11-25", surface: rawHTTPSurface(),
			requests: "POST server/discover,POST initialize,POST notifications/initialized,POST tools/list,POST resources/list,POST prompts/list,DELETE "},
		{mode: "modern", protocol: ProtocolLegacy, requests: "POST initialize",
			wantErr: []string{"initialize: server answered HTTP 400 with JSON-RPC error -32022", "the server speaks only 2026-07-28"}},
		{mode: "discover-500", requests: "POST server/discover", wantErr: []string{"server/discover: server answered HTTP 500"}},
		{mode: "discover-401", requests: "POST server/discover", wantErr: []string{"server/discover: server answered HTTP 401"}},
		{mode: "discover-html", requests: "POST server/discover", wantErr: []string{`server/discover: server answered with content type "text/html"`}},
	}
	for _, tc := range cases {
		t.Run(tc.mode+"-"+string(tc.protocol), func(t *testing.T) {
			t.Parallel()
			url := testserver.StartHTTP(t, bin, "-mode", tc.mode)
			s, err := run(t, Options{URL: url, Protocol: tc.protocol})
			log := requestLog(t, url)
			var got []string
			for _, e := range log {
				got = append(got, e.Method+" "+e.RPC)
			}
			if strings.Join(got, ",") != tc.requests {
				t.Errorf("requests %s\nwant     %s", strings.Join(got, ","), tc.requests)
			}
			if tc.wantErr != nil {
				wantFailure(t, err, Failed, tc.wantErr...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.ProtocolVersion != tc.version {
				t.Errorf("ProtocolVersion = %q, want %q", s.ProtocolVersion, tc.version)
			}
			equalLines(t, render(s), tc.surface)
			if tc.version != ModernProtocolVersion {
				return
			}
			for i, e := range log {
				if e.Protocol != ModernProtocolVersion || e.McpMethod != e.RPC || e.Session != "" ||
					e.Accept != "application/json, text/event-stream" {
					t.Errorf("request %d (%s): protocol %q, Mcp-Method %q, session %q, accept %q",
						i, e.RPC, e.Protocol, e.McpMethod, e.Session, e.Accept)
				}
			}
		})
	}
}

// TestHTTPStatusErrorCarriesRPCError: a modern endpoint answers a list it
// does not offer with 404 and -32601; the list code must see the -32601.
func TestHTTPStatusErrorCarriesRPCError(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`)
	err := error(&httpStatusError{status: http.StatusNotFound, rpc: rpcErrorBody(body)})
	var rerr *rpcError
	if !errors.As(err, &rerr) || rerr.code != -32601 {
		t.Fatalf("errors.As found %v", rerr)
	}
	if (&httpStatusError{status: 404}).Unwrap() != nil {
		t.Error("a status without a body unwraps to something")
	}
	if rpcErrorBody([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)) != nil || rpcErrorBody([]byte("no")) != nil {
		t.Error("a result or garbage read as a JSON-RPC error")
	}
}

// TestClassifyProbe pins the evidence rules without a process.
func TestClassifyProbe(t *testing.T) {
	parse := func(s string) *jsonv.Value {
		v, err := jsonv.Parse([]byte(s), jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	e22 := func(supported ...string) error { return &rpcError{code: -32022, supported: supported} }
	cases := []struct {
		name    string
		res     string
		err     error
		want    verdict
		wantErr string
	}{
		{"discover", `{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete"}`, nil, modern, ""},
		{"no resultType", `{"supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{}}`, nil, modern, ""},
		{"draft only", `{"supportedVersions":["DRAFT-2026-v1"],"capabilities":{}}`, nil, legacy, ""},
		{"empty object", `{}`, nil, legacy, ""},
		{"initialize-like", `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{}}`, nil, legacy, ""},
		{"capabilities array", `{"supportedVersions":["2026-07-28"],"capabilities":[]}`, nil, legacy, ""},
		{"versions not strings", `{"supportedVersions":[2026],"capabilities":{}}`, nil, legacy, ""},
		{"resultType other", `{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"input_required"}`, nil, legacy, ""},
		{"method not found", "", &rpcError{code: -32601}, legacy, ""},
		{"code 0", "", &rpcError{code: 0}, legacy, ""},
		{"pre-GA -32004", "", &rpcError{code: -32004}, legacy, ""},
		{"-32022 without list", "", &rpcError{code: -32022}, legacy, ""},
		{"-32022 legacy list", "", e22("2025-06-18"), legacy, ""},
		{"-32022 modern listed", "", e22("2026-07-28"), 0, "although it lists it"},
		{"-32022 nothing shared", "", e22("2099-01-01", "DRAFT-2026-v1"), 0, "share no protocol version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var res *jsonv.Value
			if tc.res != "" {
				res = parse(tc.res)
			}
			v, _, err := classifyProbe(res, tc.err)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || v != tc.want {
				t.Errorf("verdict %d, %v; want %d", v, err, tc.want)
			}
		})
	}
}

func TestProbeTimeout(t *testing.T) {
	for _, tc := range []struct{ total, want time.Duration }{
		{30 * time.Second, 10 * time.Second},
		{120 * time.Second, 30 * time.Second},
		{600 * time.Second, 30 * time.Second},
		{45 * time.Second, 15 * time.Second},
		{6 * time.Second, 3 * time.Second},
	} {
		if got := probeTimeout(tc.total); got != tc.want {
			t.Errorf("probeTimeout(%v) = %v, want %v", tc.total, got, tc.want)
		}
	}
}

// FuzzClassifyProbe feeds arbitrary JSON to the probe classifier: it must
// never panic, and a modern verdict must rest on a DiscoverResult that lists
// ModernProtocolVersion and has an object capabilities.
func FuzzClassifyProbe(f *testing.F) {
	for _, seed := range []string{
		`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete","ttlMs":0}`,
		`{"supportedVersions":["DRAFT-2026-v1"],"capabilities":{}}`,
		`{"supportedVersions":"2026-07-28","capabilities":{}}`,
		`{"protocolVersion":"2025-11-25"}`,
		`[]`, `null`, `{"supportedVersions":[],"capabilities":null,"resultType":7}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jsonv.Parse(data, jsonv.Options{})
		if err != nil {
			return
		}
		verdict, d, err := classifyProbe(v, nil)
		if err != nil {
			t.Fatalf("a result gave an error: %v", err)
		}
		if verdict == modern {
			if d == nil || d.caps == nil || d.caps.Kind != jsonv.Object {
				t.Fatalf("modern verdict without a discovery: %s", data)
			}
			found := false
			for _, s := range d.versions {
				found = found || s == ModernProtocolVersion
			}
			if !found {
				t.Fatalf("modern verdict without %s: %s", ModernProtocolVersion, data)
			}
		}
	})
}

// TestCapturePreferredEra: a check passes the era its lock was pinned in.
// Preferring the 2025 era sends initialize first (no probe) and still moves
// to a modern-only server when initialize is refused naming 2026-07-28;
// preferring the modern era probes as usual.
func TestCapturePreferredEra(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode     string
		prefer   Protocol
		version  string
		spawns   int
		requests string
	}{
		{"modern-dual", ProtocolLegacy, "2025-11-25", 1, "initialize,notifications/initialized,tools/list,resources/list,prompts/list"},
		// initialize refused with -32022 started no session: the modern
		// capture follows on the same process.
		{"modern", ProtocolLegacy, ModernProtocolVersion, 1, "initialize,server/discover,tools/list,tools/list,resources/list,prompts/list"},
		{"modern-dual", ProtocolModern, ModernProtocolVersion, 1, "server/discover,tools/list,tools/list,resources/list,prompts/list"},
		{"clean", ProtocolModern, "2025-11-25", 1, "server/discover,initialize,notifications/initialized,tools/list,resources/list,prompts/list"},
	}
	for _, tc := range cases {
		t.Run(tc.mode+"-"+string(tc.prefer), func(t *testing.T) {
			t.Parallel()
			argv, requests, spawns := rawLogs(t, tc.mode)
			s := mustCapture(t, Options{Argv: argv, Prefer: tc.prefer})
			if s.ProtocolVersion != tc.version {
				t.Errorf("ProtocolVersion = %q, want %q", s.ProtocolVersion, tc.version)
			}
			equalLines(t, render(s), rawCleanSurface())
			if n := spawns(); n != tc.spawns {
				t.Errorf("%d processes, want %d", n, tc.spawns)
			}
			got := strings.Split(methods(requests()), ",")
			want := strings.Split(tc.requests, ",")
			if len(got) < len(want) || strings.Join(got[len(got)-len(want):], ",") != tc.requests {
				t.Errorf("requests %v\nwant ...%v", got, want)
			}
		})
	}
	if _, err := Capture(context.Background(), Options{Argv: []string{"x"}, Prefer: "2026-07-28"}); err == nil || !strings.Contains(err.Error(), "preferred era") {
		t.Errorf("an invalid preference: %v", err)
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/testserver"
)

// listErrorEnv makes rawserver answer resources/list with -32603, through
// its environment so that the launch (and the lock's identity) stays the
// same whether or not the backend is "down".
const listErrorEnv = "RAWSERVER_LIST_ERROR=resources=-32603"

// hostile are pieces of the error message rawserver answers with: server
// text that no report may carry.
var hostile = []string{"ECONNREFUSED", "::error::forged", "\x1b[31m", `\x1b`}

func noServerText(t *testing.T, what, text string) {
	t.Helper()
	for _, h := range hostile {
		if strings.Contains(text, h) {
			t.Errorf("%s quotes the server's error text %q:\n%s", what, h, text)
		}
	}
}

func TestPinAcceptListErrorRefusesBadValues(t *testing.T) {
	raw := testserver.Build(t, "testdata/servers/rawserver")
	surfaceFile := filepath.Join(t.TempDir(), "surface.json")
	if err := os.WriteFile(surfaceFile, []byte(`{"command": "x", "args": [], "tools": [], "resources": [], "prompts": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown list", []string{"--accept-list-error", "roots=-32603"}, "the list must be tools, resources or prompts"},
		{"not an integer", []string{"--accept-list-error", "resources=internal"}, "the code must be a JSON-RPC error code"},
		{"a float", []string{"--accept-list-error", "resources=-32603.0"}, "the code must be a JSON-RPC error code"},
		{"too big", []string{"--accept-list-error", "resources=9007199254740992"}, "the code must be a JSON-RPC error code"},
		{"no code", []string{"--accept-list-error", "resources"}, "want LIST=CODE"},
		{"empty code", []string{"--accept-list-error", "resources="}, "want LIST=CODE"},
		{"twice for one list", []string{"--accept-list-error", "resources=-32603", "--accept-list-error", "resources=-32000"}, "--accept-list-error resources is given twice"},
		{"with a surface file", []string{"--accept-list-error", "resources=-32603", "--surface", surfaceFile}, "a surface file holds no list errors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lockPath := filepath.Join(t.TempDir(), "warden.lock")
			args := append([]string{"pin", "--lock", lockPath}, tc.args...)
			if !strings.Contains(strings.Join(tc.args, " "), "--surface") {
				args = append(args, "--", raw)
			}
			code, out, errs := run(t, args...)
			if code != ExitError || out != "" || !strings.HasPrefix(errs, "error: ") || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line saying %q", code, out, errs, tc.want)
			}
			if _, err := os.Stat(lockPath); !os.IsNotExist(err) {
				t.Error("a refused pin wrote a lock")
			}
		})
	}
}

// TestAcceptedListErrorLifecycle pins a server whose resources/list fails
// with and without the opt-in, then checks it as its backend stays down,
// comes back, or fails differently, and rewrites the lock with approve.
func TestAcceptedListErrorLifecycle(t *testing.T) {
	raw := testserver.Build(t, "testdata/servers/rawserver")
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")

	// Without the opt-in the pin fails as it always did.
	code, out, errs := run(t, "pin", "--lock", lockPath, "--env", listErrorEnv, "--", raw)
	if code != ExitError || !strings.Contains(errs, "resources/list page 1: server answered JSON-RPC error -32603") {
		t.Fatalf("pin without --accept-list-error: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(lockPath); !os.IsNotExist(err) {
		t.Fatal("the failed pin wrote a lock")
	}

	// An accepted code for a list that answers is not recorded.
	other := filepath.Join(dir, "other.lock")
	if code, out, errs := run(t, "pin", "--lock", other, "--accept-list-error", "prompts=-32603", "--env", listErrorEnv, "--accept-list-error", "resources=-32603", "--", raw); code != ExitClean {
		t.Fatalf("pin: exit %d\n%s%s", code, out, errs)
	}
	l, err := lock.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Pin.AcceptedListErrors; len(got) != 1 || got[0] != (lock.AcceptedListError{List: "resources", Code: -32603}) {
		t.Fatalf("recorded %+v, want only the resources error that occurred", got)
	}

	code, out, errs = run(t, "pin", "--lock", lockPath, "--accept-list-error", "resources=-32603", "--env", listErrorEnv, "--", raw)
	if code != ExitClean {
		t.Fatalf("pin --accept-list-error: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "tools=2 resources=0 prompts=1\n") || !strings.Contains(out, "note: resources/list answered JSON-RPC error -32603, accepted as an empty section") {
		t.Errorf("pin output:\n%s", out)
	}
	noServerText(t, "pin output", out+errs)
	text, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "\"accepted_list_errors\": [\n      {\n        \"list\": \"resources\",\n        \"code\": -32603\n      }\n    ]\n  }\n}\n") {
		t.Errorf("the lock does not record the accepted error:\n%s", text)
	}
	pinned, err := lock.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(pinned.Resources) != 0 || len(pinned.Tools) != 2 || len(pinned.Prompts) != 1 {
		t.Fatalf("sections: %d tools, %d resources, %d prompts", len(pinned.Tools), len(pinned.Resources), len(pinned.Prompts))
	}

	checks := []struct {
		name    string
		env     []string
		code    int
		stdout  []string
		stderr  string
		notWant string
	}{
		{"backend still down", []string{"--env", listErrorEnv}, ExitClean,
			[]string{"OK no drift vs " + lockPath + "\n", "note: resources/list answered JSON-RPC error -32603, accepted as an empty section as at pin (pin.accepted_list_errors)\n"}, "", "resource-added"},
		{"backend back with items", nil, ExitDrift,
			[]string{"resource-added  resources/mem://greeting", "note: resources/list, accepted at pin as JSON-RPC error -32603 (pin.accepted_list_errors), did not answer with that error: its items are compared with the empty pinned section\n"}, "", "server-identity"},
		{"another error code", []string{"--env", "RAWSERVER_LIST_ERROR=resources=-32000"}, ExitError,
			nil, "resources/list page 1: server answered JSON-RPC error -32000", ""},
		{"an error on another list", []string{"--env", "RAWSERVER_LIST_ERROR=prompts=-32603"}, ExitError,
			nil, "prompts/list page 1: server answered JSON-RPC error -32603", ""},
	}
	for _, tc := range checks {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"check", "--lock", lockPath}, tc.env...), "--", raw)
			code, out, errs := run(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errs)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errs, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errs)
			}
			if tc.notWant != "" && strings.Contains(out, tc.notWant) {
				t.Errorf("stdout has %q:\n%s", tc.notWant, out)
			}
			if tc.code != ExitError {
				noServerText(t, "check output", out+errs)
			}
		})
	}

	// --json and SARIF say so too, on a clean check.
	sarifPath := filepath.Join(dir, "check.sarif")
	code, out, errs = run(t, "check", "--lock", lockPath, "--json", "--sarif", sarifPath, "--env", listErrorEnv, "--", raw)
	if code != ExitClean {
		t.Fatalf("check --json: exit %d\n%s%s", code, out, errs)
	}
	if want := `{"kind": "accepted_list_error", "list": "resources", "code": -32603, "occurred": true, "message": "resources/list answered JSON-RPC error -32603, accepted as an empty section as at pin (pin.accepted_list_errors)"}` + "\n"; !strings.HasSuffix(out, "\n"+want+`{"kind": "verdict", "verdict": "clean", "drift_count": 0, "lock": "`+lockPath+`", "findings_informational": true}`+"\n") || strings.Count(out, `"kind": "accepted_list_error"`) != 1 {
		t.Errorf("--json:\n%s\nwant\n%s", out, want)
	}
	data, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatal(err)
	}
	var sarif struct {
		Runs []struct {
			Results     []json.RawMessage `json:"results"`
			Properties  map[string]json.RawMessage
			Invocations []struct {
				Notifications []struct {
					Level   string `json:"level"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &sarif); err != nil {
		t.Fatal(err)
	}
	r := sarif.Runs[0]
	for _, res := range r.Results {
		if strings.Contains(string(res), "accepted") {
			t.Errorf("the accepted error became a result: %s", res)
		}
	}
	var prop bytes.Buffer
	if err := json.Compact(&prop, r.Properties["warden/acceptedListErrors"]); err != nil || prop.String() != `[{"code":-32603,"list":"resources","occurred":true}]` {
		t.Errorf("run property = %s (%v)", prop.String(), err)
	}
	if len(r.Invocations) != 1 || len(r.Invocations[0].Notifications) != 1 || r.Invocations[0].Notifications[0].Level != "note" ||
		!strings.HasPrefix(r.Invocations[0].Notifications[0].Message.Text, "resources/list answered JSON-RPC error -32603") {
		t.Errorf("notifications: %+v", r.Invocations)
	}
	noServerText(t, "SARIF", string(data))

	// approve rewrites the pin and keeps the record; diff names it.
	if code, out, errs := run(t, "approve", "--lock", lockPath, "--approver", "alice"); code != ExitClean {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	approved, err := lock.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if !approved.Pin.Approved || len(approved.Pin.AcceptedListErrors) != 1 {
		t.Fatalf("after approve: approved %v, accepted %+v", approved.Pin.Approved, approved.Pin.AcceptedListErrors)
	}
	code, out, errs = run(t, "diff", lockPath, other)
	if code != ExitClean || !strings.Contains(out, "note: warden.lock records resources/list as accepted with JSON-RPC error -32603 at pin") ||
		!strings.Contains(out, "note: other.lock records resources/list") {
		t.Errorf("diff: exit %d\n%s%s", code, out, errs)
	}

	// A lock that accepted nothing accepts nothing: today's failure.
	plain := filepath.Join(dir, "plain.lock")
	if code, _, errs := run(t, "pin", "--lock", plain, "--", raw); code != ExitClean {
		t.Fatal(errs)
	}
	code, out, errs = run(t, "check", "--lock", plain, "--env", listErrorEnv, "--", raw)
	if code != ExitError || !strings.Contains(errs, "JSON-RPC error -32603") || strings.Contains(out+errs, "accepted") {
		t.Errorf("check of a lock without the record: exit %d\n%s%s", code, out, errs)
	}
}

// TestConfigAcceptListError pins a config of two servers with the opt-in:
// only the server whose resources/list fails records it, and the config
// check reports it for that server alone.
func TestConfigAcceptListError(t *testing.T) {
	raw := testserver.Build(t, "testdata/servers/rawserver")
	dir := t.TempDir()
	config := filepath.Join(dir, ".mcp.json")
	text := `{"mcpServers": {
  "down": {"command": "` + raw + `", "env": {"RAWSERVER_LIST_ERROR": "resources=-32603"}},
  "up": {"command": "` + raw + `"}
}}`
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "pin", "--config", config, "--accept-list-error", "resources=-32603")
	if code != ExitClean {
		t.Fatalf("pin --config: exit %d\n%s%s", code, out, errs)
	}
	down, err := lock.ReadFile(filepath.Join(dir, "down.warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	up, err := lock.ReadFile(filepath.Join(dir, "up.warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if len(down.Pin.AcceptedListErrors) != 1 || len(down.Resources) != 0 {
		t.Errorf("down: accepted %+v, %d resources", down.Pin.AcceptedListErrors, len(down.Resources))
	}
	if len(up.Pin.AcceptedListErrors) != 0 || len(up.Resources) != 1 {
		t.Errorf("up: accepted %+v, %d resources", up.Pin.AcceptedListErrors, len(up.Resources))
	}
	if !strings.Contains(out, "[down]   note: resources/list answered JSON-RPC error -32603") || strings.Contains(out, "[up]   note:") {
		t.Errorf("pin --config output:\n%s", out)
	}

	code, out, errs = run(t, "check", "--config", config, "--json")
	if code != ExitClean {
		t.Fatalf("check --config: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, `{"server": "down", "kind": "accepted_list_error", "list": "resources", "code": -32603, "occurred": true,`) ||
		strings.Contains(out, `{"server": "up", "kind": "accepted_list_error"`) {
		t.Errorf("check --config --json:\n%s", out)
	}
	noServerText(t, "check --config", out+errs)
	code, out, errs = run(t, "check", "--config", config)
	if code != ExitClean || !strings.Contains(out, "[down] note: resources/list answered JSON-RPC error -32603, accepted as an empty section as at pin") || strings.Contains(out, "[up] note:") {
		t.Errorf("check --config: exit %d\n%s%s", code, out, errs)
	}
}

package action

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/testserver"
)

func TestAcceptListErrorInput(t *testing.T) {
	tests := []struct {
		name    string
		inputs  map[string]string
		want    map[string]int64
		wantErr string
	}{
		{"none", map[string]string{"server-cmd": "srv", "mode": "pin"}, nil, ""},
		{"lines and commas", map[string]string{"server-cmd": "srv", "mode": "pin", "accept-list-error": "resources=-32603,\n prompts = -32000\n"},
			map[string]int64{"resources": -32603, "prompts": -32000}, ""},
		{"check mode", map[string]string{"server-cmd": "srv", "accept-list-error": "resources=-32603"}, nil,
			"input accept-list-error: only used with mode: pin"},
		{"surface", map[string]string{"surface": "s.json", "mode": "pin", "accept-list-error": "resources=-32603"}, nil,
			"input accept-list-error: not used with surface"},
		{"unknown list", map[string]string{"server-cmd": "srv", "mode": "pin", "accept-list-error": "roots=-32603"}, nil,
			`input accept-list-error: "roots=-32603": the list must be tools, resources or prompts`},
		{"not an integer", map[string]string{"server-cmd": "srv", "mode": "pin", "accept-list-error": "resources=oops"}, nil,
			"the code must be a JSON-RPC error code"},
		{"twice", map[string]string{"server-cmd": "srv", "mode": "pin", "accept-list-error": "tools=-32603\ntools=-32000"}, nil,
			"input accept-list-error: tools is given twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := ParseInputs(func(name string) string { return tc.inputs[name] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(in.AcceptListErrors, tc.want) {
				t.Errorf("AcceptListErrors = %v, want %v", in.AcceptListErrors, tc.want)
			}
		})
	}
}

// TestRunAcceptedListError pins, through the Action, a server whose
// resources/list fails with -32603, then checks it: the job summary, the
// log and the SARIF file say that the list was accepted as an error, and
// none of them quotes the server's error text.
func TestRunAcceptedListError(t *testing.T) {
	raw := testserver.Build(t, "testdata/servers/rawserver")
	h := newHarness(t)
	writeLauncher(t, h.ws, raw)
	const backendDown = "RAWSERVER_LIST_ERROR=resources=-32603"

	// Without the input the pin fails, as it always did.
	h.input("mode", "pin")
	h.input("server-cmd", "./server")
	h.input("env", backendDown)
	if r := h.run(); r.code != ExitError {
		t.Fatalf("pin without accept-list-error: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	h.reset()
	h.input("mode", "pin")
	h.input("server-cmd", "./server")
	h.input("env", backendDown)
	h.input("accept-list-error", "resources=-32603")
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("pin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	l, err := lock.ReadFile(filepath.Join(h.ws, "warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Pin.AcceptedListErrors; len(got) != 1 || got[0] != (lock.AcceptedListError{List: "resources", Code: -32603}) || len(l.Resources) != 0 {
		t.Fatalf("lock: accepted %+v, %d resources", got, len(l.Resources))
	}
	for what, text := range map[string]string{"summary": r.summary, "log": r.stdout} {
		if !strings.Contains(text, "resources/list") || !strings.Contains(text, "-32603") {
			t.Errorf("the pin's %s does not say resources/list was accepted as -32603:\n%s", what, text)
		}
	}
	if !strings.Contains(r.summary, "### Lists accepted as errors\n") || !strings.Contains(r.summary, "| `resources/list` | -32603 |\n") {
		t.Errorf("pin summary:\n%s", r.summary)
	}

	h.reset()
	h.input("server-cmd", "./server")
	h.input("env", backendDown)
	r = h.run()
	if r.code != ExitClean {
		t.Fatalf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r.outputs["verdict"] != "clean" {
		t.Errorf("verdict = %q", r.outputs["verdict"])
	}
	if !strings.Contains(r.summary, "## ✅ warden: no drift") ||
		!strings.Contains(r.summary, "| `resources/list` | -32603 | the same error again: accepted as an empty section |\n") {
		t.Errorf("check summary:\n%s", r.summary)
	}
	if !strings.Contains(r.stdout, "note: resources/list answered JSON-RPC error -32603, accepted as an empty section as at pin (pin.accepted_list_errors)") {
		t.Errorf("check log:\n%s", r.stdout)
	}
	sarif, err := os.ReadFile(filepath.Join(h.ws, "warden.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if ids := sarifResults(t, h, filepath.Join(h.ws, "warden.sarif")); countDrift(ids) != 0 {
		t.Errorf("SARIF results: %v", ids)
	}
	if !strings.Contains(string(sarif), `"warden/acceptedListErrors"`) || !strings.Contains(string(sarif), `"level": "note"`) {
		t.Errorf("SARIF does not carry the accepted error:\n%s", sarif)
	}
	for what, text := range map[string]string{"summary": r.summary, "log": r.stdout + r.stderr, "SARIF": string(sarif), "outputs": strings.Join(mapValues(r.outputs), "\n")} {
		for _, h := range []string{"ECONNREFUSED", "forged", "\x1b"} {
			if strings.Contains(text, h) {
				t.Errorf("the check's %s quotes the server's error text %q", what, h)
			}
		}
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestReviewShowsAcceptedChange: a pull request that re-pins a server whose
// resources/list now fails, with the opt-in, shows in the job summary that
// it changes the lists the lock accepts as errors, beside the removed
// resource; the check of its head is clean and says the list was accepted.
func TestReviewShowsAcceptedChange(t *testing.T) {
	needGit(t)
	raw := testserver.Build(t, "testdata/servers/rawserver")
	h := newHarness(t)
	writeLauncher(t, h.ws, raw)
	gitCmd(t, h.ws, "init", "-q")
	h.input("mode", "pin")
	h.input("server-cmd", "./server")
	if r := h.run(); r.code != ExitClean {
		t.Fatalf("base pin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	gitCmd(t, h.ws, "add", "warden.lock")
	gitCmd(t, h.ws, "commit", "-q", "-m", "base")
	baseSHA := gitCmd(t, h.ws, "rev-parse", "HEAD")

	h.reset()
	h.input("mode", "pin")
	h.input("server-cmd", "./server")
	h.input("env", "RAWSERVER_LIST_ERROR=resources=-32603")
	h.input("accept-list-error", "resources=-32603")
	if r := h.run(); r.code != ExitClean {
		t.Fatalf("re-pin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	gitCmd(t, h.ws, "commit", "-q", "-m", "re-pin", "warden.lock")

	h.reset()
	api := newFakeGitHub(t)
	h.vars["PATH"] = os.Getenv("PATH")
	h.vars["GITHUB_API_URL"] = api.srv.URL
	h.vars["GITHUB_EVENT_NAME"] = "pull_request"
	h.vars["GITHUB_EVENT_PATH"] = writeEvent(t, baseSHA, testHeadSHA, "o/r")
	h.input("server-cmd", "./server")
	h.input("env", "RAWSERVER_LIST_ERROR=resources=-32603")
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"### What this pull request approves in <code>warden.lock</code>",
		"resource-removed",
		"⚠️ This pull request changes the lists the lock accepts as errors (`pin.accepted_list_errors`, outside the overall digest, so no approval covers it): base branch none, this pull request `resources/list` -32603.",
		"| `resources/list` | -32603 | the same error again: accepted as an empty section |",
	} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.summary)
		}
	}
}

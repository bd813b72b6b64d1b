package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

// TestPathsStayInWorkspaceAndReadRelative: a lock or SARIF path that leads
// out of the workspace is refused before anything runs (a pin to
// ../pinned.lock used to exit 0 and lose the lock), and every message
// names paths relative to the workspace, each once, never the container's
// absolute workspace path.
func TestPathsStayInWorkspaceAndReadRelative(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	tests := []struct {
		name   string
		inputs map[string]string
		remove bool // remove the pinned warden.lock first
		want   string
		path   string // the path the message must name exactly once
	}{
		{"pin to ../pinned.lock", map[string]string{"mode": "pin", "lock": "../pinned.lock"}, false,
			`input lock: "../pinned.lock" is outside the workspace`, "../pinned.lock"},
		{"check with a lock outside", map[string]string{"lock": "../other/warden.lock"}, false,
			`input lock: "../other/warden.lock" is outside the workspace`, "../other/warden.lock"},
		{"sarif outside", map[string]string{"sarif": "../warden.sarif"}, false,
			`input sarif: "../warden.sarif" is outside the workspace`, "../warden.sarif"},
		{"working directory outside", map[string]string{"working-directory": ".."}, false,
			`input working-directory: ".." is outside the workspace`, `".."`},
		{"missing lock", map[string]string{"lock": "servers/warden.lock"}, false,
			"no lock at servers/warden.lock: create it with 'warden pin' (in the Action, mode: pin)", "servers/warden.lock"},
		{"lock is a directory", map[string]string{"lock": "locks"}, false,
			"read lock locks: not a regular file", "locks"},
		{"pin onto a directory", map[string]string{"mode": "pin", "lock": "locks"}, false,
			"lock locks is a directory", "locks "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			pinDemo(t, h, demo, ".")
			h.reset()
			if err := os.Mkdir(filepath.Join(h.ws, "locks"), 0o755); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(h.ws, "spawned")
			writeLauncher(t, h.ws, "/bin/sh", "-c", "touch "+marker+"; exec sleep 5")
			h.input("server-cmd", "./server")
			for k, v := range tt.inputs {
				h.input(k, v)
			}
			r := h.run()
			if r.code != ExitError || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line containing %q", r.code, r.stderr, tt.want)
			}
			all := r.stdout + r.stderr + r.summary
			if strings.Contains(all, h.ws) {
				t.Errorf("a message names the absolute workspace %s:\n%s", h.ws, all)
			}
			if n := strings.Count(r.stderr, tt.path); n != 1 {
				t.Errorf("the error names %q %d times: %q", tt.path, n, r.stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the server was launched")
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(h.ws), "pinned.lock")); err == nil {
				t.Error("a lock was written outside the workspace")
			}
			if r.outputs["verdict"] != "error" || r.outputs["sarif"] != "" {
				t.Errorf("outputs %q", r.outputs)
			}
		})
	}
}

// TestLaunchChangeInActionReports: a check whose server-cmd differs from
// the pinned launch shows both launches beside the server-identity item in
// the log and the summary, and in the SARIF result's properties.
func TestLaunchChangeInActionReports(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")
	h.reset()
	h.input("server-cmd", "./server extra-arg")
	r := h.run()
	if r.code != ExitDrift {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"launch (server-identity): pinned vs current", "* argv[1]  (none)    extra-arg"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("log lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{"#### Launch (server-identity)", "| ✱ | argv&#91;1&#93; | &#40;none&#41; | extra-arg |", "|  | argv&#91;0&#93; | ./server | ./server |"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.summary)
		}
	}
	data, err := os.ReadFile(filepath.Join(h.ws, "warden.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"launchText": "pinned: ./server → current: ./server extra-arg"`) {
		t.Errorf("SARIF lacks the launch:\n%s", data)
	}
	// The item itself is the reference's.
	if !strings.Contains(r.stdout, "Server launch command/args changed since pin (you are pinning a different launch)") {
		t.Errorf("the server-identity message changed:\n%s", r.stdout)
	}
}

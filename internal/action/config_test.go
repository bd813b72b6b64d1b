package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/report/reporttest"
	"github.com/wardenlock/warden/internal/testserver"
)

// TestRunConfig runs the Action over a client config in both modes: one
// lock per server beside the config, one SARIF run per server with results
// on that server's lock, annotations on the drifting server's lock only, a
// summary row per server, and the worst exit code.
func TestRunConfig(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	raw := testserver.Build(t, "testdata/servers/rawserver")
	h := newHarness(t)
	writeConfig := func(demoArgs string) {
		cfg := `{"mcpServers": {
		  "demo": {"command": ` + jsonString(demo) + `, "args": [` + demoArgs + `]},
		  "raw": {"command": ` + jsonString(raw) + `, "args": ["-mode", "clean"]},
		  "retired": {"command": "gone", "disabled": true}
		}}`
		if err := os.MkdirAll(filepath.Join(h.ws, "mcp"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(h.ws, "mcp", ".mcp.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig("")

	h.input("config", "mcp/.mcp.json")
	h.input("mode", "pin")
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("pin exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, name := range []string{"demo", "raw"} {
		if _, err := os.Stat(filepath.Join(h.ws, "mcp", name+".warden.lock")); err != nil {
			t.Errorf("lock of %s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(h.ws, "mcp", "retired.warden.lock")); err == nil {
		t.Error("a disabled server was pinned")
	}
	assertOutputs(t, r, map[string]string{"exit-code": "0", "verdict": "clean", "drift-count": "0", "overall-digest": "", "sarif": "warden.sarif"})

	h.reset()
	h.input("config", "mcp/.mcp.json")
	r = h.run()
	if r.code != ExitClean || !strings.Contains(r.stdout, "[demo] OK no drift vs mcp/demo.warden.lock") || !strings.Contains(r.stdout, "[retired] skipped") {
		t.Fatalf("check exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	writeConfig(`"-mutate"`)
	h.reset()
	h.input("config", "mcp/.mcp.json")
	r = h.run()
	if r.code != ExitDrift {
		t.Fatalf("check after the rug-pull: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r.outputs["verdict"] != "drift" || r.outputs["drift-count"] == "0" {
		t.Errorf("outputs = %v", r.outputs)
	}
	if !strings.Contains(r.stdout, "file=mcp/demo.warden.lock") || strings.Contains(r.stdout, "file=mcp/raw.warden.lock") {
		t.Errorf("annotations are not on the drifting server's lock alone:\n%s", r.stdout)
	}
	for _, want := range []string{"| demo | <code>mcp/demo.warden.lock</code> | drift |", "| raw | <code>mcp/raw.warden.lock</code> | clean |", "| retired |", "### demo"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.summary)
		}
	}
	data, err := os.ReadFile(filepath.Join(h.ws, "warden.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	reporttest.AssertValid(t, h.sarif, data)
	var doc struct {
		Runs []struct {
			AutomationDetails struct{ ID string } `json:"automationDetails"`
			Results           []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Runs) != 2 {
		t.Fatalf("SARIF: %v, %d runs", err, len(doc.Runs))
	}
	for i, name := range []string{"demo", "raw"} {
		run := doc.Runs[i]
		if run.AutomationDetails.ID != "warden/"+name+"/" {
			t.Errorf("run %d automation id %q", i, run.AutomationDetails.ID)
		}
		for _, res := range run.Results {
			if uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "mcp/"+name+".warden.lock" {
				t.Errorf("run %s has a result on %s", name, uri)
			}
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// writeFile writes data to the workspace-relative path rel, creating its
// directory, with mode perm.
func writeFile(t *testing.T, h *harness, rel, data string, perm os.FileMode) {
	t.Helper()
	path := filepath.Join(h.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
}

// writeDirLauncher writes an executable script at the workspace-relative
// rel that runs bin only when started in the workspace-relative directory
// want, and otherwise fails saying where it was started.
func writeDirLauncher(t *testing.T, h *harness, rel, want, bin string) {
	t.Helper()
	wantAbs := filepath.Join(h.ws, filepath.FromSlash(want))
	script := "#!/bin/sh\n[ \"$(pwd -P)\" = " + shellQuote(wantAbs) + " ] || { echo \"started in $(pwd -P)\" >&2; exit 3; }\nexec " + shellQuote(bin) + "\n"
	writeFile(t, h, rel, script, 0o755)
}

// TestRunConfigWorkingDirectory is issue 20's item 11a: with config, the
// servers start where working-directory says, as server-cmd's does, so a
// relative command and a relative cwd work. A server without a cwd starts
// in working-directory; a relative cwd is taken from the config's
// workspace folder (the folder holding .vscode, or the config's own), as
// the clients and ${workspaceFolder} take it.
func TestRunConfigWorkingDirectory(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	tests := []struct {
		name, workDir, config, body string
		// launchers maps a launcher's path to the directory it must be
		// started in (all workspace-relative).
		launchers map[string]string
		wantLock  string
	}{
		{
			name: "relative command, no cwd", workDir: "sub", config: ".mcp.json",
			body:      `{"mcpServers": {"demo": {"command": "./bin/server"}}}`,
			launchers: map[string]string{"sub/bin/server": "sub"}, wantLock: "sub/demo.warden.lock",
		},
		{
			name: "absolute command, no cwd", workDir: "sub", config: ".mcp.json",
			body:      `{"mcpServers": {"demo": {"command": "${workspaceFolder}/bin/server"}}}`,
			launchers: map[string]string{"sub/bin/server": "sub"}, wantLock: "sub/demo.warden.lock",
		},
		{
			name: "relative cwd and command", workDir: "sub", config: ".mcp.json",
			body:      `{"mcpServers": {"demo": {"command": "./server", "cwd": "srv"}}}`,
			launchers: map[string]string{"sub/srv/server": "sub/srv"}, wantLock: "sub/demo.warden.lock",
		},
		{
			name: "VS Code config", workDir: "sub", config: ".vscode/mcp.json",
			body:      `{"servers": {"demo": {"type": "stdio", "command": "./server", "cwd": "srv"}, "plain": {"command": "./bin/server"}}}`,
			launchers: map[string]string{"sub/srv/server": "sub/srv", "sub/bin/server": "sub"}, wantLock: "sub/.vscode/demo.warden.lock",
		},
		{
			name: "config in a subfolder", workDir: ".", config: "mcp/.mcp.json",
			body:      `{"mcpServers": {"demo": {"command": "./bin/server"}, "near": {"command": "./server", "cwd": "srv"}}}`,
			launchers: map[string]string{"bin/server": ".", "mcp/srv/server": "mcp/srv"}, wantLock: "mcp/demo.warden.lock",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			dir := tt.workDir
			writeFile(t, h, dir+"/"+tt.config, tt.body, 0o644)
			for path, want := range tt.launchers {
				writeDirLauncher(t, h, path, want, demo)
			}
			for _, mode := range []string{"pin", "check"} {
				h.reset()
				h.input("config", tt.config)
				h.input("working-directory", tt.workDir)
				h.input("mode", mode)
				r := h.run()
				if r.code != ExitClean {
					t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", mode, r.code, r.stdout, r.stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(h.ws, filepath.FromSlash(tt.wantLock))); err != nil {
				t.Errorf("lock: %v", err)
			}
		})
	}
}

// TestRunConfigFailClosed is issue 20's item 11b: when a server of the
// config fails, the run is an error like a single server's: no SARIF (an
// upload without the failed server's run would close its open alerts),
// an empty sarif output, an ::error annotation per failed server, and a
// drift-count that never says "0" for servers that were not checked. The
// servers that did complete are still reported.
func TestRunConfigFailClosed(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	missing := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `, "gone%02d": {"command": "./missing-%02d"}`, i, i)
		}
		return b.String()
	}
	writeConfig := func(extra string) {
		writeFile(t, h, ".mcp.json", `{"mcpServers": {"demo": {"command": "./server"}`+extra+`}}`, 0o644)
	}
	// The demo server's lock, so that it can be checked, clean or drifted.
	writeLauncher(t, h.ws, demo)
	writeConfig("")
	h.input("config", ".mcp.json")
	h.input("mode", "pin")
	if r := h.run(); r.code != ExitClean {
		t.Fatalf("pin exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	tests := []struct {
		name    string
		mode    string
		extra   string
		mutate  bool
		failed  int
		wantErr []string
		// wantDrift is the drift-count output: "" or "some".
		wantDrift string
	}{
		{name: "every server fails", mode: "check", extra: `, "other": {"command": "./missing-other"}`, failed: 2,
			wantErr: []string{"server demo: ", "server other: no lock at other.warden.lock"}},
		{name: "one fails, the other is clean", mode: "check", extra: missing(1), failed: 1,
			wantErr: []string{"server gone00: no lock at gone00.warden.lock"}},
		{name: "one fails, the other drifts", mode: "check", extra: missing(1), mutate: true, failed: 1,
			wantErr: []string{"server gone00: "}, wantDrift: "some"},
		{name: "a config error", mode: "check", extra: `, "bad": {"url": "http://127.0.0.1:1/mcp", "args": ["x"]}`, failed: 1,
			wantErr: []string{`server bad: "env" and "args" apply to stdio servers`}},
		{name: "pin, one fails", mode: "pin", extra: missing(1), failed: 1,
			wantErr: []string{"server gone00: capture failed: MCP server command not found: './missing-00'"}},
		{name: "more failures than annotations", mode: "check", extra: missing(12), failed: 12,
			wantErr: []string{"server gone09: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.reset()
			writeConfig(tt.extra)
			switch {
			case tt.name == "every server fails":
				writeLauncher(t, h.ws, filepath.Join(h.ws, "no-such-demo"))
			case tt.mutate:
				writeLauncher(t, h.ws, demo, "-mutate")
			default:
				writeLauncher(t, h.ws, demo)
			}
			t.Cleanup(func() { writeLauncher(t, h.ws, demo) })
			h.input("config", ".mcp.json")
			h.input("mode", tt.mode)
			r := h.run()
			if r.code != ExitError {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(h.ws, "warden.sarif")); err == nil {
				t.Error("a run with a failed server wrote a SARIF file")
			}
			want := map[string]string{"exit-code": "2", "verdict": "error", "drift-count": "", "overall-digest": "", "sarif": ""}
			if tt.wantDrift != "" {
				if n, err := strconv.Atoi(r.outputs["drift-count"]); err != nil || n == 0 {
					t.Errorf("drift-count = %q, want the drifting server's count", r.outputs["drift-count"])
				}
				want["drift-count"] = r.outputs["drift-count"]
			}
			assertOutputs(t, r, want)
			var errs []string
			for _, line := range strings.Split(r.stdout, "\n") {
				if msg, ok := strings.CutPrefix(line, "::error title=warden::server "); ok {
					errs = append(errs, "server "+msg)
				}
			}
			wantErrs := min(tt.failed, report.AnnotationLimit)
			if len(errs) != wantErrs {
				t.Errorf("%d ::error annotations for failed servers, want %d:\n%s", len(errs), wantErrs, r.stdout)
			}
			for _, w := range tt.wantErr {
				if !slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, w) }) {
					t.Errorf("no ::error annotation starting %q in %q", w, errs)
				}
			}
			for _, e := range errs {
				if strings.Contains(e, "server bad: server bad:") {
					t.Errorf("the server is named twice: %q", e)
				}
			}
			if more := tt.failed - report.AnnotationLimit; more > 0 &&
				!strings.Contains(r.stdout, fmt.Sprintf("::notice title=warden::%d more server(s) failed", more)) {
				t.Errorf("no notice of the %d failures left out:\n%s", more, r.stdout)
			}
			if tt.mutate && !strings.Contains(r.stdout, "file=demo.warden.lock") {
				t.Errorf("the drifting server's annotations are missing:\n%s", r.stdout)
			}
			if !strings.Contains(r.summary, "No SARIF file was written") || strings.Contains(r.summary, "SARIF (a run per server)") {
				t.Errorf("the summary does not say that no SARIF was written:\n%s", r.summary)
			}
			assertLogInert(t, r)
		})
	}
}

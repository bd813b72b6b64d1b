package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// demoSurfaceFile captures the demo server (env as given) and writes its
// surface, in the corpus's shape, to a file.
func demoSurfaceFile(t *testing.T, srv string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := ops.Capture(ctx, ops.Target{Argv: []string{srv}, Env: env, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "surface.json")
	if err := os.WriteFile(path, pyfmt.DumpsIndent(s.Vector(), 2), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runStdin is run with standard input.
func runStdin(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Version: "test"})
	return code, out.String(), errb.String()
}

// TestSurfaceFileLikeTheServer: pinning the surface file a server's
// capture gives makes the lock a live pin makes (same entries, same server
// block, same overall digest), and checking it against either is clean;
// nothing is launched.
func TestSurfaceFileLikeTheServer(t *testing.T) {
	srv := demoServer(t)
	file := demoSurfaceFile(t, srv)
	dir := t.TempDir()
	live, offline := filepath.Join(dir, "live.lock"), filepath.Join(dir, "offline.lock")
	if code, _, errs := run(t, "pin", "--lock", live, "--", srv); code != ExitClean {
		t.Fatal(errs)
	}
	if code, out, errs := run(t, "pin", "--surface", file, "--lock", offline); code != ExitClean || !strings.HasPrefix(out, "pinned -> "+offline) {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	a, err := lock.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lock.ReadFile(offline)
	if err != nil {
		t.Fatal(err)
	}
	if a.OverallDigest != b.OverallDigest || a.Server.CommandDigest != b.Server.CommandDigest || len(a.Findings) != len(b.Findings) {
		t.Fatalf("offline pin differs: %s vs %s", a.OverallDigest, b.OverallDigest)
	}
	// Entries and findings are byte for byte the same; only pin differs.
	a.Pin, b.Pin = lock.Pin{}, lock.Pin{}
	if !bytes.Equal(lock.Marshal(a), lock.Marshal(b)) {
		t.Fatal("offline lock's entries differ from the live one's")
	}
	for _, l := range []string{live, offline} {
		if code, out, errs := run(t, "check", "--surface", file, "--lock", l); code != ExitClean || out != "OK no drift vs "+l+"\n" {
			t.Fatalf("check %s: exit %d: %s%s", l, code, out, errs)
		}
	}
	// Standard input works the same.
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runStdin(t, string(text), "check", "--surface", "-", "--lock", live); code != ExitClean {
		t.Fatalf("check from stdin: exit %d: %s%s", code, out, errs)
	}
}

// TestSurfaceFileDrift: a changed surface file is drift (exit 1), and a
// surface naming another launch is server-identity drift.
func TestSurfaceFileDrift(t *testing.T) {
	srv := demoServer(t)
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	if code, _, errs := run(t, "pin", "--surface", demoSurfaceFile(t, srv), "--lock", lockPath); code != ExitClean {
		t.Fatal(errs)
	}
	code, out, errs := run(t, "check", "--surface", demoSurfaceFile(t, srv, "DEMO_MUTATE=1"), "--lock", lockPath, "--json")
	if code != ExitDrift || !strings.Contains(out, `"drift_class": "tool-added"`) || strings.Contains(out, "server-identity") {
		t.Fatalf("mutated surface: exit %d:\n%s%s", code, out, errs)
	}
	other := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(other, []byte(`{"command": "node", "args": ["evil.js"], "tools": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(t, "check", "--surface", other, "--lock", lockPath, "--json")
	if code != ExitDrift || !strings.Contains(out, `"drift_class": "server-identity"`) {
		t.Fatalf("other launch: exit %d:\n%s%s", code, out, errs)
	}
}

// TestSurfaceFileRefusals: bad surface files and bad flag combinations
// are refused with one line and exit 2, writing nothing.
func TestSurfaceFileRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"command": "node", "args": ["s.js"], "tools": [{"name": "a"}]}`)
	sparse := filepath.Join(dir, "huge.json")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(300 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	lockPath := filepath.Join(dir, "warden.lock")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"not JSON", []string{"pin", "--surface", write("a.json", `{"tools": [`)}, "not a valid surface document"},
		{"not an object", []string{"pin", "--surface", write("b.json", `[]`)}, "surface: not an object"},
		{"tool without name", []string{"pin", "--surface", write("c.json", `{"command": "x", "tools": [{}]}`)}, "surface: tools[0]: tool name is missing"},
		{"repeated tool", []string{"pin", "--surface", write("d.json", `{"command": "x", "tools": [{"name": "a"}, {"name": "a"}]}`)}, `tools[1]: tool "a" appears more than once`},
		{"no server", []string{"pin", "--surface", write("e.json", `{"tools": []}`)}, "names no server"},
		{"deep schema", []string{"pin", "--surface", write("f.json", `{"command": "x", "tools": [{"name": "a", "inputSchema": `+strings.Repeat(`{"a":`, 600)+`1`+strings.Repeat(`}`, 600)+`}]}`)}, "nests deeper than 512"},
		{"credential in url", []string{"pin", "--surface", write("g.json", `{"url": "https://u:p@example.com/mcp"}`)}, "user credentials"},
		{"directory", []string{"pin", "--surface", dir}, "not a regular file (a directory)"},
		{"too large", []string{"pin", "--surface", sparse}, "larger than 256 MiB"},
		{"missing", []string{"pin", "--surface", filepath.Join(dir, "absent.json")}, "no such file"},
		{"with a command", []string{"pin", "--surface", good, "--", "node", "s.js"}, "a server command does not apply with --surface"},
		{"with --url", []string{"pin", "--surface", good, "--url", "https://example.com/mcp"}, "--url does not apply with --surface"},
		{"with --timeout", []string{"check", "--surface", good, "--timeout", "5"}, "--timeout does not apply with --surface"},
		{"check, no lock", []string{"check", "--surface", good}, "no lock at"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, tc.args[:1]...), "--lock", lockPath)
			args = append(args, tc.args[1:]...)
			code, out, errs := run(t, args...)
			if code != ExitError || out != "" || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
			if _, err := os.Stat(lockPath); err == nil {
				t.Fatal("a lock was written")
			}
		})
	}
}

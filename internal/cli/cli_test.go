package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/testserver"
)

// run executes one warden command in-process.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code = Main(ctx, Env{Args: args, Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "WARDEN_VECTORS" {
			return os.Getenv(k)
		}
		return ""
	}, Version: "test"})
	return code, out.String(), errb.String()
}

func demoServer(t *testing.T) string {
	return testserver.Build(t, "testdata/demo/server")
}

func TestPinThenCheckClean(t *testing.T) {
	srv := demoServer(t)
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	code, out, errs := run(t, "pin", "--lock", lockPath, "--", srv)
	if code != ExitClean {
		t.Fatalf("pin exit %d: %s%s", code, out, errs)
	}
	if !strings.HasPrefix(out, "pinned -> "+lockPath+"\n  overall_digest: sha256:") {
		t.Errorf("pin output:\n%s", out)
	}
	code, out, errs = run(t, "check", "--lock", lockPath, "--", srv)
	if code != ExitClean || out != "OK no drift vs "+lockPath+"\n" {
		t.Fatalf("check exit %d:\n%s%s", code, out, errs)
	}
}

func TestCheckReportsRugPull(t *testing.T) {
	srv := demoServer(t)
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	if code, _, errs := run(t, "pin", "--lock", lockPath, "--", srv); code != 0 {
		t.Fatal(errs)
	}
	sarifPath := filepath.Join(dir, "out.sarif")
	code, out, errs := run(t, "check", "--lock", lockPath, "--json", "--sarif", sarifPath, "--env", "DEMO_MUTATE=1", "--", srv)
	if code != ExitDrift {
		t.Fatalf("exit %d, want 1:\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		`"kind": "drift", "rule_id": "WRD-DRIFT-TOOL-ADDED", "drift_class": "tool-added", "severity": "high", "level": "error", "target": "tools/delete_note"`,
		// The reference's members come first, as written; warden's own
		// explanation follows them.
		`"drift_class": "schema-enum-widened", "severity": "high", "level": "error", "target": "tools/get_weather", "message": "Tool 'get_weather' schema schema-enum-widened at 'units'", "detail": "enum 2→3 values", "explanation": {`,
		`"kind": "finding", "rule_id": "WRD-CAP-SQL"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lines lack %s\n%s", want, out)
		}
	}
	if strings.Contains(out, "server-identity") {
		t.Error("same launch must not report server-identity drift")
	}
	data, err := os.ReadFile(sarifPath)
	if err != nil || !bytes.Contains(data, []byte(`"ruleId": "WRD-DRIFT-TOOL-ADDED"`)) {
		t.Fatalf("SARIF missing or incomplete: %v", err)
	}
}

func TestCheckReadsLockBeforeSpawning(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "spawned")
	code, _, errs := run(t, "check", "--lock", filepath.Join(dir, "missing.lock"), "--", "touch", marker)
	if code != ExitError || !strings.HasPrefix(errs, "error: no lock at ") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server was launched although the lock could not be read")
	}
	// A lock edited by hand (an entry no longer matches its digests) is
	// refused before anything is launched, even though its overall_digest
	// still matches the server.
	srv := demoServer(t)
	edited := filepath.Join(dir, "edited.lock")
	if code, _, errs := run(t, "pin", "--lock", edited, "--", srv); code != 0 {
		t.Fatal(errs)
	}
	text, _ := os.ReadFile(edited)
	l, err := lock.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	l.Tools[0].DescriptionHash = l.Tools[1].DescriptionHash
	if err := lock.WriteFile(edited, l); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, "check", "--lock", edited, "--", "touch", marker)
	if code != ExitError || !strings.Contains(errs, "does not verify against its own entries") {
		t.Fatalf("edited lock: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server was launched although the lock does not verify")
	}
	bad := filepath.Join(dir, "bad.lock")
	os.WriteFile(bad, []byte(`{"schema_version": 9}`), 0o644)
	if code, _, _ := run(t, "check", "--lock", bad, "--", "touch", marker); code != ExitError {
		t.Fatalf("bad lock: exit %d", code)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server was launched although the lock is malformed")
	}
}

func TestFailedPinLeavesLockUntouched(t *testing.T) {
	srv := demoServer(t)
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	if code, _, errs := run(t, "pin", "--lock", lockPath, "--", srv); code != 0 {
		t.Fatal(errs)
	}
	before, _ := os.ReadFile(lockPath)
	snapPath := filepath.Join(dir, "warden.surface.json")
	snapBefore, _ := os.ReadFile(snapPath)
	code, _, errs := run(t, "pin", "--lock", lockPath, "--", filepath.Join(dir, "no-such-server"))
	if code != ExitError || !strings.Contains(errs, "command not found") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	after, _ := os.ReadFile(lockPath)
	if !bytes.Equal(before, after) {
		t.Fatal("a failed pin changed the existing lock")
	}
	if snapAfter, _ := os.ReadFile(snapPath); len(snapBefore) == 0 || !bytes.Equal(snapBefore, snapAfter) {
		t.Fatal("a failed pin changed the existing snapshot")
	}
	// The lock and its snapshot, nothing else.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("leftover files: %v", entries)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"pin", "--approve", "--", "x"}, "--approve needs --approver"},
		{[]string{"check", "--url", "http://127.0.0.1:1/mcp", "--", "x"}, "not both"},
		{[]string{"check"}, "no server given"},
		{[]string{"check", "--timeout", "0", "--", "x"}, "--timeout"},
		{[]string{"diff", "a.lock"}, "exactly two lock files"},
		{[]string{"approve"}, "needs --approver"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"action", "x"}, "INPUT_"},
	}
	for _, tc := range tests {
		code, _, errs := run(t, tc.args...)
		if code != ExitError || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to mention %q", tc.args, code, errs, tc.want)
		}
	}
}

func TestDiffAndApprove(t *testing.T) {
	srv := demoServer(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.lock"), filepath.Join(dir, "b.lock")
	if code, _, errs := run(t, "pin", "--lock", a, "--", srv); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := run(t, "pin", "--lock", b, "--env", "DEMO_MUTATE=1", "--", srv); code != 0 {
		t.Fatal(errs)
	}
	code, out, _ := run(t, "diff", a, a)
	if code != 0 || out != "no differences (a.lock → a.lock)\n" {
		t.Fatalf("diff of a lock with itself: %d %q", code, out)
	}
	code, out, _ = run(t, "diff", a, b)
	if code != 0 || !strings.HasPrefix(out, "a.lock → b.lock (2 integrity change(s))\n") || !strings.Contains(out, "tool-added") {
		t.Fatalf("diff: %d\n%s", code, out)
	}
	if strings.Contains(out, srv) {
		t.Error("diff printed the raw server command")
	}
	if code, _, _ := run(t, "diff", "--exit-code", a, b); code != ExitDrift {
		t.Errorf("diff --exit-code: %d", code)
	}

	// Approve re-attests without capturing.
	code, out, errs := run(t, "approve", "--lock", a, "--approver", "alice", "--note", "reviewed")
	if code != 0 || !strings.Contains(out, "approved by: alice") {
		t.Fatalf("approve: %d %s %s", code, out, errs)
	}
	l, err := lock.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Pin.Approved || *l.Pin.Approver != "alice" || *l.Pin.ApprovedDigest != l.OverallDigest || len(l.Pin.Attestations) != 1 || *l.Pin.RotationCount != 1 {
		t.Fatalf("approval not recorded: %+v", l.Pin)
	}
	if role, _ := l.Pin.Attestations[0].Get("role").Str(); role != "approver" {
		t.Errorf("attestation role %q", role)
	}

	// A tampered lock is refused and left as it was.
	text, _ := os.ReadFile(b)
	tampered := bytes.Replace(text, []byte(`"fs-`), []byte(`"xx-`), 1)
	if bytes.Equal(tampered, text) {
		tampered = bytes.Replace(text, []byte(`"capabilities": [`), []byte(`"capabilities": ["shell-exec"`), 1)
		tampered = bytes.Replace(tampered, []byte(`"shell-exec"]`), []byte(`"shell-exec"]`), 1)
	}
	os.WriteFile(b, tampered, 0o644)
	code, _, errs = run(t, "approve", "--lock", b, "--approver", "mallory")
	if code != ExitError || !strings.Contains(errs, "does not verify") {
		t.Fatalf("tampered approve: %d %s", code, errs)
	}
	if after, _ := os.ReadFile(b); !bytes.Equal(after, tampered) {
		t.Fatal("a refused approve wrote the lock")
	}

	// lock rotate without an approver refuses a stale approval.
	stale := filepath.Join(dir, "stale.lock")
	l.Pin.ApprovedDigest = new(string)
	*l.Pin.ApprovedDigest = "sha256:old"
	if err := lock.WriteFile(stale, l); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "lock", "rotate", stale); code != ExitError || !strings.Contains(errs, "stale approval") {
		t.Fatalf("rotate of a stale approval: %d %s", code, errs)
	}
	if code, out, errs := run(t, "lock", "rotate", "--approver", "bob", stale); code != 0 {
		t.Fatalf("rotate with approver: %d %s %s", code, out, errs)
	}
}

func TestConformanceCommand(t *testing.T) {
	root := testserver.RepoRoot(t)
	code, out, errs := run(t, "conformance", filepath.Join(root, "vectors"))
	if code != 0 || !strings.HasSuffix(out, " passed, 0 failed\n") {
		t.Fatalf("conformance: %d\n%s%s", code, out, errs)
	}
	empty := t.TempDir()
	if code, _, _ := run(t, "conformance", empty); code != ExitError {
		t.Fatalf("conformance on a dir without manifest: %d", code)
	}
}

// TestServerMemoryInterop pins the real @modelcontextprotocol/server-memory
// and checks it clean; the lock embeds the same finding the reference
// embeds for it.
func TestServerMemoryInterop(t *testing.T) {
	js := testserver.NPMScript(t, testserver.MemoryServerJS)
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	argv := []string{"node", js}
	if code, out, errs := run(t, append([]string{"pin", "--lock", lockPath, "--env", "MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl"), "--"}, argv...)...); code != 0 {
		t.Fatalf("pin: %d %s %s", code, out, errs)
	}
	l, err := lock.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Tools) != 9 || len(l.Resources) != 0 || len(l.Prompts) != 0 {
		t.Fatalf("surface: %d tools, %d resources, %d prompts", len(l.Tools), len(l.Resources), len(l.Prompts))
	}
	found := false
	for _, f := range l.Findings {
		if f.RuleID == "WRD-CAP-SQL" && f.Target == "tools/search_nodes" && f.Severity == "high" && f.Snippet == "property 'query'" && f.Message == "Tool derives capability 'sql-query' (property 'query')" {
			found = true
		}
	}
	if !found {
		t.Errorf("WRD-CAP-SQL on search_nodes not embedded: %+v", l.Findings)
	}
	if code, out, errs := run(t, append([]string{"check", "--lock", lockPath, "--env", "MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl"), "--"}, argv...)...); code != 0 {
		t.Fatalf("check: %d %s %s", code, out, errs)
	}
}

// TestServerEverythingUpgradeDrifts pins server-everything 2026.1.26 behind
// a symlink, repoints the same launch at 2026.8.31, and expects drift.
func TestServerEverythingUpgradeDrifts(t *testing.T) {
	oldJS := testserver.NPMScript(t, testserver.EverythingServerJS)
	newJS := testserver.NPMScript(t, testserver.EverythingNextServerJS)
	dir := t.TempDir()
	link := filepath.Join(dir, "server")
	if err := os.Symlink(filepath.Dir(filepath.Dir(oldJS)), link); err != nil {
		t.Fatal(err)
	}
	argv := []string{"node", filepath.Join(link, "dist", "index.js")}
	lockPath := filepath.Join(dir, "warden.lock")
	if code, out, errs := run(t, append([]string{"pin", "--lock", lockPath, "--"}, argv...)...); code != 0 {
		t.Fatalf("pin: %d %s %s", code, out, errs)
	}
	if code, out, errs := run(t, append([]string{"check", "--lock", lockPath, "--"}, argv...)...); code != 0 {
		t.Fatalf("check of the same version: %d %s %s", code, out, errs)
	}
	os.Remove(link)
	if err := os.Symlink(filepath.Dir(filepath.Dir(newJS)), link); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, append([]string{"check", "--lock", lockPath, "--json", "--"}, argv...)...)
	if code != ExitDrift {
		t.Fatalf("check after upgrade: %d %s %s", code, out, errs)
	}
	for _, class := range []string{"tool-annotations-modified", "schema-additional-props-opened", "schema-constraint-relaxed", "prompt-modified"} {
		if !strings.Contains(out, `"drift_class": "`+class+`"`) {
			t.Errorf("expected a %s item", class)
		}
	}
	if strings.Contains(out, "server-identity") {
		t.Error("the launch did not change; no server-identity drift expected")
	}
}

// TestServerEverythingStreamableHTTP captures server-everything over
// streamable HTTP on a free loopback port, and checks it against a lock
// pinned the same way.
func TestServerEverythingStreamableHTTP(t *testing.T) {
	js := testserver.NPMScript(t, testserver.EverythingServerJS)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("node", js, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server-everything did not listen in time")
		}
		time.Sleep(100 * time.Millisecond)
	}
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	if code, out, errs := run(t, "pin", "--lock", lockPath, "--url", url); code != 0 {
		t.Fatalf("pin over HTTP: %d %s %s", code, out, errs)
	}
	lk, err := lock.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if lk.Server.URL == nil || *lk.Server.URL != url || lk.Server.Command != "" || len(lk.Tools) < 13 {
		t.Fatalf("HTTP lock: url %v, command %q, %d tools", lk.Server.URL, lk.Server.Command, len(lk.Tools))
	}
	if code, out, errs := run(t, "check", "--lock", lockPath, "--url", url); code != 0 {
		t.Fatalf("check over HTTP: %d %s %s", code, out, errs)
	}
}

package action

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

// runnerUID is the runner user's uid and gid on GitHub's images, who owns
// the workspace a container action gets.
const runnerUID = 1001

// chownTree gives everything under dir, dir included, to uid:gid, as a
// checkout by the runner user would have it.
func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ownersOf returns every entry under dir (dir excluded) that uid:uid does
// not own, with its owner, as "path uid:gid".
func ownersOf(t *testing.T, dir string, uid uint32) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := info.Sys().(*syscall.Stat_t)
		if st.Uid != uid || st.Gid != uid {
			rel, _ := filepath.Rel(dir, p)
			bad = append(bad, fmt.Sprintf("%s %d:%d", rel, st.Uid, st.Gid))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// TestRunAsRootGivesFilesBack is issue 20's item 11c: the Action's
// container runs as root over a workspace the runner's user owns, and
// everything a run makes there (locks, SARIF, candidate lock, the
// directories made for them, what the server writes) must end up the
// runner user's, so that the next checkout can delete it. So must what a
// server writes in HOME (npm's and uv's caches), the runner's own
// directory. What was root's before the run stays root's.
func TestRunAsRootGivesFilesBack(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, as the Action's container runs")
	}
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	// The server writes where servers do: a cache under HOME, bytecode
	// beside its sources, a file in a new directory of its working
	// directory.
	launcher := func(args ...string) string {
		script := "#!/bin/sh\nset -e\n" +
			"mkdir -p \"$HOME/.npm/_cacache/index\" srv-cache/deep && : >\"$HOME/.npm/_cacache/index/x\" && : >srv-cache/deep/file\n" +
			"exec " + shellQuote(demo)
		for _, a := range args {
			script += " " + shellQuote(a)
		}
		return script + "\n"
	}
	writeFile(t, h, "server", launcher(), 0o755)
	writeFile(t, h, ".mcp.json", `{"mcpServers": {"demo": {"command": "./server"}}}`, 0o644)
	// An earlier step left a root-owned file and directory: not warden's
	// to give away.
	writeFile(t, h, "root-owned/keep", "x", 0o644)
	chownTree(t, h.ws, runnerUID)
	chownTree(t, home, runnerUID)
	for _, p := range []string{"root-owned", "root-owned/keep"} {
		if err := os.Lchown(filepath.Join(h.ws, p), 0, 0); err != nil {
			t.Fatal(err)
		}
	}

	steps := []struct {
		name     string
		inputs   map[string]string
		args     []string
		wantCode int
	}{
		{"pin into new directories", map[string]string{"mode": "pin", "lock": "locks/deep/warden.lock", "sarif": "reports/deep/warden.sarif", "server-cmd": "./server"}, nil, ExitClean},
		{"check with drift and a candidate lock", map[string]string{"lock": "locks/deep/warden.lock", "sarif": "reports/deep/warden.sarif", "candidate-lock": "cand/deep/c.lock", "server-cmd": "./server"}, []string{"-mutate"}, ExitDrift},
		{"a failed check", map[string]string{"lock": "locks/deep/warden.lock", "sarif": "reports/new/warden.sarif", "server-cmd": "./missing"}, nil, ExitError},
		{"config pin", map[string]string{"mode": "pin", "config": ".mcp.json", "sarif": "reports/config/warden.sarif"}, nil, ExitClean},
	}
	for _, st := range steps {
		h.reset()
		h.vars["HOME"] = home
		for k, v := range st.inputs {
			h.input(k, v)
		}
		// The launcher's edit is the runner user's, as a checkout's.
		writeFile(t, h, "server", launcher(st.args...), 0o755)
		if err := os.Lchown(filepath.Join(h.ws, "server"), runnerUID, runnerUID); err != nil {
			t.Fatal(err)
		}
		r := h.run()
		if r.code != st.wantCode {
			t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", st.name, r.code, st.wantCode, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, "stays root's") {
			t.Errorf("%s: %s", st.name, r.stdout)
		}
		var bad []string
		for _, b := range ownersOf(t, h.ws, runnerUID) {
			if !strings.HasPrefix(b, "root-owned") {
				bad = append(bad, b)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s: entries in the workspace the runner user does not own: %q", st.name, bad)
		}
		if bad := ownersOf(t, home, runnerUID); len(bad) > 0 {
			t.Errorf("%s: entries in HOME the runner user does not own: %q", st.name, bad)
		}
		for _, p := range []string{"root-owned", "root-owned/keep"} {
			info, err := os.Lstat(filepath.Join(h.ws, p))
			if err != nil {
				t.Fatal(err)
			}
			if uid := info.Sys().(*syscall.Stat_t).Uid; uid != 0 {
				t.Errorf("%s: %s, root's before the run, was given to uid %d", st.name, p, uid)
			}
		}
	}
	for _, p := range []string{"locks/deep/warden.lock", "reports/deep/warden.sarif", "cand/deep/c.lock", "demo.warden.lock", "srv-cache/deep/file"} {
		if _, err := os.Stat(filepath.Join(h.ws, p)); err != nil {
			t.Errorf("the run did not make %s: %v", p, err)
		}
	}
}

// TestOwnershipStaysInside: a symbolic link in the workspace that leads
// out of it is given back itself; what it points at is never touched.
func TestOwnershipStaysInside(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	ws, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "victim")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(outside, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	chownTree(t, ws, runnerUID)
	o, err := watchOwnership(ws)
	if err != nil || o == nil {
		t.Fatalf("watchOwnership = %v, %v", o, err)
	}
	for name, to := range map[string]string{"file-link": target, "dir-link": filepath.Join(outside, "dir")} {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "dir", "inner"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := o.restore()
	if err != nil || n != 2 {
		t.Errorf("restore = %d, %v; want the 2 links", n, err)
	}
	if bad := ownersOf(t, ws, runnerUID); len(bad) > 0 {
		t.Errorf("not given back: %q", bad)
	}
	if bad := ownersOf(t, outside, 0); len(bad) > 0 {
		t.Errorf("entries outside the workspace changed owner: %q", bad)
	}
}

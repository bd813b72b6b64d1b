//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/testserver"
)

// TestCheckRefusesPlantedLock: a lock committed as a FIFO, as a link to
// /dev/zero or as a sparse file over the limit is refused in one line,
// promptly, and the server is never launched.
func TestCheckRefusesPlantedLock(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "spawned")
	tests := []struct {
		name  string
		plant func(p string) error
		want  string
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file (a named pipe)"},
		{"dev zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
		{"sparse, 1 MiB over the limit", func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(lock.MaxFileBytes + 1<<20)
		}, fmt.Sprintf("larger than %d MiB", lock.MaxFileBytes>>20)},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "lock"+string(rune('a'+i)))
			if err := tc.plant(path); err != nil {
				t.Fatal(err)
			}
			code, out, errs := run(t, "check", "--lock", path, "--", "touch", marker)
			if code != ExitError || out != "" || !strings.HasPrefix(errs, "error: read lock "+path+": ") || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the server was launched")
			}
		})
	}
}

// TestSARIFNeverThroughSymlink: --sarif naming a symlink (as a committed
// warden.sarif would be) is refused and the file it points at is left as
// it was.
func TestSARIFNeverThroughSymlink(t *testing.T) {
	root := testserver.RepoRoot(t)
	lockPath := filepath.Join(root, "testdata", "demo", "warden.lock")
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "warden.sarif")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "diff", "--sarif", link, lockPath, lockPath)
	if code != ExitError || !strings.Contains(errs, "it is a symbolic link") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious" {
		t.Fatalf("SARIF written through the link: %q", data)
	}
	// A plain path is written, atomically, with nothing left beside it.
	plain := filepath.Join(t.TempDir(), "out.sarif")
	if code, _, errs := run(t, "diff", "--sarif", plain, lockPath, lockPath); code != ExitClean {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if entries, _ := os.ReadDir(filepath.Dir(plain)); len(entries) != 1 {
		t.Fatalf("leftovers: %v", entries)
	}
}

// TestCheckRefusesEditedServerBlock: a lock whose server.command was edited
// while command_digest was kept (so that reviewers see one launch while the
// digest pins another) is refused by check and approve before anything is
// launched or written; before, check reported "no drift".
func TestCheckRefusesEditedServerBlock(t *testing.T) {
	srv := demoServer(t)
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	if code, _, errs := run(t, "pin", "--lock", lockPath, "--", srv); code != ExitClean {
		t.Fatal(errs)
	}
	l, err := lock.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	l.Server.Command = "/usr/bin/harmless-looking-server"
	if err := lock.WriteFile(lockPath, l); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(lockPath)
	code, out, errs := run(t, "check", "--lock", lockPath, "--", srv)
	if code != ExitError || out != "" || !strings.Contains(errs, "$.server.command_digest does not match the stored launch") || !strings.Contains(errs, "tampered") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("check: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := run(t, "approve", "--lock", lockPath, "--approver", "mallory"); code != ExitError || !strings.Contains(errs, "command_digest") {
		t.Fatalf("approve: exit %d, %s", code, errs)
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(before) {
		t.Fatal("a refused approve rewrote the lock")
	}
}

// TestPinRefusesURLCredentials pins a real HTTP server through URLs that
// carry credentials. Before, the lock stored them verbatim in server.url;
// now pin exits 2 with one line that does not echo them, writes nothing,
// and says to use a header. A check (which stores nothing) is unaffected.
func TestPinRefusesURLCredentials(t *testing.T) {
	sdk := testserver.Build(t, "testdata/servers/sdkserver")
	base := testserver.StartHTTP(t, sdk)
	const secret = "s3cr3t-pa55word-value"
	withUser := strings.Replace(base, "://", "://alice:"+secret+"@", 1)
	for _, url := range []string{withUser, base + "?api_key=" + secret, base + "?Token=" + secret} {
		lockPath := filepath.Join(t.TempDir(), "warden.lock")
		code, out, errs := run(t, "pin", "--lock", lockPath, "--url", url)
		if code != ExitError || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--header 'Authorization: Bearer ${TOKEN}'") {
			t.Fatalf("pin --url with a credential: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if strings.Contains(errs, secret) {
			t.Fatalf("the error echoes the credential: %s", errs)
		}
		if _, err := os.Stat(lockPath); err == nil {
			t.Fatal("a lock was written")
		}
	}
	// --allow-secret-in-lock lets a query value through (it may not be
	// secret) but never userinfo.
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	if code, _, errs := run(t, "pin", "--allow-secret-in-lock", "--lock", lockPath, "--url", withUser); code != ExitError || !strings.Contains(errs, "user credentials") {
		t.Fatalf("userinfo with --allow-secret-in-lock: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "pin", "--allow-secret-in-lock", "--lock", lockPath, "--url", base+"?key=us-east"); code != ExitClean {
		t.Fatalf("query value with --allow-secret-in-lock: exit %d, %s", code, errs)
	}
}

// TestPinRefusesFolderSwappedDuringCapture: a server that runs in the
// repository swaps the lock's folder for a link to another folder while it
// is captured. The pin refuses to write, and neither folder gets a lock.
func TestPinRefusesFolderSwappedDuringCapture(t *testing.T) {
	srv := demoServer(t)
	root := t.TempDir()
	locks := filepath.Join(root, "locks")
	victim := filepath.Join(root, "victim")
	for _, d := range []string{locks, victim} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lockPath := filepath.Join(locks, "warden.lock")
	swap := `mv "$1" "$1.moved" && ln -s "$2" "$1" && exec "$3"`
	code, out, errs := run(t, "pin", "--lock", lockPath, "--", "sh", "-c", swap, "sh", locks, victim, srv)
	if code != ExitError || !strings.Contains(errs, "changed while the server ran") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, d := range []string{victim, locks + ".moved"} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Fatalf("%s holds %v after the refused pin", d, entries)
		}
	}
	// Without the swap the same launch pins.
	if err := os.Remove(locks); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(locks, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "pin", "--lock", lockPath, "--", "sh", "-c", `exec "$1"`, "sh", srv); code != ExitClean {
		t.Fatalf("plain pin: exit %d, %s", code, errs)
	}
}

//go:build unix

package lock

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileRefusesNonRegular plants what a pull request could commit in
// place of warden.lock: a symlink to an endless device, a FIFO nobody
// writes to, a directory, a sparse file just over the limit. Each is
// refused with one line naming the path, promptly and without reading it.
func TestReadFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.lock")
	if err := WriteFile(good, buildDemo(t)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(path string) error
		want  string
	}{
		{"symlink to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file (a named pipe)"},
		{"symlink to a fifo", func(p string) error {
			fifo := p + ".fifo"
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				return err
			}
			return os.Symlink(fifo, p)
		}, "not a regular file (a named pipe)"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "not a regular file (a directory)"},
		{"sparse file over 256 MiB", func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(MaxFileBytes + 1<<20)
		}, "larger than 256 MiB, the most a lock may be"},
		{"symlink loop", func(p string) error { return os.Symlink(p, p) }, "too many levels of symbolic links"},
		{"missing", func(string) error { return nil }, "no such file"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "case"+string(rune('a'+i)), "warden.lock")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.setup(path); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := ReadFile(path)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("accepted")
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "read lock "+path+": ") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
					t.Fatalf("error = %q, want one line naming the path and %q", msg, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("ReadFile hung")
			}
		})
	}
	// A symlink to a regular lock is still read: links are followed, only
	// what they lead to must be a plain file.
	link := filepath.Join(dir, "link.lock")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(link); err != nil {
		t.Fatalf("symlink to a regular lock: %v", err)
	}
}

// TestReadLimit reads through the limit: a file at the limit is read, one
// byte more is refused.
func TestReadLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warden.lock")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := readRegular(path, 10); err != nil || string(data) != "0123456789" {
		t.Fatalf("at the limit: %q, %v", data, err)
	}
	if _, err := readRegular(path, 9); err == nil || !strings.Contains(err.Error(), "larger than 9 bytes") {
		t.Fatalf("over the limit: %v", err)
	}
}

// TestWriteAtomicRefusesLinks plants a symlink (to a file outside, and a
// dangling one) and a FIFO where a report or lock is to be written: the
// write is refused, nothing is written through the link, and no
// temporary file is left behind. A regular file is replaced.
func TestWriteAtomicRefusesLinks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		plant func(path string) error
		want  string
	}{
		{"symlink to a file", func(p string) error { return os.Symlink(outside, p) }, "it is a symbolic link, not a regular file"},
		{"dangling symlink", func(p string) error { return os.Symlink(outside+".new", p) }, "it is a symbolic link"},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "it is a named pipe"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "it is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "warden.sarif")
			if err := tc.plant(path); err != nil {
				t.Fatal(err)
			}
			err := WriteAtomic(path, []byte("report"))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "write "+path+": ") {
				t.Fatalf("error = %v, want one naming the path and %q", err, tc.want)
			}
			if data, _ := os.ReadFile(outside); string(data) != "precious" {
				t.Fatalf("written through the link: %q", data)
			}
			if _, err := os.Lstat(outside + ".new"); err == nil {
				t.Fatal("a file was created through the dangling link")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("leftovers: %v", entries)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "warden.sarif")
	for _, content := range []string{"one", "two"} {
		if err := WriteAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(path); string(data) != content {
			t.Fatalf("content %q, want %q", data, content)
		}
	}
}

// TestWriteRefusesUnreadableLock: a lock larger than the reader accepts is
// not written (a pin of a huge server would otherwise leave a lock that
// every later check refuses), and an existing lock is left as it was.
func TestWriteRefusesUnreadableLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warden.lock")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := buildDemo(t)
	data := Marshal(l)
	err := writeLockFile(path, l, int64(len(data))-1, nil)
	if err == nil || !strings.Contains(err.Error(), "more than the") || !strings.HasPrefix(err.Error(), "write lock "+path+": ") {
		t.Fatalf("error = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("the lock was replaced: %q", got)
	}
	if err := writeLockFile(path, l, int64(len(data)), nil); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
}

// TestHoldReplaced: only a large regular file is held open across the
// rename that replaces it (so it is freed off the caller's path); a FIFO
// is not opened (which would block), and a commit over a held lock leaves
// the new lock alone in the directory.
func TestHoldReplaced(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.lock")
	if err := os.WriteFile(big, make([]byte, holdReplacedSize), 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.lock")
	if err := os.WriteFile(small, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.lock")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		held bool
	}{{big, true}, {small, false}, {fifo, false}, {filepath.Join(dir, "absent.lock"), false}} {
		f := holdReplaced(tc.path)
		if (f != nil) != tc.held {
			t.Errorf("%s: held %v, want %v", filepath.Base(tc.path), f != nil, tc.held)
		}
		if f != nil {
			f.Close()
		}
	}
	os.Remove(small)
	os.Remove(fifo)
	tmp, err := createTemp(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.WriteString("new"); err != nil {
		t.Fatal(err)
	}
	if err := commitTemp(tmp, big); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(big); err != nil || string(b) != "new" {
		t.Fatalf("after the commit the lock holds %q (%v)", b, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("the directory holds %d files, want the lock alone", len(ents))
	}
}

// TestReleaseReplacedKeepsLock: dropping the cached pages of the lock a
// write is to replace leaves the file whole, and a streamed write that is
// aborted after it started leaves the old lock as it was.
func TestReleaseReplacedKeepsLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "warden.lock")
	old := []byte(strings.Repeat("old lock text\n", holdReplacedSize/14+1))
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	done := releaseReplaced(path)
	if done == nil {
		t.Fatal("a large lock was not released")
	}
	<-done
	if got, err := os.ReadFile(path); err != nil || string(got) != string(old) {
		t.Fatalf("the released lock changed (%v)", err)
	}
	if releaseReplaced(filepath.Join(dir, "absent.lock")) != nil {
		t.Fatal("an absent lock was released")
	}
	w := NewStreamWriter(path)
	if err := w.Add("a", []byte(`{"name": "a"}`)); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if w.released != nil {
		t.Fatal("Abort returned before the release finished")
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(old) {
		t.Fatalf("an aborted write changed the old lock (%v)", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("the directory holds %d files, want the old lock alone", len(ents))
	}
}

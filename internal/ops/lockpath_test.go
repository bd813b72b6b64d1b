package ops

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckLockPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, filepath.Join(dir, "link.lock")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"new file", filepath.Join(dir, "warden.lock"), ""},
		{"existing file", file, ""},
		{"relative in the working directory", "warden.lock", ""},
		{"missing folder", filepath.Join(dir, "a", "b", "warden.lock"), "the folder " + filepath.Join(dir, "a", "b") + " does not exist"},
		{"directory", dir, "is a directory; name a file, such as " + filepath.Join(dir, "warden.lock")},
		{"folder is a file", filepath.Join(file, "warden.lock"), file + " is not a folder"},
		{"symbolic link", filepath.Join(dir, "link.lock"), "is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckLockPath(tt.path)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckLockPath(%q) = %v", tt.path, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("CheckLockPath(%q) = %v, want one line containing %q", tt.path, err, tt.want)
			}
		})
	}
}

func TestMissingLock(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "warden.lock")
	_, err := Diff(context.Background(), missing, missing)
	var me *MissingLockError
	if !errors.As(err, &me) || !errors.Is(err, fs.ErrNotExist) || strings.Count(err.Error(), missing) != 1 || !strings.Contains(err.Error(), "'warden pin'") {
		t.Fatalf("Diff of a missing lock: %v", err)
	}
	_, err = Check(context.Background(), CheckOptions{LockPath: missing, Target: Target{Argv: []string{"true"}}})
	if !errors.As(err, &me) {
		t.Fatalf("Check of a missing lock: %v", err)
	}
}

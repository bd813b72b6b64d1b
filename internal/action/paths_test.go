package action

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

func TestResolveFile(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"sub", "real"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "real", "x.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"out.sarif":       victim,
		"escape":          outside,
		"dangling.sarif":  filepath.Join(outside, "new"),
		"inner":           filepath.Join(ws, "real"),
		"sub/inside.lock": filepath.Join(ws, "real", "x.lock"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		p, want, wantErr string
	}{
		{"warden.lock", filepath.Join(ws, "warden.lock"), ""},
		{"new/dir/warden.sarif", filepath.Join(ws, "new", "dir", "warden.sarif"), ""},
		{filepath.Join(ws, "sub", "a.lock"), filepath.Join(ws, "sub", "a.lock"), ""},
		{"inner/x.lock", filepath.Join(ws, "inner", "x.lock"), ""},
		{"inner/missing/x.lock", filepath.Join(ws, "inner", "missing", "x.lock"), ""},
		{"sub/inside.lock", filepath.Join(ws, "sub", "inside.lock"), ""},
		{"../warden.lock", "", "outside the workspace"},
		{victim, "", "outside the workspace"},
		{"/etc/passwd", "", "outside the workspace"},
		{"out.sarif", "", "leads outside the workspace through a symbolic link"},
		{"escape/warden.sarif", "", "leads outside the workspace through a symbolic link"},
		{"escape/new/dir/warden.sarif", "", "leads outside the workspace through a symbolic link"},
		{"dangling.sarif", "", "symbolic link to a missing file"},
	}
	for _, tt := range tests {
		t.Run(tt.p, func(t *testing.T) {
			got, err := ResolveFile(ws, ws, "sarif", tt.p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "input sarif: ") {
					t.Fatalf("ResolveFile(%q) = %q, %v; want an error containing %q", tt.p, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ResolveFile(%q) = %q, %v; want %q", tt.p, got, err, tt.want)
			}
		})
	}
}

// TestRunRefusesPlantedFiles plays a pull request that commits, in place of
// the lock or the report, a link leading out of the workspace, a FIFO, or a
// link to a file inside it. The Action exits 2 with one error line, leaves
// the file outside untouched and launches nothing.
func TestRunRefusesPlantedFiles(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	tests := []struct {
		name  string
		plant func(t *testing.T, h *harness, victim string)
		want  string
	}{
		{"sarif symlink out of the workspace", func(t *testing.T, h *harness, victim string) {
			symlink(t, victim, filepath.Join(h.ws, "warden.sarif"))
		}, "input sarif: \"warden.sarif\" leads outside the workspace through a symbolic link"},
		{"sarif directory symlink", func(t *testing.T, h *harness, victim string) {
			symlink(t, filepath.Dir(victim), filepath.Join(h.ws, "reports"))
			h.input("sarif", "reports/victim")
		}, "leads outside the workspace"},
		{"sarif symlink inside the workspace", func(t *testing.T, h *harness, victim string) {
			symlink(t, filepath.Join(h.ws, "README"), filepath.Join(h.ws, "warden.sarif"))
		}, "warden.sarif: it is a symbolic link, not a regular file"},
		{"lock symlink out of the workspace", func(t *testing.T, h *harness, victim string) {
			if err := os.Remove(filepath.Join(h.ws, "warden.lock")); err != nil {
				t.Fatal(err)
			}
			symlink(t, victim, filepath.Join(h.ws, "warden.lock"))
		}, "input lock: \"warden.lock\" leads outside the workspace"},
		{"lock outside the workspace", func(t *testing.T, h *harness, victim string) {
			h.input("lock", victim)
		}, "is outside the workspace"},
		{"lock is a fifo", func(t *testing.T, h *harness, victim string) {
			if err := os.Remove(filepath.Join(h.ws, "warden.lock")); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(h.ws, "warden.lock"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a named pipe)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			pinDemo(t, h, demo, ".")
			if err := os.WriteFile(filepath.Join(h.ws, "README"), []byte("readme"), 0o644); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			h.input("server-cmd", "./server")
			tt.plant(t, h, victim)
			r := h.run()
			if r.code != ExitError || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line containing %q", r.code, r.stderr, tt.want)
			}
			if data, err := os.ReadFile(victim); err != nil || string(data) != "precious" {
				t.Fatalf("the file outside the workspace was changed: %q, %v", data, err)
			}
			if data, err := os.ReadFile(filepath.Join(h.ws, "README")); err != nil || string(data) != "readme" {
				t.Fatalf("the file the link points at was changed: %q, %v", data, err)
			}
			if r.outputs["verdict"] != "error" {
				t.Errorf("verdict %q", r.outputs["verdict"])
			}
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

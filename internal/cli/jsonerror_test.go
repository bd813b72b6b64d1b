package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONFailureRecord: with --json a failed pin, check or diff writes one
// record of kind "error" on stdout (and the usual line on stderr), so that a
// consumer of the JSON stream sees the failure; without --json stdout stays
// empty.
func TestJSONFailureRecord(t *testing.T) {
	srv := demoServer(t)
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	if code, out, errs := run(t, "pin", "--lock", lockPath, "--", srv); code != ExitClean {
		t.Fatalf("pin exit %d: %s%s", code, out, errs)
	}
	missing := filepath.Join(dir, "no-such-server")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"check-capture-failure", []string{"check", "--lock", lockPath, "--json", "--", missing}, "command not found"},
		{"pin-capture-failure", []string{"pin", "--lock", filepath.Join(dir, "other.lock"), "--json", "--", missing}, "command not found"},
		{"check-missing-lock", []string{"check", "--lock", filepath.Join(dir, "absent.lock"), "--json", "--", srv}, "absent.lock"},
		{"diff-missing-lock", []string{"diff", "--json", lockPath, filepath.Join(dir, "absent.lock")}, "absent.lock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, tc.args...)
			if code != ExitError {
				t.Fatalf("exit %d, want %d: %s%s", code, ExitError, out, errs)
			}
			if !strings.HasPrefix(errs, "error: ") || !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q lacks the error line", errs)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("stdout %q: want one record", out)
			}
			var rec struct{ Kind, Message string }
			if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
				t.Fatalf("stdout %q: %v", out, err)
			}
			if rec.Kind != "error" || !strings.Contains(rec.Message, tc.want) {
				t.Errorf("record %+v", rec)
			}
			plain := append([]string{}, tc.args...)
			for i, a := range plain {
				if a == "--json" {
					plain = append(plain[:i], plain[i+1:]...)
					break
				}
			}
			if _, out, _ := run(t, plain...); out != "" {
				t.Errorf("without --json stdout is %q", out)
			}
		})
	}
}

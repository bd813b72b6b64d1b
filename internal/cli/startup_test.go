package cli

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

// TestPinStartupBudget: a server that takes longer to start than --timeout
// (npx downloading it) still pins, the wait is told on stderr as it goes,
// and --startup-timeout bounds it.
func TestPinStartupBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("start-up is told apart only where the stdin pipe can be inspected (Linux)")
	}
	t.Parallel()
	era := testserver.Build(t, "testdata/servers/eraserver")
	dir := t.TempDir()
	code, out, errs := run(t, "pin", "--lock", filepath.Join(dir, "a.lock"), "--timeout", "2", "--", era, "-era", "modern", "-start-delay", "6s")
	if code != ExitClean {
		t.Fatalf("pin exit %d: %s%s", code, out, errs)
	}
	if !strings.Contains(errs, "warden: waiting for MCP server '") || !strings.Contains(errs, "to start (it has not read its input yet") {
		t.Errorf("stderr has no progress line:\n%s", errs)
	}
	code, _, errs = run(t, "pin", "--lock", filepath.Join(dir, "b.lock"), "--timeout", "1", "--startup-timeout", "1", "--", era, "-era", "modern", "-start-delay", "5s")
	if code != ExitError || !strings.Contains(errs, "did not start within 1s: it never read its input") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	for _, bad := range []string{"0", "-1", "NaN", "86401"} {
		code, _, errs := run(t, "pin", "--lock", filepath.Join(dir, "c.lock"), "--startup-timeout", bad, "--", era)
		if code != ExitError || !strings.Contains(errs, "--startup-timeout must be a number of seconds above 0") {
			t.Errorf("--startup-timeout %s: exit %d, stderr %q", bad, code, errs)
		}
	}
}

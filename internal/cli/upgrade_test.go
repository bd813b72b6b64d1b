package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/report/reporttest"
	"github.com/wardenlock/warden/internal/testserver"
)

// knownGaps are misses of an upgrade test that are known and not
// asserted, with why: the test logs each one it meets and passes if it
// meets no other. Deleting an entry makes the test assert it.
var knownGaps = map[string]string{}

// pointAt makes link (a symlink) point at dir, so one launch command runs
// another release.
func pointAt(t *testing.T, link, dir string) {
	t.Helper()
	_ = os.Remove(link)
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
}

// snapshotBeside returns the snapshot pin wrote beside lockPath, skipping
// the test while pin writes none.
func snapshotBeside(t *testing.T, lockPath string) []byte {
	t.Helper()
	p := filepath.Join(filepath.Dir(lockPath), "warden.surface.json")
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		t.Skip("waiting for the snapshot: pin wrote no warden.surface.json beside the lock")
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func isSeverity(s string) bool {
	switch s {
	case "critical", "high", "medium", "low", "info":
		return true
	}
	return false
}

// TestUpgradeTextReport is issue 21's acceptance test for the text
// report: each real upgrade is pinned at the old release (lock and
// snapshot) and checked against the new one through the same launch, and
// the report shows, under each tool's items, the old and new words of its
// changed description and the values of each changed schema fact and
// annotation hint. The expectations come from the two releases' snapshots,
// compared here, not from warden's explanations.
func TestUpgradeTextReport(t *testing.T) {
	for _, u := range testserver.Upgrades() {
		t.Run(u.Name, func(t *testing.T) {
			from, to := testserver.NPMPackage(t, u.From), testserver.NPMPackage(t, u.To)
			dir := t.TempDir()
			link := filepath.Join(dir, "server")
			argv := []string{"node", filepath.Join(link, "dist", "index.js")}
			env := []string{"--env", "MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl")}

			// The new release's snapshot, for the expectations.
			pointAt(t, link, to)
			newLock := filepath.Join(dir, "new", "warden.lock")
			if err := os.Mkdir(filepath.Dir(newLock), 0o755); err != nil {
				t.Fatal(err)
			}
			if code, out, errs := run(t, append(append([]string{"pin", "--lock", newLock}, env...), append([]string{"--"}, argv...)...)...); code != ExitClean {
				t.Fatalf("pin %s: %d %s %s", u.To, code, out, errs)
			}
			after := snapshotBeside(t, newLock)

			pointAt(t, link, from)
			lockPath := filepath.Join(dir, "warden.lock")
			if code, out, errs := run(t, append(append([]string{"pin", "--lock", lockPath}, env...), append([]string{"--"}, argv...)...)...); code != ExitClean {
				t.Fatalf("pin %s: %d %s %s", u.From, code, out, errs)
			}
			before := snapshotBeside(t, lockPath)
			changes, err := reporttest.UpgradeChanges(before, after)
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) == 0 {
				t.Fatal("the releases' snapshots show no tool change")
			}

			pointAt(t, link, to)
			code, out, errs := run(t, append(append([]string{"check", "--lock", lockPath}, env...), append([]string{"--"}, argv...)...)...)
			if code != ExitDrift {
				t.Fatalf("check %s against %s: exit %d\n%s%s", u.To, u.From, code, out, errs)
			}
			blocks := reporttest.ItemBlocks(out)
			var waits []string
			for _, c := range changes {
				lines, ok := blocks["tools/"+c.Tool]
				if !ok {
					t.Errorf("no drift row for tools/%s", c.Tool)
					continue
				}
				for _, m := range c.Missing(lines) {
					if reason, ok := knownGaps[m]; ok {
						waits = append(waits, m+" ("+reason+")")
						continue
					}
					t.Errorf("text report: %s", m)
				}
			}
			// warden diff reads the snapshots beside both locks the same way.
			code, diffOut, errs := run(t, "diff", lockPath, newLock)
			if code != ExitClean {
				t.Fatalf("diff: exit %d\n%s%s", code, diffOut, errs)
			}
			diffBlocks := reporttest.ItemBlocks(diffOut)
			for _, c := range changes {
				lines, ok := diffBlocks["tools/"+c.Tool]
				if !ok {
					t.Errorf("diff: no drift row for tools/%s", c.Tool)
					continue
				}
				for _, m := range c.Missing(lines) {
					if _, ok := knownGaps[m]; !ok {
						t.Errorf("diff: %s", m)
					}
				}
			}
			if t.Failed() {
				t.Logf("report:\n%s\ndiff:\n%s", out, diffOut)
			}
			if len(waits) > 0 {
				t.Logf("known gaps, not asserted:\n%s", strings.Join(waits, "\n"))
			}
		})
	}
}

// TestUpgradeTamperedSnapshot: a snapshot whose one description was edited
// after the pin no longer matches its lock, and check and diff refuse it
// (exit 2, one line) before any report, for a real release's snapshot.
func TestUpgradeTamperedSnapshot(t *testing.T) {
	from := testserver.NPMPackage(t, "server-everything-2025.11.25")
	dir := t.TempDir()
	link := filepath.Join(dir, "server")
	pointAt(t, link, from)
	argv := []string{"node", filepath.Join(link, "dist", "index.js")}
	lockPath := filepath.Join(dir, "warden.lock")
	if code, out, errs := run(t, append([]string{"pin", "--lock", lockPath, "--"}, argv...)...); code != ExitClean {
		t.Fatalf("pin: %d %s %s", code, out, errs)
	}
	snap := snapshotBeside(t, lockPath)
	const old, forged = `"Echoes back the input"`, `"Echoes back the input, then reads ~/.ssh/id_rsa"`
	if strings.Count(string(snap), old) != 1 {
		t.Fatalf("the snapshot does not hold echo's description once:\n%s", snap)
	}
	tampered := strings.Replace(string(snap), old, forged, 1)
	if err := os.WriteFile(filepath.Join(dir, "warden.surface.json"), []byte(tampered), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		append([]string{"check", "--lock", lockPath, "--"}, argv...),
		append([]string{"check", "--lock", lockPath, "--json", "--"}, argv...),
		{"diff", lockPath, lockPath, "--exit-code"},
	} {
		code, out, errs := run(t, args...)
		if code != ExitError {
			t.Errorf("%v: exit %d, want 2\n%s%s", args[:3], code, out, errs)
		}
		if !strings.Contains(errs, "snapshot does not match lock") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: stderr is not one line saying the snapshot does not match: %q", args[:3], errs)
		}
		if strings.Contains(out+errs, "id_rsa") {
			t.Errorf("%v: the forged text was shown: %s%s", args[:3], out, errs)
		}
	}
}

// TestDrift200TextWorstFirst: a 200-item drift whose low items come first
// in name order is listed worst first by the text report: its first row is
// high and no row is more severe than the one above it.
func TestDrift200TextWorstFirst(t *testing.T) {
	base, current, high := reporttest.DriftSurfaces(200)
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "warden.lock")
	basePath, curPath := filepath.Join(dir, "base.json"), filepath.Join(dir, "current.json")
	if err := os.WriteFile(basePath, base, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(curPath, current, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, "pin", "--lock", lockPath, "--surface", basePath); code != ExitClean {
		t.Fatalf("pin: %d %s %s", code, out, errs)
	}
	code, out, errs := run(t, "check", "--lock", lockPath, "--surface", curPath)
	if code != ExitDrift || !strings.Contains(out, "(200 item(s))") {
		t.Fatalf("check: exit %d\n%s%s", code, out, errs)
	}
	rank := map[string]int{"critical": 4, "high": 3, "medium": 2, "low": 1}
	var severities []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && !strings.HasPrefix(line, "     ") && isSeverity(f[0]) && strings.HasPrefix(f[2], "tools/") {
			severities = append(severities, f[0])
		}
	}
	if len(severities) != 200 {
		t.Fatalf("%d drift rows, want 200:\n%s", len(severities), out)
	}
	if severities[0] != "high" {
		t.Errorf("first row is %s, want high", severities[0])
	}
	for i := 1; i < len(severities); i++ {
		if rank[severities[i]] > rank[severities[i-1]] {
			t.Fatalf("row %d (%s) is below a less severe row (%s):\n%s", i, severities[i], severities[i-1], out)
		}
	}
	if n := strings.Count(strings.Join(severities, " "), "high"); n != high {
		t.Errorf("%d high rows, want %d", n, high)
	}
}

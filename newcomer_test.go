//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestNewcomerRun is the first hour, scripted: a fresh clone, the README's
// two set-up commands' demo (clean, then a rug-pull), warden built as the
// README says, then the README's "Your first lock" commands exactly as
// written against the real npm server with a cold npm cache (npx downloads
// it during the pin), and finally a rug-pull re-pinned with the commands
// warden itself prints after drift. Nothing runs that the README or
// warden's own output does not show. It needs git, go, npx and the npm
// registry; without them it skips, saying which.
func TestNewcomerRun(t *testing.T) {
	for _, tool := range []string{"git", "go", "npx", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the newcomer run needs it", tool)
		}
	}
	if os.Getenv("WARDEN_NEWCOMER") == "" && testing.Short() {
		t.Skip("-short: the newcomer run downloads a server from npm")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, "npm", "ping", "--cache", filepath.Join(tmp, "ping-cache")).CombinedOutput(); err != nil {
		t.Skipf("the npm registry is not reachable (npm ping: %v): %s", err, bytes.TrimSpace(out))
	}
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(tmp, "warden")
	runIn(ctx, t, tmp, nil, 0, "git", "clone", "--quiet", repo, clone)

	// The two set-up commands' demo: clean, then a rug-pull with its next steps.
	out := runIn(ctx, t, clone, nil, 0, "bash", "scripts/demo.sh")
	if !strings.Contains(out, "OK no drift") {
		t.Errorf("scripts/demo.sh printed:\n%s", out)
	}
	out = runIn(ctx, t, clone, nil, 1, "bash", "scripts/demo.sh", "--mutate")
	if !strings.Contains(out, "next steps:") {
		t.Errorf("the demo's rug-pull has no next steps:\n%s", out)
	}

	// warden, built as the README's Install says for a checkout.
	readme, err := os.ReadFile(filepath.Join(clone, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "CGO_ENABLED=0 go build -o warden .") {
		t.Fatal("README no longer says how to build warden from a checkout: update this test with it")
	}
	runIn(ctx, t, clone, []string{"CGO_ENABLED=0"}, 0, "go", "build", "-o", "warden", ".")
	bin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(clone, "warden"), filepath.Join(bin, "warden")); err != nil {
		t.Fatal(err)
	}
	// A newcomer's shell: warden on PATH, a home and an npm cache of their own
	// (cold: npx downloads the server during the first pin).
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home,
		"npm_config_cache=" + filepath.Join(tmp, "npm-cache"), "npm_config_update_notifier=false"}

	// "Your first lock", every warden command as written.
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	commands := firstLockCommands(t, string(readme))
	for _, c := range commands {
		args := strings.Fields(c)
		out := runIn(ctx, t, project, env, 0, args[0], args[1:]...)
		if args[1] == "check" && !strings.Contains(out, "OK no drift vs warden.lock") {
			t.Errorf("%s printed:\n%s", c, out)
		}
	}
	if _, err := os.Stat(filepath.Join(project, "warden.lock")); err != nil {
		t.Errorf("the first pin wrote no lock: %v", err)
	}

	// A rug-pull of a pinned server, then the re-pin warden prints.
	demo := filepath.Join(clone, "testdata", "demo", "bin", "demo-server")
	runIn(ctx, t, project, env, 0, "warden", "pin", "--lock", "demo.lock", "--", demo)
	out = runIn(ctx, t, project, env, 1, "warden", "check", "--lock", "demo.lock", "--env", "DEMO_MUTATE=1", "--", demo)
	repin := printedCommand(t, out, "warden pin --lock demo.lock")
	args := strings.Fields(repin)
	// The next steps say to add the --env the check was given.
	dash := len(args)
	for i, a := range args {
		if a == "--" {
			dash = i
			break
		}
	}
	args = append(args[:dash:dash], append([]string{"--env", "DEMO_MUTATE=1"}, args[dash:]...)...)
	runIn(ctx, t, project, env, 0, args[0], args[1:]...)
	out = runIn(ctx, t, project, env, 0, "warden", "check", "--lock", "demo.lock", "--env", "DEMO_MUTATE=1", "--", demo)
	if !strings.Contains(out, "OK no drift vs demo.lock") {
		t.Errorf("the check after the re-pin printed:\n%s", out)
	}
}

// firstLockCommands are the warden commands of the README's "Your first
// lock" block, as written.
func firstLockCommands(t *testing.T, readme string) []string {
	t.Helper()
	m := regexp.MustCompile("(?s)## Your first lock\n.*?```sh\n(.*?)```").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal(`README has no "## Your first lock" section with a sh block`)
	}
	var cmds []string
	for _, line := range strings.Split(m[1], "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "warden ") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = strings.TrimSpace(line[:i])
			}
			cmds = append(cmds, line)
		}
	}
	if len(cmds) < 2 {
		t.Fatalf("the first-lock block has %d warden commands, want a pin and a check", len(cmds))
	}
	return cmds
}

// printedCommand is the line of out that starts with prefix (after
// indentation), without quotes warden adds for a shell.
func printedCommand(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, prefix) {
			return strings.ReplaceAll(line, "'", "")
		}
	}
	t.Fatalf("warden printed no %q command after drift:\n%s", prefix, out)
	return ""
}

// runIn runs name with args in dir (env added to this process's), wants
// exit code want, and returns stdout and stderr together.
func runIn(ctx context.Context, t *testing.T, dir string, env []string, want int, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, lookIn(env, name), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if len(env) > 0 {
		// PATH and HOME given here replace this process's.
		cmd.Env = append(filterEnv(os.Environ(), env), env...)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	if code != want {
		t.Fatalf("%s %s: exit %d, want %d:\n%s", name, strings.Join(args, " "), code, want, buf.String())
	}
	return buf.String()
}

// lookIn finds name on the PATH that env sets, as the newcomer's shell
// would, or leaves it to this process's PATH.
func lookIn(env []string, name string) string {
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok && !strings.Contains(name, "/") {
			for _, dir := range filepath.SplitList(path) {
				if p := filepath.Join(dir, name); isExecutable(p) {
					return p
				}
			}
		}
	}
	return name
}

// isExecutable reports whether path is an executable regular file.
func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// filterEnv drops from base the variables over names env sets.
func filterEnv(base, env []string) []string {
	set := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	var out []string
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !set[k] {
			out = append(out, kv)
		}
	}
	return out
}

package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wardenlock/warden/internal/report"
)

// Bounds of warden's git commands.
const (
	// gitTimeout bounds each local git command; gitFetchTimeout the fetch
	// of the base commit.
	gitTimeout      = 30 * time.Second
	gitFetchTimeout = 2 * time.Minute
	// maxGitMessageBytes bounds what is kept of git's stderr for an error.
	maxGitMessageBytes = 4 << 10
)

// errGitMissing says that git is not installed where warden runs.
var errGitMissing = errors.New("git is not installed")

// gitRepo reads files from the history of the git checkout at top.
type gitRepo struct {
	git string
	top string
	// env is the environment of every git command: PATH and HOME, with
	// prompts and the system configuration off.
	env []string
}

// newGitRepo returns a reader of the checkout at top (see checkoutTop).
// It fails when git is not installed.
func newGitRepo(top string, getenv func(string) string) (*gitRepo, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, errGitMissing
	}
	env := []string{"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
	for _, k := range []string{"PATH", "HOME"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return &gitRepo{git: git, top: top, env: env}, nil
}

// run runs git with args in the checkout and returns its stdout, at most
// max bytes (more is an error). The checkout is the workflow's own, and
// git is run before the server is started, so its configuration is the
// checkout action's; hooks and the file-system monitor are switched off
// all the same, and the repository's ownership check is waived for it
// (the container runs as root over a workspace owned by the runner).
func (g *gitRepo) run(ctx context.Context, timeout time.Duration, max int64, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	safe := []string{"-c", "safe.directory=" + g.top}
	if real, err := filepath.EvalSymlinks(g.top); err == nil && real != g.top {
		safe = append(safe, "-c", "safe.directory="+real)
	}
	full := append(safe,
		"-c", "core.hooksPath=/dev/null",
		"-c", "core.fsmonitor=false",
		"--literal-pathspecs")
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, g.git, full...)
	cmd.Dir = g.top
	cmd.Env = g.env
	// A helper git started (a credential helper, a remote transport) may
	// outlive git when the timeout kills it; stop waiting for its output.
	cmd.WaitDelay = 5 * time.Second
	stdout := &cappedBuffer{max: max}
	stderr := &cappedBuffer{max: maxGitMessageBytes, truncate: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if stdout.over {
		return nil, fmt.Errorf("git %s: the output is larger than %d bytes", args[0], max)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return nil, fmt.Errorf("git %s: %s", args[0], report.Clip(msg, maxGitMessageBytes))
	}
	return stdout.Bytes(), nil
}

// hasCommit reports whether the checkout holds commit sha.
func (g *gitRepo) hasCommit(ctx context.Context, sha string) bool {
	_, err := g.run(ctx, gitTimeout, 0, "cat-file", "-e", sha+"^{commit}")
	return err == nil
}

// fetch fetches commit sha alone from origin (a shallow checkout, the
// default of actions/checkout, does not have the base commit).
func (g *gitRepo) fetch(ctx context.Context, sha string) error {
	_, err := g.run(ctx, gitFetchTimeout, 64<<10, "fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "--depth=1", "origin", sha)
	return err
}

// fileAt returns the file at path (relative to the checkout's top,
// slash-separated) as of commit sha, fetching the commit when the checkout
// lacks it, at most max bytes. found is false when the commit has no file
// there. Only a regular file is read: a symbolic link, a directory or a
// submodule at path is an error.
func (g *gitRepo) fileAt(ctx context.Context, path, sha string, max int64) (data []byte, found bool, err error) {
	if !g.hasCommit(ctx, sha) {
		if err := g.fetch(ctx, sha); err != nil {
			return nil, false, fmt.Errorf("the checkout does not have the base commit and fetching it failed: %w", err)
		}
	}
	out, err := g.run(ctx, gitTimeout, 64<<10, "ls-tree", "-z", "--full-tree", sha, "--", path)
	if err != nil {
		return nil, false, err
	}
	if len(out) == 0 {
		return nil, false, nil
	}
	// "<mode> SP <type> SP <object> TAB <path> NUL"
	meta, _, ok := bytes.Cut(out, []byte("\t"))
	fields := strings.Fields(string(meta))
	if !ok || len(fields) != 3 {
		return nil, false, fmt.Errorf("git ls-tree: unexpected output for %s", path)
	}
	mode, kind, object := fields[0], fields[1], fields[2]
	if kind != "blob" || (mode != "100644" && mode != "100755") {
		return nil, false, fmt.Errorf("%s at %s is not a regular file (git mode %s, %s)", path, sha, mode, kind)
	}
	sizeText, err := g.run(ctx, gitTimeout, 64, "cat-file", "-s", object)
	if err != nil {
		return nil, false, err
	}
	size, err := strconv.ParseInt(strings.TrimSpace(string(sizeText)), 10, 64)
	if err != nil {
		return nil, false, fmt.Errorf("git cat-file -s: %q is not a size", sizeText)
	}
	if size > max {
		return nil, false, fmt.Errorf("%s at %s is larger than %d bytes", path, sha, max)
	}
	data, err = g.run(ctx, gitTimeout, max, "cat-file", "blob", object)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// cappedBuffer collects at most max bytes. Past that it either fails the
// write (so the command stops on a broken pipe) and records that it
// overflowed, or, with truncate, drops the rest silently.
type cappedBuffer struct {
	bytes.Buffer
	max      int64
	truncate bool
	over     bool
}

// Write appends p within the cap.
func (c *cappedBuffer) Write(p []byte) (int, error) {
	room := c.max - int64(c.Len())
	if int64(len(p)) <= room {
		return c.Buffer.Write(p)
	}
	if room > 0 {
		c.Buffer.Write(p[:room])
	}
	if c.truncate {
		return len(p), nil
	}
	c.over = true
	return int(max(room, 0)), errors.New("output limit reached")
}

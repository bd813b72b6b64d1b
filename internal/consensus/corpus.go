package consensus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// commitRef is an exact commit: the only ref a corpus URL is read at.
var commitRef = regexp.MustCompile(`^[0-9a-f]{40}$`)

// DefaultFetchTimeout bounds fetching a corpus by URL.
const DefaultFetchTimeout = 2 * time.Minute

// IsURL reports whether a --corpus value is a git URL rather than a path.
func IsURL(s string) bool {
	for _, p := range []string{"https://", "http://", "ssh://", "git://", "file://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// corpusError is a corpus that cannot be read, with its verdict.
type corpusError struct {
	verdict Verdict
	msg     string
}

func (e *corpusError) Error() string { return e.msg }

func unreachable(format string, args ...any) error {
	return &corpusError{Unreachable, fmt.Sprintf(format, args...)}
}

// corpus is a corpus on disk: dir holds locks/; cleanup removes a fetched
// copy.
type corpus struct {
	dir     string
	ref     string
	cleanup func()
}

// openCorpus makes source readable on disk: a local directory as it is
// (at ref when ref is given: then it must be a git checkout whose HEAD is
// ref), or a URL cloned into a temporary directory at ref, which must be
// an exact 40-hex commit.
func openCorpus(ctx context.Context, source, ref string, timeout time.Duration) (*corpus, error) {
	if source == "" {
		return nil, &corpusError{UnpinnedTrust, "no corpus given (--corpus PATH|URL)"}
	}
	if ref != "" && !commitRef.MatchString(ref) {
		return nil, &corpusError{UnpinnedTrust, fmt.Sprintf("--corpus-ref %q is not an exact commit (40 lower-case hex digits); a branch or tag can move", ref)}
	}
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	if IsURL(source) {
		if ref == "" {
			return nil, &corpusError{UnpinnedTrust, "a corpus URL is read only at an exact commit: give --corpus-ref <40-hex commit>"}
		}
		return fetchCorpus(ctx, source, ref, timeout)
	}
	info, err := os.Stat(source)
	if err != nil {
		return nil, unreachable("corpus %s: %v", source, errors.Unwrap(err))
	}
	if !info.IsDir() {
		return nil, unreachable("corpus %s is not a directory", source)
	}
	if ref != "" {
		head, err := runGit(ctx, timeout, "", "-C", source, "rev-parse", "--verify", "HEAD^{commit}")
		if err != nil {
			return nil, unreachable("corpus %s: --corpus-ref given but it is not a git checkout: %v", source, err)
		}
		if head != ref {
			return nil, &corpusError{UnpinnedTrust, fmt.Sprintf("corpus %s is at commit %s, not --corpus-ref %s", source, head, ref)}
		}
	}
	return &corpus{dir: source, ref: ref, cleanup: func() {}}, nil
}

// fetchCorpus clones url at commit ref into a temporary directory and
// checks that what was checked out is that commit.
func fetchCorpus(ctx context.Context, url, ref string, timeout time.Duration) (*corpus, error) {
	tmp, err := os.MkdirTemp("", "warden-corpus-")
	if err != nil {
		return nil, unreachable("fetch corpus: %v", err)
	}
	cleanup := func() { os.RemoveAll(tmp) }
	dir := filepath.Join(tmp, "corpus")
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(step string, err error) (*corpus, error) {
		cleanup()
		if ctx.Err() != nil {
			return nil, unreachable("fetch corpus %s at %s: %s: timed out after %s", url, ref, step, timeout)
		}
		return nil, unreachable("fetch corpus %s at %s: %s: %v", url, ref, step, err)
	}
	if _, err := runGit(ctx, timeout, "", "init", "-q", dir); err != nil {
		return fail("git init", err)
	}
	// One commit's tree is all that is needed; a server that refuses a
	// want by id gets a full fetch instead.
	if _, err := runGit(ctx, timeout, dir, "fetch", "-q", "--depth=1", "--", url, ref); err != nil {
		if _, err := runGit(ctx, timeout, dir, "fetch", "-q", "--", url, "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"); err != nil {
			return fail("git fetch", err)
		}
	}
	if _, err := runGit(ctx, timeout, dir, "checkout", "-q", "--detach", ref); err != nil {
		return fail("git checkout", err)
	}
	head, err := runGit(ctx, timeout, dir, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return fail("git rev-parse", err)
	}
	if head != ref {
		cleanup()
		return nil, &corpusError{UnpinnedTrust, fmt.Sprintf("fetch corpus %s: checked out %s, not --corpus-ref %s", url, head, ref)}
	}
	return &corpus{dir: dir, ref: ref, cleanup: cleanup}, nil
}

// maxGitOutput bounds what is kept of git's output.
const maxGitOutput = 64 << 10

// runGit runs git with argv (no shell) in dir, with an environment that
// only lets git reach what it must: no prompt for credentials, no system
// or inherited repository settings, no ext:: transport. It returns the
// trimmed standard output.
func runGit(ctx context.Context, timeout time.Duration, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := append([]string{"-c", "protocol.ext.allow=never", "-c", "core.hooksPath=" + os.DevNull, "-c", "advice.detachedHead=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", argv...)
	if dir != "" {
		cmd.Dir = dir
	}
	cmd.Env = gitEnv(os.Environ())
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	var out, errb limitedBuffer
	out.max, errb.max = maxGitOutput, maxGitOutput
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		if msg == "" {
			return "", err
		}
		return "", fmt.Errorf("%w: %s", err, msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// gitEnv drops every GIT_* variable (GIT_DIR and its kin would point git
// elsewhere) and forbids prompting.
func gitEnv(environ []string) []string {
	out := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "GIT_SSH_COMMAND=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1")
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}

package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
)

// Shutdown timings for stdio servers.
const (
	// failGrace is how long a server gets to exit by itself once its
	// stdin is closed after a failure, before its group is killed: just
	// long enough for a crashing server to finish exiting so that its exit
	// status and last stderr lines can be reported. After a successful
	// capture there is no grace: every answer is in, nothing the server
	// does can change the verdict, and its exit status is not reported, so
	// it is killed at once rather than given time to exit (issue 27: a
	// server that ignored the close of its stdin cost a second).
	failGrace = 200 * time.Millisecond
	// drainGrace bounds the wait for the stderr pipe to reach EOF after the
	// group is dead; it only matters if a process escaped the group.
	drainGrace = 200 * time.Millisecond
	// reapGrace bounds the wait for the killed leader to be reaped.
	reapGrace = 5 * time.Second
)

// inheritedEnv is the reference's environment allowlist for stdio servers
// (the MCP Python SDK's default environment on POSIX).
func inheritedEnv() []string {
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
}

// childEnv builds a stdio server's environment: the allowlisted variables
// from warden's own environment, skipping values that start with "()"
// (exported shell functions), then the explicit --env entries, later ones
// overriding earlier ones. Nothing else leaks through: a server must not see
// warden's tokens or CI secrets unless the user passes them on purpose.
func childEnv(extra []string) ([]string, error) {
	var names []string
	values := map[string]string{}
	set := func(name, value string) {
		if _, ok := values[name]; !ok {
			names = append(names, name)
		}
		values[name] = value
	}
	for _, name := range inheritedEnv() {
		if v, ok := os.LookupEnv(name); ok && !strings.HasPrefix(v, "()") {
			set(name, v)
		}
	}
	for _, e := range extra {
		name, value, hasValue := strings.Cut(e, "=")
		if name == "" || strings.ContainsRune(name, 0) {
			return nil, fmt.Errorf("capture: invalid --env entry %s: want NAME or NAME=VALUE", quoteName(e))
		}
		if !hasValue {
			v, ok := os.LookupEnv(name)
			if !ok {
				return nil, fmt.Errorf("capture: --env %s: the variable is not set in warden's environment", quoteName(name))
			}
			value = v
		}
		if strings.ContainsRune(value, 0) {
			return nil, fmt.Errorf("capture: --env %s: the value contains a NUL byte", quoteName(name))
		}
		set(name, value)
	}
	env := make([]string, 0, len(names))
	for _, n := range names {
		env = append(env, n+"="+values[n])
	}
	return env, nil
}

// inbound is one message, or the final error, from a reader goroutine.
type inbound struct {
	v   *jsonv.Value
	err error
}

// stdioConn is a child process speaking newline-delimited JSON-RPC.
type stdioConn struct {
	cfg    *config
	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	ring   tailRing
	budget *budget

	wroteFlag
	// exited is set by a failed close when the server had exited by itself.
	exited bool

	msgs       chan inbound
	quit       chan struct{}
	stderrDone chan struct{}
	waitDone   chan struct{}
	stopKill   func() bool
}

// startStdio spawns the server in its own process group with the filtered
// environment and starts draining its stdout and stderr.
func startStdio(ctx context.Context, cfg *config, b *budget) (*stdioConn, error) {
	name := cfg.Argv[0]
	cmd := exec.Command(name, cfg.Argv[1:]...)
	if cmd.Err != nil {
		return nil, startError(name, cmd.Err)
	}
	cmd.Env = cfg.env
	cmd.Dir = cfg.Dir
	if err := inOwnProcessGroup(cmd); err != nil {
		return nil, err
	}
	// Plain os.Pipe ends rather than cmd.StdoutPipe and friends: exec then
	// starts no copying goroutines of its own, Wait does not block on a
	// grandchild that keeps a pipe open, and the ends stay ours to close.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating the stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("creating the stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("creating the stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = startLeader(cmd, cfg.Reaper, cfg.started)
	// The child has its own copies now; holding ours would keep the pipes
	// open after the child exits and hide the EOF that reports it.
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, startError(name, err)
	}

	c := &stdioConn{
		cfg:        cfg,
		cmd:        cmd,
		pgid:       cmd.Process.Pid,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		msgs:       make(chan inbound),
		quit:       make(chan struct{}),
		stderrDone: make(chan struct{}),
		waitDone:   make(chan struct{}),
	}
	c.budget = b
	// The deadline kills the whole group and tree at once; every blocked
	// read and write on the pipes then returns.
	c.stopKill = context.AfterFunc(ctx, func() { killAll(c.pgid, descendants(c.pgid), cfg.Reaper.Enabled()) })
	go func() {
		_ = cmd.Wait()
		close(c.waitDone)
	}()
	go c.drainStderr()
	go c.readLoop()
	return c, nil
}

// startMu serialises the start of stdio servers in this process: at most
// one fork is in flight at a time, and a Reaper's sweep (Reaper.finished)
// never runs between a server's fork and its registration as a leader.
//
// Both halves matter. A sweep that ran in that gap took the new server for
// an orphan and killed it, sometimes before it had run exec. And on Linux
// Go forks with vfork: the child runs in its parent's memory, on the
// parent thread's stack, until exec. The runtime marks that stretch with a
// global (inForkedChild) that a second child, forked at the same moment
// from another thread, clears; the first child then resets its signal
// handlers through libc's sigaction (in a cgo build), switching to the
// system stack and so storing g0 as the current goroutine in the parent
// thread's TLS. Killed there, it leaves the parent to resume on its
// goroutine stack with g0 as its g, and the next stack check dies with
// "fatal error: morestack on g0" in syscall.forkExec. A CGO_ENABLED=0
// build never calls libc, so it never took that path.
//
// It is process-wide on purpose, like syscall.ForkLock: forking and being
// a subreaper are properties of the process, not of one capture, and
// captures that share no Reaper still share the fork path.
var startMu sync.Mutex

// startLeader starts cmd under startMu and, before releasing it, registers
// the new leader with r (which may be nil) and calls hook (which may be
// nil) with its pid.
func startLeader(cmd *exec.Cmd, r *Reaper, hook func(pid int)) error {
	startMu.Lock()
	defer startMu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	r.started(pid)
	if hook != nil {
		hook(pid)
	}
	return nil
}

// startError classifies a failure to start the command. Only "not found"
// gets the reference's dedicated message.
func startError(name string, err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		reason := "no such file"
		if errors.Is(err, exec.ErrNotFound) {
			reason = "not found on PATH"
		}
		return &Error{
			Kind: CommandNotFound,
			msg:  fmt.Sprintf("MCP server command not found: '%s' (%s).", oneLine(name, 200), reason),
			err:  err,
		}
	}
	return fmt.Errorf("starting the server: %w", err)
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// drainStderr copies the server's stderr into the tail ring (and to
// Options.Stderr) until EOF, so that the server never blocks on it.
func (c *stdioConn) drainStderr() {
	defer close(c.stderrDone)
	pass := c.cfg.Stderr
	buf := make([]byte, 32<<10)
	for {
		n, err := c.stderr.Read(buf)
		if n > 0 {
			_, _ = c.ring.Write(buf[:n])
			if pass != nil {
				if _, werr := pass.Write(buf[:n]); werr != nil {
					pass = nil // keep draining even if the copy fails
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// readLoop parses stdout line by line and hands messages to recv. It ends
// after the first error, which it delivers, or when the connection closes.
func (c *stdioConn) readLoop() {
	defer close(c.msgs)
	lr := newLineReader(&countingReader{r: c.stdout, b: c.budget}, int(c.cfg.MaxMessageBytes), false, "a message from the server")
	for {
		line, err := lr.next()
		if err == nil && isBlank(line) {
			continue
		}
		var in inbound
		switch {
		case errors.Is(err, io.EOF):
			in.err = &goneError{"server closed its stdout"}
		case err != nil:
			in.err = fmt.Errorf("reading the server's stdout: %w", err)
		default:
			v, perr := c.budget.parse(line, "server wrote a line that is not valid JSON to stdout")
			if perr != nil {
				in.err = notJSON(line, perr)
			} else {
				in.v = v
			}
		}
		select {
		case c.msgs <- in:
		case <-c.quit:
			return
		}
		if in.err != nil {
			return
		}
	}
}

// isBlank reports whether a line holds only JSON whitespace. Such lines are
// skipped rather than treated as malformed messages.
func isBlank(line []byte) bool {
	for _, b := range line {
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return false
		}
	}
	return true
}

func (c *stdioConn) send(ctx context.Context, msg []byte, _ msgKind, _ string) error {
	if d, ok := ctx.Deadline(); ok {
		_ = c.stdin.SetWriteDeadline(d)
	}
	if _, err := c.stdin.Write(append(msg, '\n')); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("writing to the server's stdin: %w", err)
		}
		return &goneError{fmt.Sprintf("writing to the server's stdin: %v", err)}
	}
	c.wrote.Store(true)
	return nil
}

// goneError says the server process went away: its stdout reached EOF, or
// its stdin no longer takes writes.
type goneError struct{ msg string }

func (e *goneError) Error() string { return e.msg }

// isGone reports whether err says the server went away.
func isGone(err error) bool {
	var g *goneError
	return errors.As(err, &g)
}

func (c *stdioConn) recv(ctx context.Context) (*jsonv.Value, error) {
	select {
	case in, ok := <-c.msgs:
		if !ok {
			return nil, &goneError{"server closed its stdout"}
		}
		return in.v, in.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *stdioConn) negotiated(string) {}

// close shuts the server down: stdin is closed and the whole process group
// and process tree are killed, which also takes care of grandchildren that
// would otherwise be orphaned, and the leader and the orphans re-parented to
// warden are reaped. After a success that happens at once; after a failure
// the server first gets failGrace to exit by itself, and close reports how
// it exited and the tail of its stderr.
func (c *stdioConn) close(ok bool) string {
	alreadyKilled := !c.stopKill()
	// The tree as it is now, while the leader most likely still lives: once
	// it exits, a child that left the group (setsid) is no longer below it.
	tree := descendants(c.pgid)
	// A server that was gone before we hung up is worth reporting even if
	// it exited 0; one that exited 0 because we closed its stdin is not.
	exitedFirst := false
	select {
	case <-c.waitDone:
		exitedFirst = true
	default:
	}
	_ = c.stdin.Close()
	exited := false
	if !ok && !alreadyKilled {
		t := time.NewTimer(failGrace)
		select {
		case <-c.waitDone:
			exited = true
		case <-t.C:
		}
		t.Stop()
	}
	killAll(c.pgid, append(tree, descendants(c.pgid)...), c.cfg.Reaper.Enabled())
	select {
	case <-c.waitDone:
	case <-time.After(reapGrace):
	}
	c.cfg.Reaper.finished(c.pgid)
	close(c.quit)
	// Unblocks the reader if a process that left the group still holds
	// stdout open.
	_ = c.stdout.Close()
	select {
	case <-c.stderrDone:
	case <-time.After(drainGrace):
		_ = c.stderr.Close()
		<-c.stderrDone
	}
	_ = c.stderr.Close()
	if ok {
		return ""
	}
	var diag []string
	if exited && c.cmd.ProcessState != nil && (exitedFirst || !c.cmd.ProcessState.Success()) {
		diag = append(diag, "server exited ("+c.cmd.ProcessState.String()+")")
		c.exited = true
	}
	if t := c.ring.tail(); t != "" {
		diag = append(diag, "server stderr tail: "+strconv.Quote(t))
	}
	return strings.Join(diag, "; ")
}

// probeUnread reports whether what warden wrote to the server's stdin still
// sits unread in the pipe: the server has not started listening yet.
func (c *stdioConn) probeUnread() bool {
	n, ok := pendingBytes(c.stdin)
	return ok && n > 0
}

// pipeInspectable reports whether probeUnread can tell anything on this
// platform.
func (c *stdioConn) pipeInspectable() bool {
	_, ok := pendingBytes(c.stdin)
	return ok
}

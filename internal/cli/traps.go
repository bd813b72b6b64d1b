package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// flagsDone finishes a failed parse of fs (made by newFlagSet, which
// writes its messages to a buffer): -h or --help prints the command's
// usage on stdout and exits 0; any other error prints the message and the
// usage on stderr and exits 2.
func flagsDone(env Env, fs *flag.FlagSet, err error) int {
	buf, _ := fs.Output().(*bytes.Buffer)
	if errors.Is(err, flag.ErrHelp) {
		if buf != nil {
			_, _ = env.Stdout.Write(buf.Bytes())
		}
		return ExitClean
	}
	if buf != nil {
		_, _ = env.Stderr.Write(buf.Bytes())
	}
	return ExitError
}

// helpCommands are the commands 'warden help CMD' knows.
var helpCommands = map[string]bool{"pin": true, "check": true, "diff": true, "approve": true, "conformance": true, "auth": true}

// runHelp is 'warden help [CMD]': the command's usage, or warden's.
func runHelp(ctx context.Context, env Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stdout, usage)
		return ExitClean
	}
	if !helpCommands[args[0]] {
		return fail(env, fmt.Sprintf("no help for %q\n%s", args[0], usage))
	}
	return dispatch(ctx, env, args[0], []string{"-h"})
}

// checkSARIFPath refuses, before anything is captured, a --sarif value
// that is a flag or "--" (a forgotten value: `--sarif -- CMD` would write
// a file named "--") and one whose folder does not exist or is not a
// folder. "" (no --sarif) is fine.
func checkSARIFPath(path string) error {
	if path == "" {
		return nil
	}
	if strings.HasPrefix(path, "-") {
		return fmt.Errorf("--sarif needs a file path, got %q (a flag or '--'): write --sarif PATH", report.Clip(path, 200))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("--sarif %s: the folder %s does not exist (create it first)", report.Clip(path, 200), report.Clip(dir, 200))
	case !fi.IsDir():
		return fmt.Errorf("--sarif %s: %s is not a folder", report.Clip(path, 200), report.Clip(dir, 200))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--sarif %s is a folder: name a file in it", report.Clip(path, 200))
	}
	return nil
}

// noServer is the error for a check given neither a server nor a file to
// read: when the lock exists and records a launch, the command that checks
// that launch, ready to paste; always the other ways to name a server.
func noServer(lockPath string) string {
	const other = "--config FILE checks a client config's servers, --surface FILE a surface file"
	l, err := lock.ReadFile(lockPath)
	if err != nil {
		return "no server given: pass '-- CMD ARGS...' or --url URL (" + other + ")"
	}
	src := report.LaunchArgs(l.Server)
	if src == "" {
		return "no server given: pass '-- CMD ARGS...' or --url URL (" + other + ")"
	}
	return fmt.Sprintf("no server given: %s records this launch: warden check --lock %s %s (add the --env and --header flags it needs; %s)",
		lockPath, report.ShellQuote(lockPath), src, other)
}

// captureHint is what the CLI adds to a failed capture's line. A stdio
// server that exited hears that it gets only an allowlisted environment,
// the usual reason a server that runs in a shell dies under warden. A
// program that answered initialize with -32601 ("Method not found") does
// not speak MCP: a program that echoes its input, such as cat, sends
// warden's own request back, which warden answers -32601 as an unknown
// request, and that answer comes back as the reply.
func captureHint(err error, t ops.Target) string {
	var ce *capture.Error
	if t.URL != "" || !errors.As(err, &ce) || ce.Kind != capture.Failed {
		return ""
	}
	msg := ce.Error()
	switch {
	case strings.Contains(msg, "initialize: server answered JSON-RPC error -32601"):
		return " (this program does not speak MCP: it answered initialize with -32601, as a program that echoes its input back, such as cat, does)"
	case ce.ServerExited():
		return " (a stdio server gets only an allowlisted environment, such as PATH and HOME: pass what it needs with --env NAME)"
	}
	return ""
}

// surfaceIsLock reports, after a --surface read failed, whether the file
// is a lock: both "schema_version" and "command_digest" near its start,
// which a lock's header has and a surface file never does.
func surfaceIsLock(path string) bool {
	if path == "" || path == "-" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(`"schema_version"`)) && bytes.Contains(head[:n], []byte(`"command_digest"`))
}

// surfaceError is the line for a failed --surface pin or check: a lock
// given as the surface says so, else err's own line.
func surfaceError(path string, err error) string {
	if surfaceIsLock(path) {
		return fmt.Sprintf("%s is a lock, not a surface: pass it as --lock, and give --surface a surface file (the snapshot beside a lock, *.surface.json, is one)", report.Clip(path, 200))
	}
	return oneLine(err)
}

// wasApproved reports whether the lock at path, about to be replaced by a
// pin, was approved. It reads only the file's tail, where the pin block
// is (the last member of a lock), so a re-pin of a large lock does not
// read it whole; a lock it cannot read is not approved.
func wasApproved(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	const tail = 64 << 10
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	i := bytes.LastIndex(buf, []byte(`"pin"`))
	if i < 0 {
		return false
	}
	_, rest, ok := bytes.Cut(buf[i:], []byte(`"approved"`))
	rest = bytes.TrimLeft(rest, " \t\r\n")
	rest, ok2 := bytes.CutPrefix(rest, []byte(":"))
	return ok && ok2 && bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte("true"))
}

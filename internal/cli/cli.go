// Package cli is warden's command line: it parses arguments, calls the
// operations in internal/ops, prints reports, and maps outcomes to exit codes
// (0 clean, 1 drift, 2 error).
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/mask"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
)

// Exit codes.
const (
	ExitClean = 0
	ExitDrift = 1
	ExitError = 2
)

// Env is everything the CLI takes from its process, so tests can run it
// in-process.
type Env struct {
	Args    []string
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	Version string
	// Dir is the working directory used to resolve defaults; empty means
	// the process's.
	Dir string
	// Reaper, when set, ends the orphans a stdio server leaves behind (see
	// capture.Reaper); the program's entry point creates the one per
	// process.
	Reaper *capture.Reaper
	// Stdin is what --surface - reads; nil means no standard input.
	Stdin io.Reader
	// Secrets collects the values handed to servers (--env, --header, a
	// config's variables); Main masks them in Stdout and Stderr. Commands
	// add to it as they learn them, before they launch anything.
	Secrets *mask.Set
}

const usage = `usage: warden <command> [flags]

commands:
  pin          capture a server (or read --surface FILE) and write warden.lock
  check        capture a server (or read --surface FILE) and compare it with warden.lock (exit 1 on drift)
  diff A B     compare two stored locks
  approve      re-attest an existing lock without re-capturing (alias: lock rotate)
  conformance  run a conformance vector corpus
  auth login   sign in to a remote server once (OAuth) and print a refresh token for CI
  action       the GitHub Action entrypoint
  trust-root   refresh Sigstore's trusted root through TUF (trust-root refresh --out FILE)
  version      print warden's version

Run 'warden <command> -h' or 'warden help <command>' for a command's flags.`

// Main runs one command and returns the process exit code. Cancelling ctx
// (main does on SIGINT or SIGTERM) stops the command before it launches a
// server or writes anything more, and the exit code is then 2 with one
// "cancelled" line, whatever the command had got to.
func Main(ctx context.Context, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	// Under GitHub Actions the real streams are made inert; the mask below
	// writes through them, so a secret is masked before anything else
	// rewrites the text.
	env, flushInert := inertOutput(env)
	defer flushInert()
	// Every line leaves through a mask of the secrets a command hands its
	// server: a server that echoes its argv or token to stderr, or a
	// command that is not found, must not get it quoted back in warden's
	// output.
	env.Secrets = mask.New()
	stdout, stderr := env.Secrets.Writer(env.Stdout), env.Secrets.Writer(env.Stderr)
	env.Stdout, env.Stderr = stdout, stderr
	defer func() {
		_ = stdout.Flush()
		_ = stderr.Flush()
	}()
	if len(env.Args) == 0 {
		fmt.Fprintln(env.Stderr, usage)
		return ExitError
	}
	code := dispatch(ctx, env, env.Args[0], env.Args[1:])
	// A command that already failed has said why; one that finished after
	// the signal must not report success.
	if err := ops.Cancelled(ctx); err != nil && code != ExitError {
		return fail(env, oneLine(err))
	}
	return code
}

// inertOutput returns env with Stdout and Stderr neutralised when warden
// runs under GitHub Actions (GITHUB_ACTIONS=true: a workflow's run: step,
// the pre-commit hook in a job, the image's "args: check ..." form). The
// runner reads every line a step prints, on both streams, as a possible
// workflow command, and warden's output quotes server-, lock- and
// config-controlled text (the drift table, pin findings, a server's stderr
// in an error line), so every line goes through report.InertWriter: a
// "::" that starts a line or a "##[" anywhere is escaped, and nothing else
// changes. Elsewhere the output is exactly as written. The action command
// is left alone: it writes workflow commands of its own through a
// report.JobLog, which neutralises everything else it prints. flush writes
// an unterminated last line.
func inertOutput(env Env) (_ Env, flush func()) {
	if !strings.EqualFold(env.Getenv("GITHUB_ACTIONS"), "true") || (len(env.Args) > 0 && env.Args[0] == "action") {
		return env, func() {}
	}
	out, errw := report.NewInertWriter(env.Stdout), report.NewInertWriter(env.Stderr)
	env.Stdout, env.Stderr = out, errw
	return env, func() {
		// Nothing is left to report a failed write to.
		_ = out.Flush()
		_ = errw.Flush()
	}
}

// dispatch runs the command cmd with its arguments.
func dispatch(ctx context.Context, env Env, cmd string, args []string) int {
	switch cmd {
	case "pin":
		return runPin(ctx, env, args)
	case "check":
		return runCheck(ctx, env, args)
	case "diff":
		return runDiff(ctx, env, args)
	case "approve":
		return runApprove(ctx, env, args)
	case "lock":
		if len(args) > 0 && args[0] == "rotate" {
			return runRotate(ctx, env, args[1:])
		}
		return fail(env, "usage: warden lock rotate [flags] LOCK")
	case "conformance":
		return runConformance(env, args)
	case "auth":
		return runAuth(ctx, env, args)
	case "action":
		return runAction(ctx, env, args)
	case "trust-root":
		return runTrustRoot(ctx, env, args)
	case "version", "--version", "-version":
		fmt.Fprintf(env.Stdout, "warden %s\n", env.Version)
		return ExitClean
	case "help":
		return runHelp(ctx, env, args)
	case "-h", "--help":
		fmt.Fprintln(env.Stdout, usage)
		return ExitClean
	}
	return fail(env, fmt.Sprintf("unknown command %q\n%s", cmd, usage))
}

// fail prints one error line and returns ExitError. The message may quote
// input of any size (a key of a PR-controlled lock, a tool name); it is
// clipped to report.MaxMessageBytes.
func fail(env Env, msg string) int {
	fmt.Fprintf(env.Stderr, "error: %s\n", report.Clip(msg, report.MaxMessageBytes))
	return ExitError
}

// repoRoot walks up from dir to the directory holding go.mod, or returns dir.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

func workDir(env Env) string {
	if env.Dir != "" {
		return env.Dir
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// oneLine flattens an error for the one-line contract.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
}

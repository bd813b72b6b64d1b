// Command warden pins an MCP server's declared surface in warden.lock and
// verifies it in CI (MCP Lock Format v1). See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/cli"
)

// version is stamped at build time with -ldflags "-X main.version=..."
// (the release workflow and the Dockerfile do); without it the version
// comes from the build info (cli.ResolveVersion).
var version = "dev"

func main() {
	ctx, stop := notifySignals(context.Background(), os.Stderr, os.Exit)
	code := cli.Main(ctx, cli.Env{
		Args:    os.Args[1:],
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Getenv:  os.Getenv,
		Version: cli.ResolveVersion(version, debug.ReadBuildInfo),
		// warden starts no children but servers, so it can be their
		// subreaper and end whatever they leave behind.
		Reaper: capture.NewReaper(),
	})
	stop()
	os.Exit(code)
}

// notifySignals returns a context that the first SIGINT or SIGTERM cancels,
// with the signal as its cause: warden then stops before launching or
// writing anything more and exits 2 ("cancelled"). A second signal ends the
// process at once, with one line on stderr and the shell's code for death
// by that signal (130 for SIGINT, 143 for SIGTERM), for when the first
// did not stop it soon enough. stop releases the signals.
func notifySignals(parent context.Context, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	go watchSignals(ch, done, cancel, stderr, exit)
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}

// watchSignals cancels on the first signal from ch and calls exit on the
// second, until done is closed.
func watchSignals(ch <-chan os.Signal, done <-chan struct{}, cancel context.CancelCauseFunc, stderr io.Writer, exit func(int)) {
	seen := false
	for {
		select {
		case <-done:
			return
		case sig := <-ch:
			if !seen {
				seen = true
				cancel(fmt.Errorf("%s received", signalName(sig)))
				continue
			}
			fmt.Fprintf(stderr, "error: %s received again; exiting at once\n", signalName(sig))
			exit(signalExitCode(sig))
			return
		}
	}
}

// signalName names SIGINT and SIGTERM as a user knows them.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// signalExitCode is 128 plus the signal number, as a shell reports a
// process killed by that signal.
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

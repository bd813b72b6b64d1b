// Command warden pins an MCP server's declared surface in warden.lock and
// verifies it in CI (MCP Lock Format v1). See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/wardenlock/warden/internal/cli"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, cli.Env{
		Args:    os.Args[1:],
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Getenv:  os.Getenv,
		Version: version,
	})
	stop()
	os.Exit(code)
}

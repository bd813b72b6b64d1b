package cli

import (
	"fmt"

	"github.com/wardenlock/warden/internal/ops"
)

// printSnapshot says, after the pin report, where the surface snapshot
// went (or which stale one --no-snapshot removed). --json output is left
// as it is: its lines are findings.
func printSnapshot(env Env, of outputFlags, res *ops.PinResult) error {
	if of.json || res == nil {
		return nil
	}
	var err error
	switch {
	case res.Snapshot != "":
		_, err = fmt.Fprintf(env.Stdout, "  snapshot -> %s\n", sanitize(res.Snapshot))
	case res.RemovedSnapshot != "":
		_, err = fmt.Fprintf(env.Stdout, "  no snapshot (--no-snapshot); removed the old one: %s\n", sanitize(res.RemovedSnapshot))
	}
	if err != nil {
		return fmt.Errorf("write pin result: %w", err)
	}
	return nil
}

package ops

import (
	"context"

	"github.com/wardenlock/warden/internal/consensus"
)

// PrepareConsensus readies a community check of target (check
// --against-community) before anything is launched: the coordinate is
// o.Coordinate, else inferred from the target's launch; the trusted
// attesters are resolved and the corpus read and verified. A check given
// the result in CheckOptions.Consensus compares its capture with it; a
// fail-closed verdict reached here is reported by that check as it is.
func PrepareConsensus(ctx context.Context, o consensus.Options, t Target) *consensus.Prepared {
	if o.Coordinate == "" {
		o.Launch = t.Argv
	}
	return consensus.Prepare(ctx, o)
}

// ConsensusExit combines a check's exit code with its consensus verdict's:
// the higher wins, so drift (1) outranks a consensus match or a novel
// release (0), and any verdict that compared nothing (2) gives 2.
func ConsensusExit(checkExit int, r *consensus.Result) int {
	if r == nil {
		return checkExit
	}
	return max(checkExit, r.Exit())
}

package action

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/consensus"
	"github.com/wardenlock/warden/internal/ops"
)

// ConsensusInputs are the community-consensus inputs (check mode):
// check --against-community's flags.
type ConsensusInputs struct {
	// Corpus is a directory (relative to working-directory) or a git URL;
	// Ref its exact commit.
	Corpus, Ref string
	// Attesters are ID=IDENTITY@ISSUER lines.
	Attesters     []consensus.Attester
	AttestersFile string
	Coordinate    string
	MinAttesters  int
	Require       bool
}

// consensusInputNames are the inputs that need against-community.
// (coordinate and trusted-root also serve sign and verify; sign.go
// checks those.)
var consensusInputNames = []string{"corpus", "corpus-ref", "attester", "attesters-file", "min-attesters", "require-consensus"}

// parseConsensusInputs reads the against-community inputs into in.
func parseConsensusInputs(get func(string) string, in *Inputs) error {
	raw := map[string]string{}
	for _, n := range consensusInputNames {
		raw[n] = strings.TrimSpace(get(n))
	}
	switch v := strings.ToLower(strings.TrimSpace(get("against-community"))); v {
	case "", "false":
		for _, n := range consensusInputNames {
			if raw[n] != "" {
				return fmt.Errorf("input %s: only used with against-community: true", n)
			}
		}
		return nil
	case "true":
	default:
		return fmt.Errorf("input against-community: %q is not true or false", v)
	}
	if in.Mode != ModeCheck {
		return errors.New("input against-community: only used with mode: check")
	}
	if len(in.Configs) > 0 {
		return errors.New("input against-community: checks one server; not used with config")
	}
	c := &ConsensusInputs{Corpus: raw["corpus"], Ref: raw["corpus-ref"], AttestersFile: raw["attesters-file"], Coordinate: strings.TrimSpace(get("coordinate")), MinAttesters: consensus.DefaultMinAttesters}
	if c.Corpus == "" {
		return errors.New("input corpus: against-community needs a corpus (a directory or a git URL)")
	}
	for _, n := range []string{"corpus", "corpus-ref", "attesters-file"} {
		if err := noControl(n, raw[n]); err != nil {
			return err
		}
	}
	for _, line := range strings.Split(get("attester"), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		a, err := consensus.ParseAttester(line)
		if err != nil {
			return fmt.Errorf("input attester: %w", err)
		}
		c.Attesters = append(c.Attesters, a)
	}
	if raw["min-attesters"] != "" {
		n, err := strconv.Atoi(raw["min-attesters"])
		if err != nil || n < 1 || n > 1000 {
			return fmt.Errorf("input min-attesters: %q is not a whole number from 1 to 1000", raw["min-attesters"])
		}
		c.MinAttesters = n
	}
	switch v := strings.ToLower(raw["require-consensus"]); v {
	case "", "false":
	case "true":
		c.Require = true
	default:
		return fmt.Errorf("input require-consensus: %q is not true or false", v)
	}
	in.Consensus = c
	return nil
}

// prepareConsensus readies the community check of target, or returns nil
// when against-community is not set. A corpus or attesters file given as
// a path is resolved in the workspace like every other file input.
func (r *runner) prepareConsensus(ctx context.Context, target ops.Target) (*consensus.Prepared, error) {
	c := r.in.Consensus
	if c == nil {
		return nil, nil
	}
	corpus := c.Corpus
	if !consensus.IsURL(corpus) {
		abs, err := ResolveFile(r.workspace, r.workDir, "corpus", corpus)
		if err != nil {
			return nil, err
		}
		corpus = abs
	}
	file := c.AttestersFile
	if file != "" {
		abs, err := ResolveFile(r.workspace, r.workDir, "attesters-file", file)
		if err != nil {
			return nil, err
		}
		file = abs
	}
	root := ""
	if r.in.Sigstore.TrustedRoot != "" {
		abs, err := ResolveFile(r.workspace, r.workDir, "trusted-root", r.in.Sigstore.TrustedRoot)
		if err != nil {
			return nil, err
		}
		root = abs
	}
	verifier, err := ops.ConsensusVerifier(root)
	if err != nil {
		return nil, err
	}
	return ops.PrepareConsensus(ctx, consensus.Options{
		Corpus: corpus, Ref: c.Ref,
		Attesters: c.Attesters, AttestersFile: file,
		Coordinate: c.Coordinate, MinAttesters: c.MinAttesters, RequireConsensus: c.Require,
		Verifier: verifier,
	}, target), nil
}

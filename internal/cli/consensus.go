package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/wardenlock/warden/internal/consensus"
	"github.com/wardenlock/warden/internal/ops"
)

// consensusFlags are check's community-consensus flags (the reference's).
type consensusFlags struct {
	against       bool
	corpus, ref   string
	attesters     listFlag
	attestersFile string
	// coordinate and trustedRoot read --coordinate and --trusted-root,
	// which check --verify shares (registered by whichever comes first).
	coordinate, trustedRoot func() string
	minAttesters            int
	requireConsensus        bool
}

// consensusOnly are the flags that mean nothing without --against-community.
// (--coordinate and --trusted-root also serve --verify, which checks them.)
var consensusOnly = []string{"corpus", "corpus-ref", "attester", "attesters-file", "min-attesters", "require-consensus"}

func (c *consensusFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.against, "against-community", false, "also compare the surface with what trusted community attesters signed for this exact package release (docs/consensus.md)")
	fs.StringVar(&c.corpus, "corpus", "", "community corpus: a directory, or a git `PATH|URL` read at --corpus-ref")
	fs.StringVar(&c.ref, "corpus-ref", "", "the corpus's exact git `commit` (40 hex digits; required for a URL)")
	fs.Var(&c.attesters, "attester", "trust attester `ID=IDENTITY@ISSUER` (repeatable; the issuer follows the last @)")
	fs.StringVar(&c.attestersFile, "attesters-file", "", "trust the attesters listed in `FILE` (attesters.json format; not inside the corpus)")
	c.coordinate = sharedFlag(fs, "coordinate", "the release, `ECO:PKG@VERSION` (npm or pypi), when the launch does not name one exact version")
	fs.IntVar(&c.minAttesters, "min-attesters", consensus.DefaultMinAttesters, "agreeing trusted attesters a match needs (`N`)")
	fs.BoolVar(&c.requireConsensus, "require-consensus", false, "fail (exit 1) when the release is novel or too few attesters agree")
	c.trustedRoot = sharedFlag(fs, "trusted-root", "Sigstore trusted root `FILE` to verify with instead of the embedded public-good root")
}

// sharedFlag registers a string flag unless fs has it already, and
// returns its value's reader.
func sharedFlag(fs *flag.FlagSet, name, usage string) func() string {
	if fs.Lookup(name) == nil {
		fs.String(name, "", usage)
	}
	return func() string { return fs.Lookup(name).Value.String() }
}

// usedWith refuses consensus flags without --against-community, and
// --against-community where it cannot apply.
func (c *consensusFlags) usedWith(fs *flag.FlagSet, cf *configFlags) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !c.against {
		for _, n := range consensusOnly {
			if set[n] {
				return fmt.Errorf("--%s needs --against-community", n)
			}
		}
		return nil
	}
	if cf.given() {
		return errors.New("--against-community checks one server; it does not apply with --config")
	}
	if c.corpus == "" {
		return errors.New("--against-community needs --corpus PATH|URL")
	}
	if c.minAttesters < 1 {
		return errors.New("--min-attesters must be at least 1")
	}
	return nil
}

// prepare parses the attesters, loads the trust root and readies the
// consensus check of target (nil without --against-community).
func (c *consensusFlags) prepare(ctx context.Context, target ops.Target) (*consensus.Prepared, error) {
	if !c.against {
		return nil, nil
	}
	var attesters []consensus.Attester
	for _, s := range c.attesters {
		a, err := consensus.ParseAttester(s)
		if err != nil {
			return nil, fmt.Errorf("--attester: %w", err)
		}
		attesters = append(attesters, a)
	}
	verifier, err := ops.ConsensusVerifier(c.trustedRoot())
	if err != nil {
		return nil, err
	}
	return ops.PrepareConsensus(ctx, consensus.Options{
		Corpus:           c.corpus,
		Ref:              c.ref,
		Attesters:        attesters,
		AttestersFile:    c.attestersFile,
		Coordinate:       c.coordinate(),
		MinAttesters:     c.minAttesters,
		RequireConsensus: c.requireConsensus,
		Verifier:         verifier,
	}, target), nil
}

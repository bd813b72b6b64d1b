package ops

import (
	"fmt"

	"github.com/wardenlock/warden/internal/attest"
	"github.com/wardenlock/warden/internal/consensus"
)

// rootVerifier verifies corpus bundles against a Sigstore trusted root.
type rootVerifier struct{ root *attest.Root }

func (v rootVerifier) Verify(bundle []byte, coordinate, digest string, a consensus.Attester) error {
	return v.root.Verify(bundle, attest.Statement{Coordinate: coordinate, Digest: digest}, attest.Identity{Subject: a.Identity, Issuer: a.Issuer})
}

// ConsensusVerifier is the verifier of a community check: the trusted root
// in path, else the embedded public-good root (offline either way).
func ConsensusVerifier(path string) (consensus.Verifier, error) {
	var root *attest.Root
	var err error
	if path != "" {
		root, err = attest.LoadRoot(path)
	} else {
		root, err = attest.PublicGoodRoot()
	}
	if err != nil {
		return nil, fmt.Errorf("sigstore trusted root: %w", err)
	}
	return rootVerifier{root}, nil
}

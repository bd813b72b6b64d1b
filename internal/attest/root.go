package attest

import (
	_ "embed"
	"fmt"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/wardenlock/warden/internal/infile"
)

// publicGoodJSON is Sigstore's public-good trusted root (Fulcio CAs, Rekor
// and CT log keys), copied unchanged from
// github.com/sigstore/sigstore-go@v1.3.0/examples/trusted-root-public-good.json
// (sha256 4364d7724c04cc912ce2a6c45ed2610e8d8d1c4dc857fb500292738d4d9c8d2c).
// It is embedded so that verification needs no network: a newer root is
// the user's to supply (LoadRoot) or to fetch on request through TUF
// (RefreshRoot), never fetched behind the user's back.
//
//go:embed trusted-root-public-good.json
var publicGoodJSON []byte

// MaxRootBytes bounds a trusted_root.json read from disk: the public-good
// root is about 8 KB, so 1 MiB is generous and still refuses /dev/zero.
const MaxRootBytes = 1 << 20

// Root is the trusted material a bundle is verified against: the Fulcio
// certificate authorities, Rekor log keys and CT log keys of one Sigstore
// deployment.
type Root struct {
	tm root.TrustedMaterial
	// requireSCT makes Verify demand a signed certificate timestamp from a
	// CT log in the root, as Sigstore's clients do for Fulcio certificates.
	// It is set whenever the root lists a CT log (the public-good root
	// does); a root without one (a private deployment, tests) cannot check
	// an SCT.
	requireSCT bool
}

// NewRoot makes a Root of trusted material already at hand (a private
// Sigstore deployment's, or a test's). Verify requires an embedded SCT
// exactly when the material lists a CT log.
func NewRoot(tm root.TrustedMaterial) *Root {
	return &Root{tm: tm, requireSCT: len(tm.CTLogs()) > 0}
}

// PublicGoodRoot returns the embedded Sigstore public-good trusted root.
func PublicGoodRoot() (*Root, error) {
	tr, err := root.NewTrustedRootFromJSON(publicGoodJSON)
	if err != nil {
		return nil, fmt.Errorf("embedded Sigstore trusted root: %w", err)
	}
	return NewRoot(tr), nil
}

// LoadRoot reads a trusted_root.json the user supplies (a newer one than
// the embedded root, or a private Sigstore deployment's). Only a regular
// file of at most MaxRootBytes is read.
func LoadRoot(path string) (*Root, error) {
	b, err := infile.ReadAll(path, "trusted root", MaxRootBytes)
	if err != nil {
		return nil, err
	}
	tr, err := root.NewTrustedRootFromJSON(b)
	if err != nil {
		return nil, fmt.Errorf("read trusted root %s: %w", path, err)
	}
	if len(tr.FulcioCertificateAuthorities()) == 0 || len(tr.RekorLogs()) == 0 {
		return nil, fmt.Errorf("read trusted root %s: no Fulcio certificate authority or no Rekor log", path)
	}
	return NewRoot(tr), nil
}

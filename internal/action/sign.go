package action

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wardenlock/warden/internal/attest"
	"github.com/wardenlock/warden/internal/ops"
)

// SigstoreInputs are the signing and verification inputs (the reference's
// pin --sign / check --verify, for one lock).
type SigstoreInputs struct {
	// Sign (pin mode) signs the written lock for Coordinate; the job needs
	// `permissions: id-token: write`.
	Sign bool
	// Verify (check mode) verifies the lock's bundle before capturing.
	Verify           bool
	Coordinate       string
	Identity, Issuer string
	// TrustedRoot is a trusted_root.json as given (empty: the embedded
	// public-good root).
	TrustedRoot string
}

// errSignNoToken fails a pin with sign: true before it captures anything.
var errSignNoToken = errors.New("input sign: no OIDC token to sign with: give the job permissions: id-token: write")

// parseSigstoreInputs reads the sign, coordinate, verify,
// certificate-identity, certificate-oidc-issuer and trusted-root inputs.
func parseSigstoreInputs(get func(string) string, in *Inputs) error {
	s := &in.Sigstore
	var err error
	if s.Sign, err = parseBool("sign", get("sign")); err != nil {
		return err
	}
	if s.Verify, err = parseBool("verify", get("verify")); err != nil {
		return err
	}
	s.Coordinate = strings.TrimSpace(get("coordinate"))
	s.Identity = strings.TrimSpace(get("certificate-identity"))
	s.Issuer = strings.TrimSpace(get("certificate-oidc-issuer"))
	s.TrustedRoot = strings.TrimSpace(get("trusted-root"))
	for _, f := range [][2]string{{"coordinate", s.Coordinate}, {"certificate-identity", s.Identity}, {"certificate-oidc-issuer", s.Issuer}, {"trusted-root", s.TrustedRoot}} {
		if err := noControl(f[0], f[1]); err != nil {
			return err
		}
	}
	switch {
	case s.Sign && in.Mode != ModePin:
		return errors.New("input sign: only used with mode: pin")
	case s.Verify && in.Mode != ModeCheck:
		return errors.New("input verify: only used with mode: check")
	case (s.Sign || s.Verify) && in.Config != "":
		return errors.New("inputs sign and verify: one lock at a time (not with config)")
	case !s.Sign && !s.Verify && in.Consensus == nil && (s.Coordinate != "" || s.Identity != "" || s.Issuer != "" || s.TrustedRoot != ""):
		return errors.New("inputs coordinate, certificate-identity, certificate-oidc-issuer and trusted-root: only used with sign: true or verify: true")
	case !s.Sign && !s.Verify && (s.Identity != "" || s.Issuer != ""):
		return errors.New("inputs certificate-identity and certificate-oidc-issuer: only used with verify: true (against-community trusts attesters instead)")
	case s.Sign && (s.Identity != "" || s.Issuer != "" || s.TrustedRoot != ""):
		return errors.New("inputs certificate-identity, certificate-oidc-issuer and trusted-root: only used with verify: true")
	case (s.Sign || s.Verify) && s.Coordinate == "":
		return errors.New("input coordinate: required with sign or verify (npm:<package>@<version> or pypi:<package>@<version>)")
	case s.Verify && (s.Identity == "" || s.Issuer == ""):
		return errors.New("input verify: needs certificate-identity and certificate-oidc-issuer (the signer you trust)")
	}
	if s.Coordinate != "" {
		if err := attest.CheckCoordinate(s.Coordinate); err != nil {
			return fmt.Errorf("input coordinate: %w", err)
		}
	}
	return nil
}

func parseBool(name, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, fmt.Errorf("input %s: %q is not true or false", name, v)
}

// verifyLock runs before a check captures anything: with verify: true the
// lock must carry its signer's bundle, or the run fails (exit 2).
func (r *runner) verifyLock(ctx context.Context) error {
	s := r.in.Sigstore
	if !s.Verify {
		return nil
	}
	rootPath := ""
	if s.TrustedRoot != "" {
		var err error
		if rootPath, err = ResolveFile(r.workspace, r.workDir, "trusted-root", s.TrustedRoot); err != nil {
			return err
		}
	}
	res, err := ops.VerifyLock(ctx, ops.VerifyLockOptions{
		LockPath: r.lockAbs, Coordinate: s.Coordinate, TrustedRoot: rootPath,
		Identity: attest.Identity{Subject: s.Identity, Issuer: s.Issuer},
	})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	fmt.Fprintf(r.stderr, "verified: %s is signed by %s (issuer %s) for %s, digest %s, Rekor log index %d\n",
		r.display(r.lockAbs), s.Identity, s.Issuer, s.Coordinate, res.Statement.Digest, res.LogIndex)
	return nil
}

// signLock runs after a pin wrote the lock, with sign: true.
func (r *runner) signLock(ctx context.Context) error {
	s := r.in.Sigstore
	if !s.Sign {
		return nil
	}
	st, err := ops.SignLock(ctx, ops.SignLockOptions{LockPath: r.lockAbs, Coordinate: s.Coordinate, Getenv: r.getenv})
	if err != nil {
		return fmt.Errorf("%s was written, but signing it failed: %w", r.display(r.lockAbs), err)
	}
	fmt.Fprintf(r.stderr, "signed: %s for %s, digest %s; bundle %s\n",
		r.display(r.lockAbs), st.Coordinate, st.Digest, r.display(ops.BundlePath(r.lockAbs)))
	return nil
}

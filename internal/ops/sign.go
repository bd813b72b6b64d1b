package ops

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	sigroot "github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tuf"
	"github.com/wardenlock/warden/internal/attest"
	"github.com/wardenlock/warden/internal/ghoidc"
	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/lock"
)

// BundlePath is where a lock's Sigstore bundle lives by default: beside the
// lock, as the reference and its community corpus keep it.
func BundlePath(lockPath string) string { return lockPath + ".sigstore" }

// LockStatement reads the lock at lockPath, checks that it reproduces its
// own digests (a signature of a digest the entries do not produce would
// attest nothing), and returns the statement for coordinate.
func LockStatement(ctx context.Context, lockPath, coordinate string) (attest.Statement, error) {
	if err := attest.CheckCoordinate(coordinate); err != nil {
		return attest.Statement{}, fmt.Errorf("--coordinate: %w", err)
	}
	l, err := lock.ReadFileContext(ctx, lockPath)
	if err != nil {
		return attest.Statement{}, err
	}
	if err := lock.Verify(l); err != nil {
		return attest.Statement{}, fmt.Errorf("lock %s: %w", lockPath, err)
	}
	return attest.Statement{Coordinate: coordinate, Digest: l.OverallDigest}, nil
}

// HasIDTokenSource reports whether IDToken has somewhere to get a token
// from, so that pin --sign can refuse before it captures anything.
func HasIDTokenSource(getenv func(string) string) bool {
	return (getenv("ACTIONS_ID_TOKEN_REQUEST_URL") != "" && getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN") != "") ||
		getenv("SIGSTORE_ID_TOKEN") != ""
}

// IDToken returns the OIDC token to sign with: GitHub Actions' (audience
// "sigstore") when the job may request one, else $SIGSTORE_ID_TOKEN. A
// token never comes from argv, where other users of the machine and the
// job log would see it.
func IDToken(ctx context.Context, hc *http.Client, getenv func(string) string) (string, error) {
	tok, err := ghoidc.IDToken(ctx, hc, getenv, "sigstore")
	if err == nil {
		return tok, nil
	}
	if !errors.Is(err, ghoidc.ErrUnavailable) {
		return "", err
	}
	if t := getenv("SIGSTORE_ID_TOKEN"); t != "" {
		return t, nil
	}
	return "", errors.New("no OIDC identity token: run in GitHub Actions with permissions: id-token: write, or set SIGSTORE_ID_TOKEN")
}

// SignLockOptions says which lock to sign and how.
type SignLockOptions struct {
	LockPath, Coordinate string
	// BundlePath defaults to BundlePath(LockPath).
	BundlePath string
	Getenv     func(string) string
	Sign       attest.SignOptions // IDToken is filled from Getenv
}

// SignLock signs the lock at o.LockPath (already written) for o.Coordinate
// and writes the bundle atomically. Any bundle already at the path claims
// an older lock, so when signing fails it is removed: a stale signature is
// never left beside a new lock (it would not verify for the new digest,
// but a reviewer would take its presence for a signature). It returns the
// statement signed.
func SignLock(ctx context.Context, o SignLockOptions) (attest.Statement, error) {
	if o.BundlePath == "" {
		o.BundlePath = BundlePath(o.LockPath)
	}
	st, err := signLock(ctx, &o)
	if err != nil {
		if rerr := os.Remove(o.BundlePath); rerr == nil {
			err = fmt.Errorf("%w (the old %s, which signed the previous lock, was removed)", err, o.BundlePath)
		}
		return attest.Statement{}, err
	}
	return st, nil
}

func signLock(ctx context.Context, o *SignLockOptions) (attest.Statement, error) {
	st, err := LockStatement(ctx, o.LockPath, o.Coordinate)
	if err != nil {
		return st, err
	}
	if o.Sign.IDToken == "" {
		tok, err := IDToken(ctx, o.Sign.HTTPClient, o.Getenv)
		if err != nil {
			return st, err
		}
		o.Sign.IDToken = tok
	}
	b, err := attest.Sign(ctx, st, o.Sign)
	if err != nil {
		return st, err
	}
	if err := lock.WriteAtomic(o.BundlePath, b); err != nil {
		return st, err
	}
	return st, nil
}

// VerifyLockOptions says which lock and bundle to verify, for whom.
type VerifyLockOptions struct {
	LockPath, Coordinate string
	// BundlePath defaults to BundlePath(LockPath).
	BundlePath string
	// TrustedRoot is a trusted_root.json; empty means the embedded
	// public-good root.
	TrustedRoot string
	Identity    attest.Identity
}

// VerifyLock checks that the bundle beside the lock is identity's
// signature of the statement rebuilt from the coordinate and the lock's own
// (self-verified) overall_digest. It reads and spawns nothing else.
func VerifyLock(ctx context.Context, o VerifyLockOptions) (*attest.Result, error) {
	if o.BundlePath == "" {
		o.BundlePath = BundlePath(o.LockPath)
	}
	if o.Identity.Subject == "" || o.Identity.Issuer == "" {
		return nil, errors.New("--verify needs --certificate-identity and --certificate-oidc-issuer (the signer you trust)")
	}
	st, err := LockStatement(ctx, o.LockPath, o.Coordinate)
	if err != nil {
		return nil, err
	}
	r, err := trustedRoot(o.TrustedRoot)
	if err != nil {
		return nil, err
	}
	b, err := infile.ReadAll(o.BundlePath, "bundle", attest.MaxBundleBytes)
	if err != nil {
		return nil, err
	}
	res, err := r.VerifyResult(b, st, o.Identity)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.BundlePath, err)
	}
	return res, nil
}

func trustedRoot(path string) (*attest.Root, error) {
	if path == "" {
		return attest.PublicGoodRoot()
	}
	return attest.LoadRoot(path)
}

// RefreshTrustedRoot fetches Sigstore's current public-good trusted root
// through its TUF repository (the update verified from the root of trust
// sigstore-go embeds) and writes it to out atomically, for --trusted-root.
// It is the only network access verification ever has, and only on
// request; offline it fails with one line and writes nothing.
func RefreshTrustedRoot(ctx context.Context, out string) error {
	cache, err := os.MkdirTemp("", "warden-tuf-*")
	if err != nil {
		return fmt.Errorf("trust-root refresh: %w", err)
	}
	defer os.RemoveAll(cache)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	opts := tuf.DefaultOptions().WithCachePath(cache).WithDisableLocalCache().WithContext(ctx)
	c, err := tuf.New(opts)
	if err != nil {
		return fmt.Errorf("trust-root refresh: cannot update from Sigstore's TUF repository %s: %s", opts.RepositoryBaseURL, oneLineErr(err))
	}
	b, err := c.GetTarget("trusted_root.json")
	if err != nil {
		return fmt.Errorf("trust-root refresh: fetch trusted_root.json from %s: %s", opts.RepositoryBaseURL, oneLineErr(err))
	}
	if _, err := sigroot.NewTrustedRootFromJSON(b); err != nil {
		return fmt.Errorf("trust-root refresh: the fetched trusted_root.json does not parse: %s", oneLineErr(err))
	}
	if err := lock.WriteAtomic(out, b); err != nil {
		return fmt.Errorf("trust-root refresh: %w", err)
	}
	return nil
}

// oneLineErr keeps a library's error on one bounded line.
func oneLineErr(err error) string {
	s := []rune(err.Error())
	for i, r := range s {
		if r == '\n' || r == '\r' {
			s[i] = ' '
		}
	}
	if len(s) > 300 {
		s = append(s[:300], '…')
	}
	return string(s)
}

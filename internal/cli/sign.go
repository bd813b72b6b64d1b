package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/wardenlock/warden/internal/attest"
	"github.com/wardenlock/warden/internal/ops"
)

// coordinateFlag registers --coordinate on fs unless another part of the
// command (community consensus) already has, and returns a getter: both
// uses mean the same package coordinate, so they share one flag.
func coordinateFlag(fs *flag.FlagSet) func() string {
	if fs.Lookup("coordinate") == nil {
		fs.String("coordinate", "", "package `COORDINATE` the signature binds: npm:<package>@<version> or pypi:<package>@<version>")
	}
	return func() string { return fs.Lookup("coordinate").Value.String() }
}

// signFlags are pin's Sigstore signing flags.
type signFlags struct {
	sign       bool
	coordinate func() string
	fulcio     string
	rekor      string
}

func (s *signFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.sign, "sign", false, "sign the written lock's digest keyless with Sigstore for --coordinate; the bundle goes to LOCK.sigstore (token: GitHub Actions OIDC with id-token: write, else $SIGSTORE_ID_TOKEN)")
	s.coordinate = coordinateFlag(fs)
	fs.StringVar(&s.fulcio, "fulcio-url", attest.DefaultFulcioURL, "Fulcio `URL` for --sign")
	fs.StringVar(&s.rekor, "rekor-url", attest.DefaultRekorURL, "Rekor `URL` for --sign")
}

// usable refuses, before anything is captured, a --sign that cannot
// succeed and a --coordinate that would be ignored.
func (s *signFlags) usable(getenv func(string) string, config bool) error {
	c := s.coordinate()
	switch {
	case !s.sign && c != "":
		return errors.New("--coordinate is for --sign (pin) or --verify (check)")
	case !s.sign:
		return nil
	case config:
		return errors.New("--sign signs one lock: use it with --lock, not --config")
	case c == "":
		return errors.New("--sign needs --coordinate npm:<package>@<version> or pypi:<package>@<version>")
	}
	if err := attest.CheckCoordinate(c); err != nil {
		return fmt.Errorf("--coordinate: %w", err)
	}
	if !ops.HasIDTokenSource(getenv) {
		return errors.New("--sign needs an OIDC identity token: run in GitHub Actions with permissions: id-token: write, or set SIGSTORE_ID_TOKEN")
	}
	return nil
}

// signLock signs the lock pin has just written; a failure is exit 2.
func (s *signFlags) signLock(ctx context.Context, env Env, of outputFlags, lockPath string) int {
	st, err := ops.SignLock(ctx, ops.SignLockOptions{
		LockPath: lockPath, Coordinate: s.coordinate(), Getenv: env.Getenv,
		Sign: attest.SignOptions{FulcioURL: s.fulcio, RekorURL: s.rekor},
	})
	if err != nil {
		return failJSON(env, of, fmt.Sprintf("%s was written, but signing it failed: %s", lockPath, oneLine(err)))
	}
	fmt.Fprintf(signOut(env, of), "signed: %s for %s, digest %s; bundle %s\n",
		sanitize(lockPath), sanitize(st.Coordinate), st.Digest, sanitize(ops.BundlePath(lockPath)))
	return ExitClean
}

// signOut is where a signing or verification line goes: stdout, unless
// stdout carries --json's records.
func signOut(env Env, of outputFlags) io.Writer {
	if of.json {
		return env.Stderr
	}
	return env.Stdout
}

// verifyFlags are check's Sigstore verification flags (the reference's).
type verifyFlags struct {
	verify, offline  bool
	identity, issuer string
	coordinate       func() string
	bundle, root     string
	// rootShared is set when --against-community also uses --trusted-root.
	rootShared bool
}

func (v *verifyFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&v.verify, "verify", false, "before capturing, verify the lock's Sigstore bundle for --coordinate, --certificate-identity and --certificate-oidc-issuer (any failure: exit 2)")
	fs.BoolVar(&v.offline, "offline-bundle", false, "with --verify: verify the signature only and exit (0 verified, 2 not); nothing is spawned")
	fs.StringVar(&v.identity, "certificate-identity", "", "the signer's certificate identity (SAN) you trust, compared exactly, e.g. https://github.com/OWNER/REPO/.github/workflows/F.yml@refs/heads/main")
	fs.StringVar(&v.issuer, "certificate-oidc-issuer", "", "the signer's OIDC issuer you trust, compared exactly, e.g. https://token.actions.githubusercontent.com")
	v.coordinate = coordinateFlag(fs)
	fs.StringVar(&v.bundle, "bundle", "", "Sigstore bundle `path` (default LOCK.sigstore)")
	fs.StringVar(&v.root, "trusted-root", "", "Sigstore trusted_root.json `file` (default: the public-good root built in; 'warden trust-root refresh' fetches a newer one)")
}

// run verifies when --verify is given. done says check must stop there
// with code: a failure, or --offline-bundle.
func (v *verifyFlags) run(ctx context.Context, env Env, of outputFlags, lockPath string, config bool) (code int, done bool) {
	if !v.verify {
		if v.offline || v.identity != "" || v.issuer != "" || v.bundle != "" || v.root != "" && !v.rootShared {
			return failJSON(env, of, "--offline-bundle, --certificate-identity, --certificate-oidc-issuer, --bundle and --trusted-root need --verify"), true
		}
		return 0, false
	}
	if config {
		return failJSON(env, of, "--verify checks one lock: use it with --lock, not --config"), true
	}
	if v.coordinate() == "" {
		return failJSON(env, of, "--verify needs --coordinate npm:<package>@<version> or pypi:<package>@<version>"), true
	}
	res, err := ops.VerifyLock(ctx, ops.VerifyLockOptions{
		LockPath: lockPath, Coordinate: v.coordinate(), BundlePath: v.bundle, TrustedRoot: v.root,
		Identity: attest.Identity{Subject: v.identity, Issuer: v.issuer},
	})
	if err != nil {
		return failJSON(env, of, "--verify: "+oneLine(err)), true
	}
	fmt.Fprintf(signOut(env, of), "verified: %s is signed by %s (issuer %s) for %s, digest %s, Rekor log index %d\n",
		sanitize(lockPath), sanitize(res.Identity.Subject), sanitize(res.Identity.Issuer),
		sanitize(res.Statement.Coordinate), res.Statement.Digest, res.LogIndex)
	if v.offline {
		return ExitClean, true
	}
	return 0, false
}

// runTrustRoot is `warden trust-root refresh --out FILE`.
func runTrustRoot(ctx context.Context, env Env, args []string) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(env.Stdout, "usage: warden trust-root refresh --out FILE\n\nFetches Sigstore's current trusted root through TUF, for check --verify --trusted-root FILE.")
		return ExitClean
	}
	if len(args) == 0 || args[0] != "refresh" {
		return fail(env, "usage: warden trust-root refresh --out FILE")
	}
	fs := newFlagSet(env, "trust-root refresh", "trust-root refresh --out FILE")
	out := fs.String("out", "", "write the fetched trusted_root.json to `FILE` (for check --trusted-root)")
	if err := fs.Parse(args[1:]); err != nil {
		return flagsDone(env, fs, err)
	}
	if *out == "" || fs.NArg() > 0 {
		return fail(env, "usage: warden trust-root refresh --out FILE")
	}
	if err := ops.RefreshTrustedRoot(ctx, *out); err != nil {
		return fail(env, oneLine(err))
	}
	fmt.Fprintf(env.Stdout, "wrote %s (Sigstore's trusted root, fetched through TUF); verify with check --verify --trusted-root %s\n", sanitize(*out), sanitize(*out))
	return ExitClean
}

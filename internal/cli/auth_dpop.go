package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/oauth2"

	"github.com/wardenlock/warden/internal/oauth"
	"github.com/wardenlock/warden/internal/oauthlogin"
)

// loginDPoP binds the login's token to a fresh DPoP key (RFC 9449) when the
// authorization server offers ES256 proofs: its token requests then carry a
// proof. nil when it does not.
func loginDPoP(opts *oauthlogin.Options, t oauthlogin.Target) (*oauth.DPoP, error) {
	if !oauth.DPoPOffered(t.DPoPAlgs) || t.AuthServer == nil {
		return nil, nil
	}
	key, err := oauth.NewDPoPKey()
	if err != nil {
		return nil, err
	}
	dp := oauth.NewDPoP(key)
	opts.HTTPClient = dp.Client(opts.HTTPClient, t.AuthServer.TokenEndpoint)
	return dp, nil
}

// boundKey hands on the key of a DPoP-bound token, which is useless
// without it: to keyOut (0600, written atomically) and, with asJSON, to the
// caller to print. A bound token with nowhere for its key is an error
// before the token is printed. nil when the token is not bound; then
// keyOut is left alone and warn says so.
func boundKey(dp *oauth.DPoP, tok *oauth2.Token, keyOut string, asJSON bool, warn func(string)) ([]byte, error) {
	if dp == nil || !strings.EqualFold(tok.Type(), "DPoP") {
		if keyOut != "" {
			warn("the token is a Bearer token, not DPoP-bound: --dpop-key-out wrote nothing")
		}
		return nil, nil
	}
	pemText, err := dp.Key().PEM()
	if err != nil {
		return nil, err
	}
	if keyOut == "" && !asJSON {
		return nil, errors.New("the token is DPoP-bound (RFC 9449) and useless without its key: run again with --dpop-key-out FILE (or --json, which prints it as dpop_key)")
	}
	if keyOut != "" {
		if err := writeSecretFile(keyOut, pemText); err != nil {
			return nil, fmt.Errorf("--dpop-key-out: %w", err)
		}
	}
	return pemText, nil
}

// writeSecretFile writes data to path with mode 0600: a temporary file
// beside it, renamed into place, so no reader sees half a key.
func writeSecretFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".warden-dpop-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

package action

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/ghoidc"
	"github.com/wardenlock/warden/internal/oauth"
)

// OAuthInputs are the oauth-* inputs (docs/oauth.md): the grant a job uses
// to get a token for a server-url server. The secret ones hold the secret
// itself, from `${{ secrets.X }}`: an input is not argv, and the run masks
// it before anything runs.
type OAuthInputs struct {
	ClientID     string
	ClientSecret string
	PrivateKey   string
	SigningAlg   string
	RefreshToken string
	// GitHubOIDC is the JWT bearer grant with the job's own OIDC token,
	// requested for Audience ("" = the authorization server's issuer).
	GitHubOIDC bool
	Audience   string
	Scopes     []string
	TokenAuth  oauth.TokenAuth
}

// given reports whether any oauth input was set.
func (o OAuthInputs) given() bool {
	return o.ClientID != "" || o.ClientSecret != "" || o.PrivateKey != "" || o.SigningAlg != "" ||
		o.RefreshToken != "" || o.GitHubOIDC || o.Audience != "" || len(o.Scopes) > 0 || o.TokenAuth != ""
}

// parseOAuthInputs reads every oauth-* input; they apply to server-url only.
func parseOAuthInputs(get func(string) string, url string) (OAuthInputs, error) {
	o := OAuthInputs{
		ClientID:     strings.TrimSpace(get("oauth-client-id")),
		ClientSecret: strings.TrimSpace(get("oauth-client-secret")),
		PrivateKey:   strings.TrimSpace(get("oauth-private-key")),
		SigningAlg:   strings.TrimSpace(get("oauth-signing-alg")),
		RefreshToken: strings.TrimSpace(get("oauth-refresh-token")),
		Audience:     strings.TrimSpace(get("oauth-audience")),
	}
	if scopes := strings.Fields(get("oauth-scope")); len(scopes) > 0 {
		o.Scopes = scopes
	}
	switch v := strings.ToLower(strings.TrimSpace(get("oauth-github-oidc"))); v {
	case "", "false":
	case "true":
		o.GitHubOIDC = true
	default:
		return o, errors.New("input oauth-github-oidc: want true or false")
	}
	var err error
	if o.TokenAuth, err = oauth.ParseTokenAuth(strings.TrimSpace(get("oauth-token-endpoint-auth"))); err != nil {
		return o, fmt.Errorf("input oauth-token-endpoint-auth: %w", err)
	}
	if !o.given() {
		return o, nil
	}
	if url == "" {
		return o, errors.New("inputs oauth-*: only used with server-url (OAuth is per server)")
	}
	if o.Audience != "" && !o.GitHubOIDC {
		return o, errors.New("input oauth-audience: only used with oauth-github-oidc")
	}
	return o, nil
}

// authorizer builds the OAuth client of a server-url run (nil without
// oauth inputs). Every secret is masked with the runner before any request,
// and every token as soon as it is obtained.
func (r *runner) authorizer(in Inputs) (capture.Authorizer, error) {
	o := in.OAuth
	if !o.given() {
		return nil, nil
	}
	if err := r.addSecrets(o.ClientSecret, o.PrivateKey, o.RefreshToken, r.getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN")); err != nil {
		return nil, err
	}
	for _, line := range strings.Split(o.PrivateKey, "\n") {
		if err := r.addSecrets(strings.TrimSpace(line)); err != nil {
			return nil, err
		}
	}
	cfg := oauth.Config{
		ClientID:     o.ClientID,
		ClientSecret: o.ClientSecret,
		SigningAlg:   o.SigningAlg,
		RefreshToken: o.RefreshToken,
		Scopes:       o.Scopes,
		TokenAuth:    o.TokenAuth,
		Mask:         func(s string) { _ = r.addSecrets(s) },
		Warn:         func(line string) { r.progress(line) },
	}
	if o.PrivateKey != "" {
		cfg.PrivateKeyPEM = []byte(o.PrivateKey)
	}
	if o.GitHubOIDC {
		cfg.Audience = o.Audience
		cfg.Assertion = func(ctx context.Context, aud string) (string, error) {
			return ghoidc.IDToken(ctx, http.DefaultClient, r.getenv, aud)
		}
	}
	a, err := oauth.NewAuthorizer(in.URL, cfg)
	if err != nil {
		return nil, err
	}
	return a, nil
}

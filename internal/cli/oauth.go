package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"

	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/ghoidc"
	"github.com/wardenlock/warden/internal/oauth"
)

// oauthFlags are the OAuth flags of pin and check (docs/oauth.md). Every
// credential is a ${NAME} reference to an environment variable: a secret in
// argv would be visible to every process on the machine and in CI logs.
type oauthFlags struct {
	clientID     string
	clientSecret string
	privateKey   string
	signingAlg   string
	refreshToken string
	assertion    string
	githubOIDC   optionalFlag
	scopes       listFlag
	tokenAuth    string
	// Enterprise-managed authorization (SEP-990).
	idpTokenEndpoint string
	idpClientID      string
	idpClientSecret  string
	idToken          string
	accessToken      string
	dpopKey          string
}

// optionalFlag is a flag that may be given bare (--flag) or with a value
// (--flag=VALUE).
type optionalFlag struct {
	set   bool
	value string
}

func (o *optionalFlag) String() string   { return o.value }
func (o *optionalFlag) IsBoolFlag() bool { return true }
func (o *optionalFlag) Set(s string) error {
	o.set = true
	if s != "true" {
		o.value = s
	}
	if s == "false" {
		o.set, o.value = false, ""
	}
	return nil
}

func (o *oauthFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.clientID, "oauth-client-id", "", "OAuth client `ID` (literal or ${NAME})")
	fs.StringVar(&o.clientSecret, "oauth-client-secret", "", "OAuth client secret, as `${NAME}` of an environment variable (client credentials grant)")
	fs.StringVar(&o.privateKey, "oauth-private-key", "", "PEM private key for private_key_jwt, as `${NAME}` of an environment variable")
	fs.StringVar(&o.signingAlg, "oauth-signing-alg", "", "JWS `alg` of the private_key_jwt assertion (default: the key's own, ES256 or RS256)")
	fs.StringVar(&o.refreshToken, "oauth-refresh-token", "", "OAuth refresh token, as `${NAME}` of an environment variable (from warden auth login)")
	fs.StringVar(&o.assertion, "oauth-assertion", "", "workload identity JWT for the JWT bearer grant, as `${NAME}` of an environment variable")
	fs.Var(&o.githubOIDC, "oauth-github-oidc", "JWT bearer grant with the GitHub Actions OIDC token; --oauth-github-oidc=AUDIENCE sets its audience (default: the authorization server's issuer)")
	fs.Var(&o.scopes, "oauth-scope", "OAuth `scope` to request instead of the discovered one (repeatable, or space-separated)")
	fs.StringVar(&o.idpTokenEndpoint, "oauth-idp-token-endpoint", "", "enterprise-managed authorization: the identity provider's token `URL`, where --oauth-id-token is exchanged for an ID-JAG")
	fs.StringVar(&o.idpClientID, "oauth-idp-client-id", "", "enterprise-managed authorization: warden's client `ID` at the identity provider (literal or ${NAME})")
	fs.StringVar(&o.idpClientSecret, "oauth-idp-client-secret", "", "enterprise-managed authorization: that client's secret, as `${NAME}`")
	fs.StringVar(&o.idToken, "oauth-id-token", "", "enterprise-managed authorization: the identity provider's ID token, as `${NAME}`")
	fs.StringVar(&o.accessToken, "oauth-access-token", "", "an access token from warden auth login --print access-token, as `${NAME}` (presented as it is; nothing renews it)")
	fs.StringVar(&o.dpopKey, "oauth-dpop-key", "", "PEM P-256 key a DPoP-bound token is bound to (auth login --dpop-key-out), as `${NAME}`")
	fs.StringVar(&o.tokenAuth, "oauth-token-endpoint-auth", "", "token endpoint authentication `method`: client_secret_basic, client_secret_post, none or private_key_jwt (default: from the server's metadata)")
}

func (o *oauthFlags) given() bool {
	return o.clientID != "" || o.clientSecret != "" || o.privateKey != "" || o.signingAlg != "" ||
		o.refreshToken != "" || o.assertion != "" || o.githubOIDC.set || len(o.scopes) > 0 || o.tokenAuth != "" ||
		o.idpTokenEndpoint != "" || o.idpClientID != "" || o.idpClientSecret != "" || o.idToken != "" ||
		o.accessToken != "" || o.dpopKey != ""
}

// secretRef reads the environment variable a ${NAME} flag value names. A
// value that is not exactly a reference is refused without being echoed:
// it may be the secret itself.
func secretRef(flagName, value string, getenv func(string) string) (string, error) {
	if value == "" {
		return "", nil
	}
	name, ok := strings.CutPrefix(value, "${")
	name, ok2 := strings.CutSuffix(name, "}")
	if !ok || !ok2 || !capture.IsEnvName(name) {
		return "", fmt.Errorf("--%s takes a ${NAME} reference to an environment variable holding the secret, never the secret itself (in a shell, quote it: '${NAME}')", flagName)
	}
	v := getenv(name)
	if v == "" {
		return "", fmt.Errorf("--%s: environment variable %s is not set or empty", flagName, name)
	}
	return v, nil
}

// authorizer builds the OAuth client for a --url capture; nil when no
// OAuth flag was given. Every secret read, and every token obtained later,
// goes to env.Secrets at once, so no output can show it.
func (o *oauthFlags) authorizer(env Env, serverURL string) (capture.Authorizer, error) {
	if !o.given() {
		return nil, nil
	}
	if serverURL == "" {
		return nil, errors.New("the --oauth-* flags apply to a --url server")
	}
	var cfg oauth.Config
	var err error
	dpopKey, err := secretRef("oauth-dpop-key", o.dpopKey, env.Getenv)
	if err != nil {
		return nil, err
	}
	if dpopKey != "" {
		env.Secrets.Add(dpopKey)
		cfg.DPoPKeyPEM = []byte(dpopKey)
	}
	if o.accessToken != "" {
		return o.tokenAuthorizer(env, serverURL, cfg.DPoPKeyPEM)
	}
	if cfg.ClientID, err = o.plainOrRef("oauth-client-id", o.clientID, env.Getenv); err != nil {
		return nil, err
	}
	if cfg.ClientSecret, err = secretRef("oauth-client-secret", o.clientSecret, env.Getenv); err != nil {
		return nil, err
	}
	key, err := secretRef("oauth-private-key", o.privateKey, env.Getenv)
	if err != nil {
		return nil, err
	}
	if key != "" {
		cfg.PrivateKeyPEM = []byte(key)
		env.Secrets.Add(key)
	}
	cfg.SigningAlg = o.signingAlg
	if cfg.RefreshToken, err = secretRef("oauth-refresh-token", o.refreshToken, env.Getenv); err != nil {
		return nil, err
	}
	assertion, err := secretRef("oauth-assertion", o.assertion, env.Getenv)
	if err != nil {
		return nil, err
	}
	switch {
	case assertion != "" && o.githubOIDC.set:
		return nil, errors.New("give --oauth-assertion or --oauth-github-oidc, not both")
	case assertion != "":
		env.Secrets.Add(assertion)
		cfg.Assertion = func(context.Context, string) (string, error) { return assertion, nil }
	case o.githubOIDC.set:
		cfg.Audience = o.githubOIDC.value
		cfg.Assertion = func(ctx context.Context, aud string) (string, error) {
			return ghoidc.IDToken(ctx, http.DefaultClient, env.Getenv, aud)
		}
		env.Secrets.Add(env.Getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN"))
	}
	if o.idpTokenEndpoint != "" || o.idpClientID != "" || o.idpClientSecret != "" || o.idToken != "" {
		if cfg.Assertion != nil {
			return nil, errors.New("give --oauth-id-token (enterprise-managed) or a workload assertion, not both")
		}
		x := &oauth.IDPExchange{TokenEndpoint: o.idpTokenEndpoint}
		if x.ClientID, err = o.plainOrRef("oauth-idp-client-id", o.idpClientID, env.Getenv); err != nil {
			return nil, err
		}
		if x.ClientSecret, err = secretRef("oauth-idp-client-secret", o.idpClientSecret, env.Getenv); err != nil {
			return nil, err
		}
		if x.IDToken, err = secretRef("oauth-id-token", o.idToken, env.Getenv); err != nil {
			return nil, err
		}
		env.Secrets.Add(x.ClientSecret, x.IDToken)
		cfg.IDP = x
	}
	for _, s := range o.scopes {
		cfg.Scopes = append(cfg.Scopes, strings.Fields(s)...)
	}
	if cfg.TokenAuth, err = oauth.ParseTokenAuth(o.tokenAuth); err != nil {
		return nil, fmt.Errorf("--oauth-token-endpoint-auth: %w", err)
	}
	cfg.Mask = func(s string) { env.Secrets.Add(s) }
	cfg.Warn = func(line string) { fmt.Fprintf(env.Stderr, "warden: %s\n", line) }
	a, err := oauth.NewAuthorizer(serverURL, cfg)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// plainOrRef takes a value that is not secret (a client ID) as written or
// from a ${NAME} reference.
func (o *oauthFlags) plainOrRef(flagName, value string, getenv func(string) string) (string, error) {
	if strings.HasPrefix(value, "${") {
		return secretRef(flagName, value, getenv)
	}
	return value, nil
}

// tokenAuthorizer is --oauth-access-token: a token from a login, with its
// DPoP key when it is bound to one; no grant flag goes with it.
func (o *oauthFlags) tokenAuthorizer(env Env, serverURL string, keyPEM []byte) (capture.Authorizer, error) {
	if o.clientID != "" || o.clientSecret != "" || o.privateKey != "" || o.refreshToken != "" || o.assertion != "" ||
		o.githubOIDC.set || len(o.scopes) > 0 || o.tokenAuth != "" || o.idpTokenEndpoint != "" || o.idToken != "" {
		return nil, errors.New("--oauth-access-token is a token already obtained: give it alone (with --oauth-dpop-key for a DPoP-bound one), not with a grant's flags")
	}
	tok, err := secretRef("oauth-access-token", o.accessToken, env.Getenv)
	if err != nil {
		return nil, err
	}
	env.Secrets.Add(tok)
	var key *oauth.DPoPKey
	if keyPEM != nil {
		if key, err = oauth.ParseDPoPKey(keyPEM); err != nil {
			return nil, fmt.Errorf("--oauth-dpop-key: %w", err)
		}
	}
	return oauth.NewTokenAuthorizer(serverURL, tok, key)
}

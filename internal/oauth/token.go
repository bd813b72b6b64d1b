package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// TokenAuth is how the client authenticates at the token endpoint:
// client_secret_basic, client_secret_post, none, private_key_jwt — chosen
// from the metadata's token_endpoint_auth_methods_supported.
type TokenAuth string

// The token endpoint authentication methods warden speaks (RFC 7591 §2
// names, RFC 7523 §2.2 for private_key_jwt).
const (
	AuthBasic         TokenAuth = "client_secret_basic"
	AuthPost          TokenAuth = "client_secret_post"
	AuthNone          TokenAuth = "none"
	AuthPrivateKeyJWT TokenAuth = "private_key_jwt"
)

// Grant types warden sends.
const (
	GrantClientCredentials = "client_credentials"
	GrantRefreshToken      = "refresh_token"
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	GrantAuthorizationCode = "authorization_code"
	// AssertionTypeJWT is the client_assertion_type of private_key_jwt.
	AssertionTypeJWT = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// ParseTokenAuth checks a method name given by a user ("" stays "": choose
// from the metadata).
func ParseTokenAuth(s string) (TokenAuth, error) {
	switch m := TokenAuth(s); m {
	case "", AuthBasic, AuthPost, AuthNone, AuthPrivateKeyJWT:
		return m, nil
	}
	return "", fmt.Errorf("token endpoint authentication %s is not one of client_secret_basic, client_secret_post, none, private_key_jwt", quote(s))
}

// ChooseTokenAuth picks the token endpoint authentication. want, when set,
// is the user's choice; it must be one the metadata lists (when it lists
// any) and fit the credentials. Otherwise the credentials decide: a signing
// key means private_key_jwt, a secret client_secret_basic (the RFC 8414
// default when the metadata lists nothing) or else client_secret_post,
// neither none.
func ChooseTokenAuth(meta *oauthex.AuthServerMeta, want TokenAuth, haveSecret, haveKey bool) (TokenAuth, error) {
	var listed []string
	if meta != nil {
		listed = meta.TokenEndpointAuthMethodsSupported
	}
	offered := func(m TokenAuth) bool {
		if len(listed) == 0 {
			return m == AuthBasic || m == AuthNone || m == AuthPost
		}
		return slices.Contains(listed, string(m))
	}
	fits := func(m TokenAuth) error {
		switch {
		case (m == AuthBasic || m == AuthPost) && !haveSecret:
			return fmt.Errorf("token endpoint authentication %s needs a client secret", m)
		case m == AuthPrivateKeyJWT && !haveKey:
			return fmt.Errorf("token endpoint authentication %s needs a private key", m)
		}
		return nil
	}
	if want != "" {
		if err := fits(want); err != nil {
			return "", err
		}
		if len(listed) > 0 && !offered(want) {
			return "", fmt.Errorf("the authorization server does not offer token endpoint authentication %s (it lists %s)", want, clip(strings.Join(listed, " ")))
		}
		return want, nil
	}
	var order []TokenAuth
	switch {
	case haveKey:
		order = []TokenAuth{AuthPrivateKeyJWT}
	case haveSecret:
		order = []TokenAuth{AuthBasic, AuthPost}
	default:
		order = []TokenAuth{AuthNone}
	}
	for _, m := range order {
		if offered(m) {
			return m, nil
		}
	}
	return "", fmt.Errorf("the authorization server offers no token endpoint authentication warden can do with these credentials (it lists %s; warden would use %s)",
		clip(strings.Join(listed, " ")), order[0])
}

// Client is how warden identifies itself at the token endpoint.
type Client struct {
	// ID is the client_id ("" only with AuthNone, for grants that need
	// none).
	ID string
	// Secret is the client secret, for client_secret_basic and _post.
	Secret string
	// Key signs the private_key_jwt client assertion.
	Key *SigningKey
	// Auth is the method; see ChooseTokenAuth.
	Auth TokenAuth
	// DPoP, when set, binds the token to its key (RFC 9449): the request
	// carries a proof, and a DPoP token is accepted besides a Bearer one.
	DPoP *DPoP
}

// TokenRequest sends one token request to the discovered token endpoint:
// params (grant_type and the grant's own parameters), the scope (omitted
// when empty) and the RFC 8707 resource, authenticated as c. The answer
// must be a Bearer token (or DPoP, with c.DPoP). Errors quote the server's error code and the
// start of its description, never a credential.
func TokenRequest(ctx context.Context, hc *http.Client, d *Discovery, c Client, params url.Values, scopes []string) (*oauth2.Token, error) {
	if d == nil || d.AuthServer == nil {
		return nil, errors.New("token request: no discovery")
	}
	grant := params.Get("grant_type")
	if grant == "" {
		return nil, errors.New("token request: no grant_type")
	}
	ep := url.Values{}
	for k, v := range params {
		ep[k] = append([]string(nil), v...)
	}
	if d.Resource != "" {
		ep.Set("resource", d.Resource)
	}
	cfg := clientcredentials.Config{
		ClientID:       c.ID,
		TokenURL:       d.AuthServer.TokenEndpoint,
		Scopes:         scopes,
		EndpointParams: ep,
	}
	switch c.Auth {
	case AuthBasic:
		cfg.ClientSecret = c.Secret
		cfg.AuthStyle = oauth2.AuthStyleInHeader
	case AuthPost:
		cfg.ClientSecret = c.Secret
		cfg.AuthStyle = oauth2.AuthStyleInParams
	case AuthNone:
		cfg.AuthStyle = oauth2.AuthStyleInParams
	case AuthPrivateKeyJWT:
		if c.Key == nil {
			return nil, errors.New("token request: private_key_jwt without a key")
		}
		assertion, err := c.Key.Assertion(c.ID, c.ID, d.Issuer)
		if err != nil {
			return nil, fmt.Errorf("token request: signing the client assertion: %w", err)
		}
		ep.Set("client_assertion_type", AssertionTypeJWT)
		ep.Set("client_assertion", assertion)
		cfg.AuthStyle = oauth2.AuthStyleInParams
	default:
		return nil, fmt.Errorf("token request: unknown token endpoint authentication %s", quote(string(c.Auth)))
	}
	if err := CheckURL(cfg.TokenURL); err != nil {
		return nil, fmt.Errorf("token request: the token endpoint: %w", err)
	}
	tc := tokenClient(hc)
	if c.DPoP != nil {
		tc = c.DPoP.Client(tc, cfg.TokenURL)
	}
	tok, err := cfg.Token(context.WithValue(ctx, oauth2.HTTPClient, tc))
	if err != nil {
		return nil, tokenError(grant, err)
	}
	if c.DPoP != nil && strings.EqualFold(tok.Type(), "DPoP") {
		return tok, nil
	}
	if !strings.EqualFold(tok.Type(), "Bearer") {
		return nil, fmt.Errorf("token request (%s): the token type is %s, not Bearer", grant, quote(tok.TokenType))
	}
	return tok, nil
}

// tokenClient is hc with redirects refused: a token request carries
// credentials and must reach the endpoint the metadata names, nothing else.
func tokenClient(hc *http.Client) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error {
		return errors.New("the token endpoint redirected; refused")
	}
	return &c
}

// tokenError says why a token request failed with the server's error code
// and the start of its description; the response body itself (which
// oauth2's error carries) is never quoted.
func tokenError(grant string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := ""
		if re.Response != nil {
			status = fmt.Sprintf("HTTP %d", re.Response.StatusCode)
		}
		switch {
		case re.ErrorCode != "" && re.ErrorDescription != "":
			return fmt.Errorf("token request (%s) refused: %s %s: %s", grant, status, clip(re.ErrorCode), clip(re.ErrorDescription))
		case re.ErrorCode != "":
			return fmt.Errorf("token request (%s) refused: %s %s", grant, status, clip(re.ErrorCode))
		}
		return fmt.Errorf("token request (%s) refused: %s", grant, status)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("token request (%s) failed: %s", grant, clip(ue.Err.Error()))
	}
	return fmt.Errorf("token request (%s) failed: %s", grant, clip(err.Error()))
}

// CheckIssuer applies RFC 9207 to an authorization response's iss
// parameter: required and equal to the recorded issuer when the metadata
// advertises authorization_response_iss_parameter_supported; compared
// whenever present. The comparison is exact: no URL normalisation.
func CheckIssuer(iss string, meta *oauthex.AuthServerMeta) error {
	if meta == nil {
		return errors.New("iss check: no authorization server metadata")
	}
	if iss == "" {
		if meta.AuthorizationResponseIssParameterSupported {
			return errors.New("the authorization response has no iss, though the authorization server advertises it (RFC 9207)")
		}
		return nil
	}
	if iss != meta.Issuer {
		return fmt.Errorf("the authorization response's iss %s is not the authorization server's issuer %s (RFC 9207)", quote(iss), quote(meta.Issuer))
	}
	return nil
}

// StepUp applies the spec's step-up rule to a refused request: a 403 with
// error="insufficient_scope" asks for the union of the scopes held and the
// challenge's scope. ok is false when there is nothing new to ask for (the
// request should fail as it is).
func StepUp(held []string, status int, header http.Header) (scopes []string, ok bool) {
	if status != http.StatusForbidden {
		return nil, false
	}
	ch := ParseChallenge(header)
	if ch.Error != "insufficient_scope" {
		return nil, false
	}
	out := append([]string(nil), held...)
	grew := false
	for _, s := range ch.Scope {
		if !slices.Contains(out, s) {
			out = append(out, s)
			grew = true
		}
	}
	return out, grew
}

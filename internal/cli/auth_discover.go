package cli

import (
	"context"
	"fmt"
	"net/http"

	"github.com/wardenlock/warden/internal/oauth"
	"github.com/wardenlock/warden/internal/oauthlogin"
)

// discoverTarget runs the MCP authorization discovery (internal/oauth) for
// a login: the resource, the authorization server and the scopes the
// spec's selection rules give.
func discoverTarget(ctx context.Context, hc *http.Client, serverURL string, challenge http.Header) (oauthlogin.Target, error) {
	d, err := oauth.Discover(ctx, hc, serverURL, challenge)
	if err != nil {
		return oauthlogin.Target{}, err
	}
	// The MCP spec: no code_challenge_methods_supported means no PKCE, and
	// the authorization code flow must not proceed. Under the 2025-03-26
	// fallback no metadata exists to say either way.
	if !d.PKCE && !d.Fallback {
		return oauthlogin.Target{}, fmt.Errorf("authorization server %s does not list code_challenge_methods_supported, so it may not support PKCE: the MCP authorization spec forbids the authorization code flow without it", d.Issuer)
	}
	return oauthlogin.Target{Resource: d.Resource, Issuer: d.Issuer, AuthServer: d.AuthServer, Scopes: d.Scopes, DPoPAlgs: d.DPoPAlgs}, nil
}

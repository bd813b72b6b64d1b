package cli

import (
	"context"
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
	return oauthlogin.Target{Resource: d.Resource, Issuer: d.Issuer, AuthServer: d.AuthServer, Scopes: d.Scopes}, nil
}

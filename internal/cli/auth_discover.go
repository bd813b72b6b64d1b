package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/wardenlock/warden/internal/oauthlogin"
)

// discoverTarget finds the resource, authorization server and scopes a
// login asks for. Interim: replaced by internal/oauth's Discover once that
// lands.
func discoverTarget(ctx context.Context, hc *http.Client, serverURL string, challenge http.Header) (oauthlogin.Target, error) {
	cs, err := oauthex.ParseWWWAuthenticate(challenge.Values("WWW-Authenticate"))
	if err != nil {
		return oauthlogin.Target{}, fmt.Errorf("WWW-Authenticate: %w", err)
	}
	var metaURL string
	var scopes []string
	for _, c := range cs {
		if c.Scheme != "bearer" {
			continue
		}
		if metaURL == "" {
			metaURL = c.Params["resource_metadata"]
		}
		if scopes == nil && c.Params["scope"] != "" {
			scopes = strings.Fields(c.Params["scope"])
		}
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return oauthlogin.Target{}, err
	}
	type cand struct{ meta, resource string }
	var cands []cand
	if metaURL != "" {
		cands = append(cands, cand{metaURL, serverURL})
	}
	pb := *u
	pb.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	pb.RawQuery = ""
	root := *u
	root.Path, root.RawQuery = "/.well-known/oauth-protected-resource", ""
	origin := *u
	origin.Path, origin.RawQuery = "", ""
	cands = append(cands, cand{pb.String(), serverURL}, cand{root.String(), origin.String()})
	var prm *oauthex.ProtectedResourceMetadata
	var errs []error
	for _, c := range cands {
		p, err := oauthex.GetProtectedResourceMetadata(ctx, c.meta, c.resource, hc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if p != nil {
			prm = p
			break
		}
	}
	if prm == nil {
		return oauthlogin.Target{}, fmt.Errorf("no protected resource metadata: %w", errors.Join(errs...))
	}
	if len(prm.AuthorizationServers) == 0 {
		return oauthlogin.Target{}, errors.New("protected resource metadata names no authorization server")
	}
	issuer := prm.AuthorizationServers[0]
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, hc)
	if err != nil {
		return oauthlogin.Target{}, err
	}
	if asm == nil {
		return oauthlogin.Target{}, fmt.Errorf("authorization server %s has no metadata", issuer)
	}
	if scopes == nil {
		scopes = prm.ScopesSupported
	}
	return oauthlogin.Target{Resource: prm.Resource, Issuer: asm.Issuer, AuthServer: asm, Scopes: scopes}, nil
}

package oauth

import (
	"context"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// IDPExchange is the first leg of enterprise-managed authorization
// (SEP-990): at the enterprise identity provider's token endpoint, an ID
// token is exchanged (RFC 8693) for an Identity Assertion JWT Authorization
// Grant (ID-JAG) for the MCP server's authorization server and resource.
type IDPExchange struct {
	// TokenEndpoint is the identity provider's token endpoint.
	TokenEndpoint string
	// ClientID (and ClientSecret, if it is a confidential client) is
	// warden's client at the identity provider.
	ClientID     string
	ClientSecret string
	// IDToken is the subject token: an ID token the identity provider
	// issued.
	IDToken string
}

// exchange asks for an ID-JAG for audience (the authorization server's
// issuer) and resource.
func (x *IDPExchange) exchange(ctx context.Context, hc *http.Client, audience, resource string, scopes []string) (string, error) {
	creds := &oauthex.ClientCredentials{ClientID: x.ClientID}
	if x.ClientSecret != "" {
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: x.ClientSecret}
	}
	tok, err := oauthex.ExchangeToken(ctx, x.TokenEndpoint, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           audience,
		Resource:           resource,
		Scope:              scopes,
		SubjectToken:       x.IDToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, creds, tokenClient(hc))
	if err != nil {
		return "", tokenError(oauthex.GrantTypeTokenExchange+" at the identity provider", err)
	}
	if t, _ := tok.Extra("issued_token_type").(string); t != oauthex.TokenTypeIDJAG {
		return "", errors.New("the identity provider's token exchange did not issue an ID-JAG")
	}
	return tok.AccessToken, nil
}

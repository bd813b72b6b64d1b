// Package oauth is the client side of MCP authorization for a gate that
// runs without a person: discovery as the MCP authorization spec defines it
// (the 401's WWW-Authenticate, RFC 9728 protected resource metadata, RFC 8414
// and OpenID authorization server metadata, the 2025-03-26 fallbacks), token
// requests with RFC 8707 resource indicators and the token endpoint
// authentication the metadata offers, and the grants a CI job can use
// (client credentials with a secret or a private_key_jwt assertion, the
// RFC 7523 JWT bearer grant from a workload identity, a refresh token). An
// Authorizer plugs them into capture.
//
// Tokens and secrets never appear in an error message from this package; the
// server- and metadata-provided text that does is clipped and quoted.
package oauth

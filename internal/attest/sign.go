package attest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
)

// Sigstore's public-good service URLs, the defaults of SignOptions.
const (
	DefaultFulcioURL = "https://fulcio.sigstore.dev"
	DefaultRekorURL  = "https://rekor.sigstore.dev"
)

// SignOptions says where and as whom Sign signs.
type SignOptions struct {
	// FulcioURL and RekorURL default to Sigstore's public-good instances.
	FulcioURL, RekorURL string
	// IDToken is the OIDC token Fulcio exchanges for a certificate naming
	// its subject. It is sent to Fulcio only and never appears in an error.
	IDToken string
	// HTTPClient, when set, carries the Fulcio request (tests point it at
	// a stand-in); the Rekor request uses Rekor's own client on RekorURL.
	HTTPClient *http.Client
}

// digestPattern is the form of a lock's overall_digest.
var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Sign signs st keyless: it makes an ephemeral P-256 key pair, has Fulcio
// certify it for o.IDToken's identity, signs SHA-256(st.Canonical()) as a
// messageSignature, records a hashedrekord entry in Rekor (v1) and returns
// the v0.3 bundle as JSON, the form the reference writes and Verify reads.
// The private key never leaves memory.
func Sign(ctx context.Context, st Statement, o SignOptions) ([]byte, error) {
	if err := CheckCoordinate(st.Coordinate); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	if !digestPattern.MatchString(st.Digest) {
		return nil, fmt.Errorf("sign: digest %s is not sha256:<64 hex>", quote(st.Digest))
	}
	if o.IDToken == "" {
		return nil, errors.New("sign: no OIDC identity token")
	}
	if o.FulcioURL == "" {
		o.FulcioURL = DefaultFulcioURL
	}
	if o.RekorURL == "" {
		o.RekorURL = DefaultRekorURL
	}
	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		return nil, fmt.Errorf("sign: key pair: %w", err)
	}
	fo := &sign.FulcioOptions{BaseURL: strings.TrimRight(o.FulcioURL, "/"), Timeout: 30 * time.Second, Retries: 1}
	if o.HTTPClient != nil {
		fo.Transport = o.HTTPClient.Transport
	}
	pb, err := sign.Bundle(&sign.PlainData{Data: st.Canonical()}, kp, sign.BundleOptions{
		CertificateProvider:        sign.NewFulcio(fo),
		CertificateProviderOptions: &sign.CertificateProviderOptions{IDToken: o.IDToken},
		TransparencyLogs: []sign.Transparency{sign.NewRekor(&sign.RekorOptions{
			BaseURL: strings.TrimRight(o.RekorURL, "/"), Timeout: 30 * time.Second, Retries: 1, Version: 1,
		})},
		Context: ctx,
	})
	if err != nil {
		return nil, fmt.Errorf("sign %s: %s", st, redact(err.Error(), o.IDToken))
	}
	out, err := protojson.Marshal(pb)
	if err != nil {
		return nil, fmt.Errorf("sign: encode bundle: %w", err)
	}
	return out, nil
}

// redact clips a signing error to one line and removes the token from it:
// a Fulcio error body might echo what it was sent.
func redact(msg, token string) string {
	if token != "" {
		msg = strings.ReplaceAll(msg, token, "[token]")
	}
	return clip(msg)
}

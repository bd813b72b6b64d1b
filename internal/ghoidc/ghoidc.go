// Package ghoidc fetches a GitHub Actions OIDC identity token: the token a
// workflow with `permissions: id-token: write` may request from the runner,
// which Sigstore's Fulcio exchanges for a certificate naming the workflow
// and which an OAuth authorization server may take as the job's workload
// identity (a JWT bearer assertion), so that no secret is stored at all.
package ghoidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// ErrUnavailable says the environment offers no Actions token request: not
// in GitHub Actions, or the job lacks `permissions: id-token: write`.
var ErrUnavailable = errors.New("no GitHub Actions OIDC token request (ACTIONS_ID_TOKEN_REQUEST_URL/_TOKEN unset; does the job have permissions: id-token: write?)")

// maxResponse bounds the token response: a token is about 1-2 KB.
const maxResponse = 64 << 10

// IDToken requests an OIDC token for audience from the runner named by
// ACTIONS_ID_TOKEN_REQUEST_URL, authenticated by
// ACTIONS_ID_TOKEN_REQUEST_TOKEN (both read through getenv). The request
// URL must be https (or http to a loopback address, for tests). Neither
// the request token nor the returned token is ever part of an error.
func IDToken(ctx context.Context, hc *http.Client, getenv func(string) string, audience string) (string, error) {
	reqURL, reqTok := getenv("ACTIONS_ID_TOKEN_REQUEST_URL"), getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
	if reqURL == "" || reqTok == "" {
		return "", ErrUnavailable
	}
	u, err := url.Parse(reqURL)
	if err != nil || u.Host == "" {
		return "", errors.New("OIDC token request: ACTIONS_ID_TOKEN_REQUEST_URL is not a URL")
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname())) {
		return "", fmt.Errorf("OIDC token request: refusing %s URL to %s (https only)", u.Scheme, u.Host)
	}
	q := u.Query()
	q.Set("audience", audience)
	u.RawQuery = q.Encode()
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("OIDC token request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+reqTok)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL carries no secret, but keep the line short
		}
		return "", fmt.Errorf("OIDC token request to %s: %v", u.Host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return "", fmt.Errorf("OIDC token request to %s: read response: %v", u.Host, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("OIDC token request to %s: HTTP %d", u.Host, resp.StatusCode)
	}
	if len(body) > maxResponse {
		return "", fmt.Errorf("OIDC token request to %s: response larger than %d bytes", u.Host, maxResponse)
	}
	var v struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Value == "" {
		return "", fmt.Errorf("OIDC token request to %s: response has no token", u.Host)
	}
	return v.Value, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

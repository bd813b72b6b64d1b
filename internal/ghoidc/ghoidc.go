// Package ghoidc fetches the GitHub Actions OIDC token of the running job:
// the workload identity a job presents, in place of a stored secret, to an
// authorization server that trusts GitHub's issuer (the RFC 7523 JWT
// bearer grant in internal/oauth).
package ghoidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxResponse bounds the token service's answer; a token is a few KB.
const maxResponse = 64 << 10

// IDToken asks the job's token service (ACTIONS_ID_TOKEN_REQUEST_URL,
// authorized by ACTIONS_ID_TOKEN_REQUEST_TOKEN, both from getenv) for an
// OIDC token with the given audience ("" = the service's default, the
// repository owner's URL). The job needs `permissions: id-token: write`.
// Errors never quote either variable's value or the token.
func IDToken(ctx context.Context, hc *http.Client, getenv func(string) string, audience string) (string, error) {
	reqURL, bearer := getenv("ACTIONS_ID_TOKEN_REQUEST_URL"), getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
	if reqURL == "" || bearer == "" {
		return "", errors.New("GitHub OIDC: ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN are not set: run in a GitHub Actions job with `permissions: id-token: write`")
	}
	u, err := url.Parse(reqURL)
	if err != nil || u.Host == "" {
		return "", errors.New("GitHub OIDC: ACTIONS_ID_TOKEN_REQUEST_URL is not a URL")
	}
	if u.Scheme != "https" && !loopback(u.Hostname()) {
		return "", errors.New("GitHub OIDC: ACTIONS_ID_TOKEN_REQUEST_URL is not https")
	}
	if audience != "" {
		q := u.Query()
		q.Set("audience", audience)
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", errors.New("GitHub OIDC: cannot build the request")
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Accept", "application/json")
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	// The request bearer must not follow a redirect anywhere.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return errors.New("redirect refused") }
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("GitHub OIDC: the token request failed: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil || len(body) > maxResponse {
		return "", errors.New("GitHub OIDC: the token service's answer is unreadable or too large")
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GitHub OIDC: the token service answered HTTP %d", resp.StatusCode)
	}
	var out struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Value == "" {
		return "", errors.New("GitHub OIDC: the token service's answer holds no token")
	}
	if strings.Count(out.Value, ".") != 2 {
		return "", errors.New("GitHub OIDC: the token service's answer is not a JWT")
	}
	return out.Value, nil
}

func loopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

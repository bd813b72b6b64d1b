package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/wardenlock/warden/internal/oauthlogin"
	"github.com/wardenlock/warden/internal/report"
)

// runAuth is 'warden auth SUBCOMMAND'.
func runAuth(ctx context.Context, env Env, args []string) int {
	switch {
	case len(args) > 0 && args[0] == "login":
		return runAuthLogin(ctx, env, args[1:])
	case len(args) > 0 && (args[0] == "-h" || args[0] == "--help"):
		return runAuthLogin(ctx, env, args[:1])
	}
	return fail(env, "usage: warden auth login [flags] URL")
}

// envRef is the only form a secret flag takes: a ${NAME} reference, so the
// secret never sits in argv (ps, shell history, a CI log of the command).
var envRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// runAuthLogin is 'warden auth login URL': the authorization-code flow with
// PKCE, once, on a developer's machine; the refresh token goes to stdout
// alone, for `| gh secret set NAME`, and everything else to stderr.
func runAuthLogin(ctx context.Context, env Env, args []string) int {
	fs := newFlagSet(env, "auth login", "auth login [flags] URL")
	var (
		clientID, clientSecret, metadataURL, scope, print string
		dpopKeyOut                                        string
		port                                              int
		noBrowser, asJSON                                 bool
		timeout                                           float64
	)
	fs.StringVar(&clientID, "client-id", "", "a pre-registered client's `ID` (default: a client ID metadata document or dynamic registration, as the server offers)")
	fs.StringVar(&clientSecret, "client-secret", "", "the pre-registered client's secret, as an environment reference `${NAME}` (never the value)")
	fs.StringVar(&metadataURL, "client-metadata-url", "", "an https `URL` of a client ID metadata document to use as the client ID when the server supports them")
	fs.StringVar(&scope, "scope", "", "space-separated `scopes` to request instead of the ones discovery selects")
	fs.IntVar(&port, "port", 0, "loopback `port` for the redirect (default: a free one; a pre-registered client may need a fixed one)")
	fs.BoolVar(&noBrowser, "no-browser", false, "print the authorization URL to stderr instead of opening a browser")
	fs.Float64Var(&timeout, "timeout", oauthlogin.DefaultTimeout.Seconds(), "`seconds` the whole login may take, consent included")
	fs.StringVar(&print, "print", "refresh-token", "what stdout gets: `refresh-token`, or access-token (short-lived, for a pin right away)")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object (token, client, issuer, resource) on stdout instead of the bare token")
	fs.StringVar(&dpopKeyOut, "dpop-key-out", "", "write the DPoP key a DPoP-bound token is bound to (RFC 9449) to `FILE` (mode 0600), for pin and check's --oauth-dpop-key")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagsDone(env, fs, err)
	}
	if len(pos) != 1 {
		return fail(env, "usage: warden auth login [flags] URL (one server URL)")
	}
	serverURL := pos[0]
	if err := checkServerURL(serverURL); err != nil {
		return fail(env, err.Error())
	}
	if math.IsNaN(timeout) || timeout <= 0 || timeout > 86400 {
		return fail(env, "--timeout must be a number of seconds above 0")
	}
	if port < 0 || port > 65535 {
		return fail(env, "--port must be 0 to 65535")
	}
	if print != "refresh-token" && print != "access-token" {
		return fail(env, fmt.Sprintf("--print must be refresh-token or access-token, not %q", report.Clip(print, 100)))
	}
	var secret string
	if clientSecret != "" {
		m := envRef.FindStringSubmatch(clientSecret)
		if m == nil {
			return fail(env, "--client-secret takes an environment reference ${NAME}, not the secret itself (export it, then pass '--client-secret ${NAME}' in single quotes)")
		}
		secret = env.Getenv(m[1])
		if secret == "" {
			return fail(env, fmt.Sprintf("--client-secret: environment variable %s is unset or empty", m[1]))
		}
		if clientID == "" {
			return fail(env, "--client-secret needs --client-id")
		}
		env.Secrets.Add(secret)
	}
	if metadataURL != "" {
		if u, err := url.Parse(metadataURL); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			return fail(env, "--client-metadata-url must be an https URL with a path")
		}
	}

	ctx, cancel := context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
	defer cancel()
	hc := oauthlogin.NewHTTPClient()
	challenge, err := oauthlogin.Challenge(ctx, hc, serverURL)
	if err != nil {
		return fail(env, "auth login: "+oneLine(err))
	}
	t, err := discoverTarget(ctx, hc, serverURL, challenge)
	if err != nil {
		return fail(env, "auth login: discovery: "+oneLine(err))
	}
	if scope != "" {
		t.Scopes = strings.Fields(scope)
	}
	opts := oauthlogin.Options{
		HTTPClient:        hc,
		ClientID:          clientID,
		ClientSecret:      secret,
		ClientMetadataURL: metadataURL,
		Port:              port,
		Timeout:           time.Duration(timeout * float64(time.Second)),
		Open: func(authURL string) error {
			if !noBrowser {
				if err := openBrowser(authURL); err == nil {
					fmt.Fprintf(env.Stderr, "warden: opened the browser at the authorization server %s; if it did not open, visit:\n", t.Issuer)
				} else {
					fmt.Fprintf(env.Stderr, "warden: could not open a browser (%s); visit:\n", oneLine(err))
				}
			} else {
				fmt.Fprintln(env.Stderr, "warden: visit this URL to authorize warden:")
			}
			fmt.Fprintln(env.Stderr, authURL)
			return nil
		},
	}
	dp, err := loginDPoP(&opts, t)
	if err != nil {
		return fail(env, "auth login: "+oneLine(err))
	}
	res, err := oauthlogin.Login(ctx, t, opts)
	if err != nil {
		return fail(env, "auth login: "+oneLine(err))
	}
	dpopPEM, err := boundKey(dp, res.Token, dpopKeyOut, asJSON, func(line string) { fmt.Fprintf(env.Stderr, "warden: %s\n", line) })
	if err != nil {
		return fail(env, "auth login: "+oneLine(err))
	}
	tok := res.Token.RefreshToken
	if print == "access-token" {
		tok = res.Token.AccessToken
	} else if tok == "" {
		return fail(env, fmt.Sprintf("auth login: %s issued no refresh token (it did not advertise offline_access, or does not give refresh tokens to this client): a CI job cannot renew this login; use a client-credentials grant if the server offers one", t.Issuer))
	}
	if asJSON {
		out := map[string]any{
			"issuer":       t.Issuer,
			"resource":     t.Resource,
			"registration": string(res.Registration),
			"client_id":    res.ClientID,
			"token_endpoint_auth": map[oauth2.AuthStyle]string{
				oauth2.AuthStyleInHeader: "client_secret_basic",
				oauth2.AuthStyleInParams: authParamsName(res.ClientSecret),
			}[res.AuthStyle],
			"scope": strings.Join(res.Scopes, " "),
		}
		if res.ClientSecret != "" && res.Registration == oauthlogin.Dynamic {
			out["client_secret"] = res.ClientSecret
		}
		out[strings.ReplaceAll(print, "-", "_")] = tok
		if dpopPEM != nil {
			out["token_type"] = "DPoP"
			out["dpop_key"] = string(dpopPEM)
		}
		b, _ := json.Marshal(out)
		fmt.Fprintln(env.Stdout, string(b))
	} else {
		fmt.Fprintln(env.Stdout, tok)
	}
	// The client's ID is not secret; a registration that issued a secret
	// is said to have done so, and the secret goes only to --json's stdout.
	fmt.Fprintf(env.Stderr, "warden: signed in at %s for %s as %s %s\n", t.Issuer, t.Resource, res.Registration, report.Clip(res.ClientID, 300))
	if res.Registration == oauthlogin.Dynamic {
		fmt.Fprintf(env.Stderr, "warden: reuse this client: store its ID with the token (oauth-client-id: %s)", report.Clip(res.ClientID, 300))
		if res.ClientSecret != "" {
			if asJSON {
				fmt.Fprint(env.Stderr, " and the client_secret of the JSON as a secret too")
			} else {
				fmt.Fprint(env.Stderr, "; the server also issued a client secret, which the refresh needs: run again with --json to get it")
			}
		}
		fmt.Fprintln(env.Stderr)
	}
	if print == "refresh-token" {
		fmt.Fprintln(env.Stderr, "warden: stdout is the refresh token: store it as a CI secret (warden auth login URL | gh secret set NAME). If the server rotates refresh tokens, each use issues a new one and may retire this one: a job then has to store the new token back, or the next job fails until someone logs in again (see docs/oauth-login.md).")
	}
	return ExitClean
}

func authParamsName(secret string) string {
	if secret == "" {
		return "none"
	}
	return "client_secret_post"
}

// checkServerURL allows https, and http only to a loopback host.
func checkServerURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("auth login: %q is not an http(s) URL", report.Clip(raw, 200))
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		h := u.Hostname()
		if ip := net.ParseIP(h); h == "localhost" || (ip != nil && ip.IsLoopback()) {
			return nil
		}
		return fmt.Errorf("auth login: %s is plain http to a host that is not loopback; tokens go only over https", report.Clip(raw, 200))
	}
	return fmt.Errorf("auth login: %q is not an http(s) URL", report.Clip(raw, 200))
}

// openBrowser starts the desktop's URL handler with the URL as one argv
// element (no shell), and does not wait for it.
func openBrowser(u string) error {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return errors.New(name + " not found")
	}
	cmd := exec.Command(path, append(args, u)...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

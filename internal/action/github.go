package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v93/github"

	"github.com/wardenlock/warden/internal/lock"
)

// DefaultAPIURL is GitHub's REST API, used when GITHUB_API_URL is unset.
// On GitHub Enterprise Server the runner sets GITHUB_API_URL to the
// server's own API (https://HOST/api/v3).
const DefaultAPIURL = "https://api.github.com"

// Bounds of warden's use of the REST API.
const (
	// apiRequestTimeout bounds each request, connection to last byte.
	apiRequestTimeout = 60 * time.Second
	// maxAPIResponseBytes bounds each response body: room for a raw lock
	// file of lock.MaxFileBytes, far more than a page of comments.
	maxAPIResponseBytes = lock.MaxFileBytes + 1<<20
	// maxCommentPages bounds the pages of comments searched for warden's
	// own (100 per page).
	maxCommentPages = 50
	// githubActionsBot is the login of the workflow token (GITHUB_TOKEN).
	githubActionsBot = "github-actions[bot]"
	// githubActionsBotID is githubActionsBot's user id on github.com. A
	// GitHub Enterprise Server instance numbers its own users, so the id
	// is checked only against api.github.com.
	githubActionsBotID = 41898282
	// dotcomAPIHost is github.com's API host.
	dotcomAPIHost = "api.github.com"
)

// githubAPI is the part of the GitHub REST API warden uses: the pull
// request's comments and, when git cannot provide it, the base branch's
// lock. Every call is bounded in time and size.
type githubAPI struct {
	client      *github.Client
	owner, repo string
	// botID is the user id the workflow token's comments must carry when
	// GET /user cannot say who the token is; 0 when the API's host has no
	// known id for githubActionsBot (GitHub Enterprise Server).
	botID int64
}

// newGitHubAPI returns a client for the repository owner/repo at the REST
// API base apiURL (GITHUB_API_URL; DefaultAPIURL when empty), sending
// token. The token goes only to the API's own origin.
func newGitHubAPI(apiURL, token, owner, repo, userAgent string) (*githubAPI, error) {
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q is not an http(s) URL of an API", apiURL)
	}
	if token == "" {
		return nil, errors.New("no token: set the github-token input")
	}
	httpClient := &http.Client{
		Timeout:   apiRequestTimeout,
		Transport: boundedTransport{next: http.DefaultTransport, max: maxAPIResponseBytes},
	}
	c, err := github.NewClient(
		github.WithHTTPClient(httpClient),
		github.WithURLs(&apiURL, &apiURL),
		github.WithAuthToken(token),
		github.WithUserAgent(userAgent),
	)
	if err != nil {
		return nil, fmt.Errorf("GitHub API client: %w", err)
	}
	a := &githubAPI{client: c, owner: owner, repo: repo}
	if strings.EqualFold(u.Hostname(), dotcomAPIHost) {
		a.botID = githubActionsBotID
	}
	return a, nil
}

// boundedTransport caps every response body at max bytes: reading past it
// fails instead of growing without end.
type boundedTransport struct {
	next http.RoundTripper
	max  int64
}

// RoundTrip sends req and wraps the response body in the cap.
func (t boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{ReadCloser: resp.Body, left: t.max}
	return resp, nil
}

// errResponseTooLarge is returned by a read past boundedTransport's cap.
var errResponseTooLarge = errors.New("the API response is larger than warden accepts")

// boundedBody is a response body that fails once more than left bytes
// have been read.
type boundedBody struct {
	io.ReadCloser
	left int64
}

// Read reads from the body, failing past the cap.
func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the cap from a longer one.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, errResponseTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// identity returns who the token acts as, or nil when GET /user does not
// say (the workflow token and app tokens cannot read /user) or answers
// without a login.
func (a *githubAPI) identity(ctx context.Context) *github.User {
	u, _, err := a.client.Users.Get(ctx, "")
	if err != nil || u.GetLogin() == "" {
		return nil
	}
	return u
}

// ownComment reports whether a comment by author is one this token wrote.
// With a known identity (me) that is the same login and, when the API
// gives ids, the same id. Without one the token is taken to be the
// workflow token, so the author must be githubActionsBot exactly: a Bot
// of that login and, on github.com, of its id. Any other bot or person
// that copies the marker, whatever its login looks like, is never taken
// for warden.
func (a *githubAPI) ownComment(author, me *github.User) bool {
	if author == nil {
		return false
	}
	if me != nil {
		if author.GetLogin() != me.GetLogin() {
			return false
		}
		return me.GetID() == 0 || author.GetID() == me.GetID()
	}
	if author.GetLogin() != githubActionsBot || author.GetType() != "Bot" {
		return false
	}
	return a.botID == 0 || author.GetID() == a.botID
}

// findComment returns the id of warden's comment on pull request number:
// the first one whose body starts with marker and whose author is the
// token's identity me (nil: the workflow token; see ownComment). It
// returns 0 when there is none.
func (a *githubAPI) findComment(ctx context.Context, number int, marker string, me *github.User) (int64, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < maxCommentPages; page++ {
		comments, resp, err := a.client.Issues.ListComments(ctx, a.owner, a.repo, number, opts)
		if err != nil {
			return 0, fmt.Errorf("list the comments of pull request #%d: %w", number, err)
		}
		for _, c := range comments {
			if strings.HasPrefix(c.GetBody(), marker) && a.ownComment(c.GetUser(), me) {
				return c.GetID(), nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return 0, nil
		}
		opts.Page = resp.NextPage
	}
	return 0, fmt.Errorf("list the comments of pull request #%d: more than %d pages", number, maxCommentPages)
}

// createComment adds a comment to pull request number.
func (a *githubAPI) createComment(ctx context.Context, number int, body string) error {
	if _, _, err := a.client.Issues.CreateComment(ctx, a.owner, a.repo, number, github.IssueCommentRequest{Body: body}); err != nil {
		return fmt.Errorf("comment on pull request #%d: %w", number, err)
	}
	return nil
}

// updateComment replaces the body of comment id.
func (a *githubAPI) updateComment(ctx context.Context, id int64, body string) error {
	if _, _, err := a.client.Issues.UpdateComment(ctx, a.owner, a.repo, id, github.IssueCommentRequest{Body: body}); err != nil {
		return fmt.Errorf("edit comment %d: %w", id, err)
	}
	return nil
}

// fileAt returns the file at path (slash-separated, relative to the
// repository root) as of commit sha, through the contents API's raw media
// type (files up to 100 MB), at most max bytes. found is false when the
// commit exists but has no file there.
func (a *githubAPI) fileAt(ctx context.Context, path, sha string, max int64) (data []byte, found bool, err error) {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := fmt.Sprintf("repos/%s/%s/contents/%s?ref=%s", url.PathEscape(a.owner), url.PathEscape(a.repo), strings.Join(segs, "/"), url.QueryEscape(sha))
	req, err := a.client.NewRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("read %s at %s: %w", path, sha, err)
	}
	req.Header.Set("Accept", "application/vnd.github.raw+json")
	resp, err := a.client.BareDo(req)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			// Not found is also what a token that cannot read the
			// repository gets: it means "no such file" only when the
			// commit itself can be read.
			if _, _, cerr := a.client.Git.GetCommit(ctx, a.owner, a.repo, sha); cerr != nil {
				return nil, false, fmt.Errorf("read %s at %s: not found, and the commit cannot be read either: %w", path, sha, cerr)
			}
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("read %s at %s: %w", path, sha, err)
	}
	defer resp.Body.Close()
	data, err = io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("read %s at %s: %w", path, sha, err)
	}
	if int64(len(data)) > max {
		return nil, false, fmt.Errorf("read %s at %s: larger than %d bytes", path, sha, max)
	}
	return data, true, nil
}

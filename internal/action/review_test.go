package action

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v93/github"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/testserver"
)

// fakeGitHub is a local stand-in for the GitHub REST API (an httptest
// server on 127.0.0.1): the calls warden makes for its pull-request comment
// and the base lock, with every call recorded.
type fakeGitHub struct {
	t   *testing.T
	srv *httptest.Server

	mu    sync.Mutex
	calls []string
	// comments are the pull request's, oldest first.
	comments []fakeComment
	nextID   int64
	// login is what GET /user answers; "" answers 403, as for the
	// workflow token.
	login string
	// files maps "ref:path" to the contents API's raw answer; commits
	// lists the commits GET git/commits knows.
	files   map[string][]byte
	commits map[string]bool
	// fail makes every call answer 500.
	fail bool
	// token is the token every call must carry.
	token string
	// prefix is the API's path on the server: "" for api.github.com,
	// "/api/v3" for GitHub Enterprise Server.
	prefix string
}

type fakeComment struct {
	ID   int64
	Body string
	// Login, Type and UserID are the author's.
	Login, Type string
	UserID      int64
}

// fakeUserID is the user id of the stand-in's login (when it has one).
const fakeUserID = 5150

// newFakeGitHub starts the stand-in for repository o/r, pull request 7.
func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{t: t, nextID: 100, files: map[string][]byte{}, commits: map[string]bool{}, token: "test-token"}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// callList returns the calls made so far, as "METHOD /path?query".
func (f *fakeGitHub) callList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// commentList returns the pull request's comments.
func (f *fakeGitHub) commentList() []fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeComment(nil), f.comments...)
}

// count returns how many calls start with prefix.
func (f *fakeGitHub) count(prefix string) int {
	n := 0
	for _, c := range f.callList() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func (f *fakeGitHub) serve(w http.ResponseWriter, req *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !strings.HasPrefix(req.URL.Path, f.prefix+"/") {
		f.t.Errorf("%s %s: not under the API base %q", req.Method, req.URL.Path, f.prefix)
	}
	req.URL.Path = strings.TrimPrefix(req.URL.Path, f.prefix)
	call := req.Method + " " + req.URL.Path
	if req.URL.RawQuery != "" {
		call += "?" + req.URL.RawQuery
	}
	f.calls = append(f.calls, call)
	if got := req.Header.Get("Authorization"); got != "Bearer "+f.token {
		f.t.Errorf("%s: Authorization %q", call, got)
	}
	if f.fail {
		http.Error(w, `{"message":"Server Error ::error::forged"}`, http.StatusInternalServerError)
		return
	}
	reply := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	notFound := func() { reply(http.StatusNotFound, map[string]string{"message": "Not Found"}) }
	asJSON := func(c fakeComment) map[string]any {
		return map[string]any{"id": c.ID, "body": c.Body, "user": map[string]any{"login": c.Login, "type": c.Type, "id": c.UserID}}
	}
	p := req.URL.Path
	switch {
	case req.Method == http.MethodGet && p == "/user":
		if f.login == "" {
			reply(http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
			return
		}
		reply(http.StatusOK, map[string]any{"login": f.login, "type": "User", "id": fakeUserID})
	case req.Method == http.MethodGet && p == "/repos/o/r/issues/7/comments":
		// Two per page, so that pagination is exercised.
		page, _ := strconv.Atoi(req.URL.Query().Get("page"))
		if page < 1 {
			page = 1
		}
		var out []map[string]any
		for i := (page - 1) * 2; i < len(f.comments) && i < page*2; i++ {
			out = append(out, asJSON(f.comments[i]))
		}
		if page*2 < len(f.comments) {
			w.Header().Set("Link", fmt.Sprintf(`<%s%s/repos/o/r/issues/7/comments?per_page=100&page=%d>; rel="next"`, f.srv.URL, f.prefix, page+1))
		}
		if out == nil {
			out = []map[string]any{}
		}
		reply(http.StatusOK, out)
	case req.Method == http.MethodPost && p == "/repos/o/r/issues/7/comments":
		var body struct{ Body string }
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			f.t.Errorf("create comment: %v", err)
		}
		f.nextID++
		c := fakeComment{ID: f.nextID, Body: body.Body, Login: "github-actions[bot]", Type: "Bot", UserID: githubActionsBotID}
		if f.login != "" {
			c.Login, c.Type, c.UserID = f.login, "User", fakeUserID
		}
		f.comments = append(f.comments, c)
		reply(http.StatusCreated, asJSON(c))
	case req.Method == http.MethodPatch && strings.HasPrefix(p, "/repos/o/r/issues/comments/"):
		id, _ := strconv.ParseInt(strings.TrimPrefix(p, "/repos/o/r/issues/comments/"), 10, 64)
		var body struct{ Body string }
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			f.t.Errorf("update comment: %v", err)
		}
		for i := range f.comments {
			if f.comments[i].ID == id {
				f.comments[i].Body = body.Body
				reply(http.StatusOK, asJSON(f.comments[i]))
				return
			}
		}
		notFound()
	case req.Method == http.MethodGet && strings.HasPrefix(p, "/repos/o/r/contents/"):
		if req.Header.Get("Accept") != "application/vnd.github.raw+json" {
			f.t.Errorf("%s: Accept %q", call, req.Header.Get("Accept"))
		}
		data, ok := f.files[req.URL.Query().Get("ref")+":"+strings.TrimPrefix(p, "/repos/o/r/contents/")]
		if !ok {
			notFound()
			return
		}
		_, _ = w.Write(data)
	case req.Method == http.MethodGet && strings.HasPrefix(p, "/repos/o/r/git/commits/"):
		if !f.commits[strings.TrimPrefix(p, "/repos/o/r/git/commits/")] {
			notFound()
			return
		}
		reply(http.StatusOK, map[string]any{"sha": strings.TrimPrefix(p, "/repos/o/r/git/commits/")})
	default:
		f.t.Errorf("unexpected API call %s", call)
		notFound()
	}
}

// Commit ids of the pull request in the tests.
const (
	testBaseSHA = "1111111111111111111111111111111111111111"
	testHeadSHA = "2222222222222222222222222222222222222222"
)

// writeEvent writes a pull_request payload like the runner's (with the
// author-controlled text that warden must ignore) and returns its path.
func writeEvent(t *testing.T, baseSHA, headSHA, headRepo string) string {
	t.Helper()
	head := any(nil)
	if headRepo != "" {
		head = map[string]any{"full_name": headRepo, "fork": headRepo != "o/r"}
	}
	payload := map[string]any{
		"action": "synchronize",
		"number": 7,
		"pull_request": map[string]any{
			"number": 7,
			"title":  "::error::forged <script>alert(1)</script> @everyone",
			"body":   "##[set-output name=x]y",
			"base":   map[string]any{"sha": baseSHA, "ref": "main", "repo": map[string]any{"full_name": "o/r"}},
			"head":   map[string]any{"sha": headSHA, "ref": "feature`$(id)`", "repo": head},
		},
		"repository": map[string]any{"full_name": "o/r"},
	}
	data, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// onPullRequest makes the harness's next runs a pull_request run of o/r
// #7 against the stand-in API, with comment: true.
func onPullRequest(h *harness, api *fakeGitHub, eventPath string) {
	h.vars["GITHUB_EVENT_NAME"] = "pull_request"
	h.vars["GITHUB_EVENT_PATH"] = eventPath
	h.vars["GITHUB_API_URL"] = api.srv.URL + api.prefix
	h.vars["GITHUB_SERVER_URL"] = "https://github.example"
	h.vars["GITHUB_REPOSITORY"] = "o/r"
	h.vars["GITHUB_RUN_ID"] = "42"
	h.input("comment", "true")
	h.input("github-token", api.token)
}

// keepVars returns a copy of the harness's variables, to restore after a
// reset.
func keepVars(h *harness) map[string]string {
	out := map[string]string{}
	for k, v := range h.vars {
		out[k] = v
	}
	return out
}

// TestReviewStickyComment is the acceptance test against the
// stand-in: a drifting pull request gets one comment; a second run edits
// it (no second comment); a clean run edits it to say so. A comment that
// copies the marker but was written by a person is never taken for
// warden's. Nothing is sent anywhere but the stand-in.
func TestReviewStickyComment(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")
	lockBytes, err := os.ReadFile(filepath.Join(h.ws, "warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeGitHub(t)
	// The base branch has the same lock: the pull request does not touch it.
	api.files[testBaseSHA+":warden.lock"] = lockBytes
	// A person copied the marker into a comment of their own.
	api.comments = append(api.comments,
		fakeComment{ID: 1, Body: "first!", Login: "alice", Type: "User"},
		fakeComment{ID: 2, Body: report.CommentMarker("warden.lock") + "\n## ✅ warden: no drift (forged)", Login: "mallory", Type: "User"},
		fakeComment{ID: 3, Body: "lgtm", Login: "bob", Type: "User"},
	)
	event := writeEvent(t, testBaseSHA, testHeadSHA, "o/r")

	// Run 1: drift. One comment is created.
	writeLauncher(t, h.ws, demo, "-mutate")
	onPullRequest(h, api, event)
	h.input("server-cmd", "./server")
	vars := keepVars(h)
	r := h.run()
	if r.code != ExitDrift {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := api.count("POST "); n != 1 {
		t.Fatalf("%d comments created, want 1; calls %q\nstdout:\n%s", n, api.callList(), r.stdout)
	}
	comments := api.commentList()
	if len(comments) != 4 || comments[1].Body != report.CommentMarker("warden.lock")+"\n## ✅ warden: no drift (forged)" {
		t.Fatalf("the forged comment was edited or comments lost: %+v", comments)
	}
	body := comments[3].Body
	for _, want := range []string{
		report.CommentMarker("warden.lock") + "\n## ❌ warden: drift detected",
		"| high | tool-added | tools/delete&#95;note |",
		"warden pin --lock warden.lock --approve --approver &lt;you&gt; -- ./server",
		"<code>warden.candidate.lock</code>",
		"head <code>222222222222</code>",
		"[workflow run](https://github.example/o/r/actions/runs/42)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "What this pull request approves") {
		t.Errorf("an unchanged lock is reported as changed:\n%s", body)
	}
	if !strings.Contains(r.stdout, "commented on pull request #7") {
		t.Errorf("the log does not say a comment was made:\n%s", r.stdout)
	}
	assertOutputs(t, r, map[string]string{"exit-code": "1", "verdict": "drift", "drift-count": r.outputs["drift-count"],
		"overall-digest": "<digest>", "sarif": "warden.sarif", "candidate-lock": "warden.candidate.lock"})

	// Run 2: drift again. The comment is edited; there is no second one.
	h.reset()
	h.vars = vars
	r = h.run()
	if r.code != ExitDrift {
		t.Fatalf("second run exit %d", r.code)
	}
	if n := api.count("POST "); n != 1 {
		t.Errorf("a second comment was created: calls %q", api.callList())
	}
	if n := api.count("PATCH /repos/o/r/issues/comments/101"); n != 1 {
		t.Errorf("warden's comment was not edited exactly once: calls %q", api.callList())
	}
	if n := api.count("PATCH /repos/o/r/issues/comments/2"); n != 0 {
		t.Errorf("the forged comment was edited: calls %q", api.callList())
	}
	if !strings.Contains(r.stdout, "updated warden's comment on pull request #7") {
		t.Errorf("the log does not say the comment was updated:\n%s", r.stdout)
	}

	// Run 3: the server is clean again. The comment says so.
	h.reset()
	h.vars = vars
	writeLauncher(t, h.ws, demo)
	r = h.run()
	if r.code != ExitClean {
		t.Fatalf("clean run exit %d\n%s", r.code, r.stdout)
	}
	comments = api.commentList()
	if len(comments) != 4 || !strings.Contains(comments[3].Body, "## ✅ warden: no drift") || strings.Contains(comments[3].Body, "drift detected") {
		t.Errorf("the comment does not say the run is clean: %+v", comments)
	}
	if n := api.count("POST "); n != 1 {
		t.Errorf("calls %q", api.callList())
	}
	for _, c := range api.callList() {
		if !strings.HasPrefix(c, "GET /user") && !strings.Contains(c, "/repos/o/r/") {
			t.Errorf("call outside the repository: %s", c)
		}
	}
}

// TestReviewStickyCommentByLogin: with a token whose login the API names
// (a personal token), warden's comment is the one that login wrote, and a
// clean run with no comment yet creates none.
func TestReviewStickyCommentByLogin(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")
	api := newFakeGitHub(t)
	api.login = "warden-bot"
	lockBytes, _ := os.ReadFile(filepath.Join(h.ws, "warden.lock"))
	api.files[testBaseSHA+":warden.lock"] = lockBytes
	onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
	writeLauncher(t, h.ws, demo)
	h.input("server-cmd", "./server")
	vars := keepVars(h)

	r := h.run()
	if r.code != ExitClean || api.count("POST ") != 0 || !strings.Contains(r.stdout, "no comment on pull request #7") {
		t.Fatalf("clean run without a comment: exit %d, calls %q\n%s", r.code, api.callList(), r.stdout)
	}

	h.reset()
	h.vars = vars
	writeLauncher(t, h.ws, demo, "-mutate")
	if r := h.run(); r.code != ExitDrift || api.count("POST ") != 1 {
		t.Fatalf("drift: exit %d, calls %q", r.code, api.callList())
	}
	h.reset()
	h.vars = vars
	if r := h.run(); r.code != ExitDrift || api.count("POST ") != 1 || api.count("PATCH ") != 1 {
		t.Fatalf("drift again: exit %d, calls %q", r.code, api.callList())
	}
	if c := api.commentList(); len(c) != 1 || c[0].Login != "warden-bot" {
		t.Errorf("comments %+v", c)
	}
}

// TestReviewCommentOwnerWithoutIdentity is issue 20's item 10: with the
// workflow token GET /user is refused, and only a comment by
// github-actions[bot] itself may be taken for warden's. A marker comment
// by another bot, or by an account whose login merely resembles the bot's,
// is never edited: warden creates its own comment instead.
func TestReviewCommentOwnerWithoutIdentity(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")
	lockBytes, err := os.ReadFile(filepath.Join(h.ws, "warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	marker := report.CommentMarker("warden.lock")
	forged := marker + "\n## ✅ warden: no drift (forged)"
	tests := []struct {
		name     string
		comments []fakeComment
		// wantEdit is the comment warden must edit; 0: it must create one.
		wantEdit int64
	}{
		{"another bot", []fakeComment{{ID: 1, Body: forged, Login: "evil-app[bot]", Type: "Bot", UserID: 666}}, 0},
		{"a person with the bot's login", []fakeComment{{ID: 1, Body: forged, Login: githubActionsBot, Type: "User", UserID: 667}}, 0},
		{"the bot's login in another case", []fakeComment{{ID: 1, Body: forged, Login: "GitHub-Actions[bot]", Type: "Bot", UserID: 668}}, 0},
		{"the bot's login without [bot]", []fakeComment{{ID: 1, Body: forged, Login: "github-actions", Type: "Bot", UserID: 669}}, 0},
		{"a bot with an empty login", []fakeComment{{ID: 1, Body: forged, Login: "", Type: "Bot"}}, 0},
		{"warden's own", []fakeComment{{ID: 1, Body: forged, Login: githubActionsBot, Type: "Bot", UserID: githubActionsBotID}}, 1},
		{"an impostor before warden's own", []fakeComment{
			{ID: 1, Body: forged, Login: "evil-app[bot]", Type: "Bot", UserID: 666},
			{ID: 2, Body: "lgtm", Login: "bob", Type: "User", UserID: 7},
			{ID: 3, Body: marker + "\nold", Login: githubActionsBot, Type: "Bot", UserID: githubActionsBotID},
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeGitHub(t)
			api.files[testBaseSHA+":warden.lock"] = lockBytes
			api.comments = append(api.comments, tt.comments...)
			h.reset()
			writeLauncher(t, h.ws, demo, "-mutate")
			onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
			h.input("server-cmd", "./server")
			r := h.run()
			if r.code != ExitDrift {
				t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if api.count("GET /user") == 0 {
				t.Errorf("GET /user was not asked: calls %q", api.callList())
			}
			got := api.commentList()
			for _, c := range tt.comments {
				if c.ID == tt.wantEdit {
					continue
				}
				if n := api.count(fmt.Sprintf("PATCH /repos/o/r/issues/comments/%d", c.ID)); n != 0 {
					t.Errorf("comment %d by %q (%s) was edited", c.ID, c.Login, c.Type)
				}
			}
			for i, c := range tt.comments {
				if c.ID != tt.wantEdit && got[i].Body != c.Body {
					t.Errorf("comment %d by %q changed to %q", c.ID, c.Login, got[i].Body)
				}
			}
			if tt.wantEdit == 0 {
				if n := api.count("POST /repos/o/r/issues/7/comments"); n != 1 || len(got) != len(tt.comments)+1 {
					t.Fatalf("warden did not create its own comment: calls %q", api.callList())
				}
				if own := got[len(got)-1]; own.Login != githubActionsBot || !strings.Contains(own.Body, "drift detected") {
					t.Errorf("new comment %+v", own)
				}
				return
			}
			if n := api.count(fmt.Sprintf("PATCH /repos/o/r/issues/comments/%d", tt.wantEdit)); n != 1 || api.count("POST ") != 0 {
				t.Errorf("warden's comment %d was not edited once (and none created): calls %q", tt.wantEdit, api.callList())
			}
		})
	}
}

// TestOwnComment: who counts as the token's own author, with and without
// an identity from GET /user, on github.com (where the workflow bot's id
// is known) and on GitHub Enterprise Server (where it is not).
func TestOwnComment(t *testing.T) {
	user := func(login, typ string, id int64) *github.User {
		return &github.User{Login: github.Ptr(login), Type: github.Ptr(typ), ID: github.Ptr(id)}
	}
	bot := user(githubActionsBot, "Bot", githubActionsBotID)
	me := user("warden-bot", "User", 77)
	tests := []struct {
		name   string
		apiURL string
		author *github.User
		me     *github.User
		want   bool
	}{
		{"dotcom: the workflow bot", DefaultAPIURL, bot, nil, true},
		{"dotcom: the bot's login with another id", DefaultAPIURL, user(githubActionsBot, "Bot", 1), nil, false},
		{"dotcom: the bot's login and no id", DefaultAPIURL, &github.User{Login: github.Ptr(githubActionsBot), Type: github.Ptr("Bot")}, nil, false},
		{"dotcom: another bot", DefaultAPIURL, user("dependabot[bot]", "Bot", 49699333), nil, false},
		{"dotcom: the bot's login as a user", DefaultAPIURL, user(githubActionsBot, "User", githubActionsBotID), nil, false},
		{"dotcom: no author", DefaultAPIURL, nil, nil, false},
		{"GHES: the workflow bot has its own id", "https://ghe.example/api/v3", user(githubActionsBot, "Bot", 12), nil, true},
		{"GHES: the bot's login in another case", "https://ghe.example/api/v3", user("Github-Actions[bot]", "Bot", 12), nil, false},
		{"GHES: another bot", "https://ghe.example/api/v3", user("evil[bot]", "Bot", 13), nil, false},
		{"known identity: itself", DefaultAPIURL, user("warden-bot", "User", 77), me, true},
		{"known identity: its login, another id", DefaultAPIURL, user("warden-bot", "User", 78), me, false},
		{"known identity: its login in another case", DefaultAPIURL, user("Warden-Bot", "User", 77), me, false},
		{"known identity: the workflow bot", DefaultAPIURL, bot, me, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := newGitHubAPI(tt.apiURL, "t", "o", "r", "warden/test")
			if err != nil {
				t.Fatal(err)
			}
			if got := a.ownComment(tt.author, tt.me); got != tt.want {
				t.Errorf("ownComment = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestReviewEnterpriseServer: the API base comes from GITHUB_API_URL,
// path and all (GitHub Enterprise Server serves it under /api/v3).
func TestReviewEnterpriseServer(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")
	api := newFakeGitHub(t)
	api.prefix = "/api/v3"
	onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
	writeLauncher(t, h.ws, demo, "-mutate")
	h.input("server-cmd", "./server")
	if r := h.run(); r.code != ExitDrift {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	if c := api.commentList(); len(c) != 1 || api.count("POST /repos/o/r/issues/7/comments") != 1 {
		t.Errorf("comments %+v, calls %q", c, api.callList())
	}
}

// TestReviewNoAPICall: a fork's pull request, a run without comment: true,
// other events and a missing token make no API call at all; the fork and
// the other event say why in a notice, and the verdict is the check's.
func TestReviewNoAPICall(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	tests := []struct {
		name       string
		setup      func(h *harness, api *fakeGitHub)
		wantNotice string
	}{
		{"fork", func(h *harness, api *fakeGitHub) {
			onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "mallory/r"))
		}, "pull request #7 comes from a fork (mallory/r): warden makes no GitHub API call"},
		{"deleted fork", func(h *harness, api *fakeGitHub) {
			onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, ""))
		}, "comes from a fork (a deleted repository)"},
		{"fork, target event", func(h *harness, api *fakeGitHub) {
			onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "mallory/r"))
			h.vars["GITHUB_EVENT_NAME"] = "pull_request_target"
		}, "comes from a fork"},
		{"comment not set", func(h *harness, api *fakeGitHub) {
			onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
			delete(h.vars, "INPUT_COMMENT")
		}, ""},
		{"comment false", func(h *harness, api *fakeGitHub) {
			onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
			h.input("comment", "false")
		}, ""},
		{"push", func(h *harness, api *fakeGitHub) {
			onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
			h.vars["GITHUB_EVENT_NAME"] = "push"
		}, "comment: true has no effect on a push event"},
		{"no token", func(h *harness, api *fakeGitHub) {
			onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
			delete(h.vars, "INPUT_GITHUB-TOKEN")
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			pinDemo(t, h, demo, ".")
			api := newFakeGitHub(t)
			tt.setup(h, api)
			writeLauncher(t, h.ws, demo, "-mutate")
			h.input("server-cmd", "./server")
			r := h.run()
			if r.code != ExitDrift {
				t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if calls := api.callList(); len(calls) != 0 {
				t.Errorf("API calls were made: %q", calls)
			}
			if tt.wantNotice != "" && !regexp.MustCompile(`(?m)^::notice title=warden::.*`+regexp.QuoteMeta(tt.wantNotice)).MatchString(r.stdout) {
				t.Errorf("no notice %q:\n%s", tt.wantNotice, r.stdout)
			}
			if r.outputs["candidate-lock"] != "warden.candidate.lock" {
				t.Errorf("candidate-lock = %q", r.outputs["candidate-lock"])
			}
			// Without git and without the API, the lock review is not
			// available: a notice and a line in the summary, no warning.
			pr := r.summary != "" && tt.name != "push"
			if pr && !strings.Contains(r.summary, "could not be read") {
				t.Errorf("summary does not say why the lock changes are missing:\n%s", r.summary)
			}
			if pr && !strings.Contains(r.stdout, "::notice title=warden::what this pull request changes in the lock is not shown: the base lock was not read from git (the workspace is not a git checkout)") {
				t.Errorf("no notice about the lock review:\n%s", r.stdout)
			}
			if tt.name != "no token" && strings.Contains(r.stdout, "::warning") {
				t.Errorf("warnings:\n%s", r.stdout)
			}
		})
	}
}

// TestReviewAPIFailure: every API call fails; the run reports the
// failure as a warning, quotes nothing the API said as a command, and
// exits with the check's own code.
func TestReviewAPIFailure(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	for _, tt := range []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"drift", []string{"-mutate"}, ExitDrift},
		{"clean", nil, ExitClean},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			pinDemo(t, h, demo, ".")
			api := newFakeGitHub(t)
			api.fail = true
			onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
			writeLauncher(t, h.ws, demo, tt.args...)
			h.input("server-cmd", "./server")
			r := h.run()
			if r.code != tt.wantCode || r.outputs["exit-code"] != strconv.Itoa(tt.wantCode) {
				t.Fatalf("exit %d (output %q), want %d\n%s", r.code, r.outputs["exit-code"], tt.wantCode, r.stdout)
			}
			if !regexp.MustCompile(`(?m)^::warning title=warden::the pull request comment was not updated: list the comments of pull request #7: .*500`).MatchString(r.stdout) {
				t.Errorf("no warning about the failed call:\n%s", r.stdout)
			}
			if !regexp.MustCompile(`(?m)^::warning title=warden::what this pull request changes in the lock is not shown`).MatchString(r.stdout) {
				t.Errorf("no warning about the unread base lock:\n%s", r.stdout)
			}
			assertLogInert(t, r)
			if api.count("POST ") != 0 {
				t.Errorf("calls %q", api.callList())
			}
		})
	}
}

// TestReviewCommentOnError: an error run edits the comment to say so
// (a stale "no drift" must not stay), with the exit code 2.
func TestReviewCommentOnError(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")
	api := newFakeGitHub(t)
	onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
	h.input("server-cmd", "./missing-server")
	r := h.run()
	if r.code != ExitError {
		t.Fatalf("exit %d", r.code)
	}
	c := api.commentList()
	if len(c) != 1 || !strings.Contains(c[0].Body, "## ⚠️ warden: error") || !strings.Contains(c[0].Body, "missing-server") {
		t.Errorf("comments %+v", c)
	}
	if r.outputs["candidate-lock"] != "" {
		t.Errorf("candidate-lock %q on error", r.outputs["candidate-lock"])
	}
}

// gitCmd runs git in dir with a fixed identity and no user configuration.
func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// needGit skips a test when git is not installed.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// rePin makes the pull request of the lock-review tests in the
// harness's workspace, a git repository: the base commit holds the lock
// pinned from the demo server, the head commit the lock re-pinned
// (approved) from the mutated server, which then runs, so the check is
// clean. It returns the base commit.
func rePin(t *testing.T, h *harness, demo string) (baseSHA string) {
	t.Helper()
	gitCmd(t, h.ws, "init", "-q")
	pinDemo(t, h, demo, ".")
	gitCmd(t, h.ws, "add", "warden.lock")
	gitCmd(t, h.ws, "commit", "-q", "-m", "base")
	baseSHA = gitCmd(t, h.ws, "rev-parse", "HEAD")
	writeLauncher(t, h.ws, demo, "-mutate")
	h.input("server-cmd", "./server")
	h.input("mode", "pin")
	h.input("approver", "octocat")
	if r := h.run(); r.code != ExitClean {
		t.Fatalf("re-pin exit %d", r.code)
	}
	h.reset()
	gitCmd(t, h.ws, "commit", "-q", "-m", "re-pin", "warden.lock")
	return baseSHA
}

// TestReviewLockChangesFromGit: a pull request that re-pins shows its
// classified base-to-head changes in the summary — the same items `warden
// diff` gives — and the new lock's approval, with the base lock read from
// git: in the checkout, or fetched when the checkout is shallow (as
// actions/checkout leaves it). No API call is made (comment is not set).
func TestReviewLockChangesFromGit(t *testing.T) {
	needGit(t)
	demo := testserver.Build(t, "testdata/demo/server")
	for _, shallow := range []bool{false, true} {
		t.Run(fmt.Sprintf("shallow=%v", shallow), func(t *testing.T) {
			h := newHarness(t)
			baseSHA := rePin(t, h, demo)
			if shallow {
				// The workspace becomes a depth-1 clone of the repository,
				// which lacks the base commit.
				gitCmd(t, h.ws, "config", "uploadpack.allowAnySHA1InWant", "true")
				clone := filepath.Join(t.TempDir(), "clone")
				gitCmd(t, h.ws, "clone", "-q", "--depth=1", "file://"+h.ws, clone)
				if _, err := exec.Command("git", "-C", clone, "cat-file", "-e", baseSHA+"^{commit}").Output(); err == nil {
					t.Fatal("the shallow clone already has the base commit")
				}
				h.ws = clone
				h.vars["GITHUB_WORKSPACE"] = clone
				t.Chdir(clone)
				writeLauncher(t, clone, demo, "-mutate")
			}
			api := newFakeGitHub(t)
			h.vars["PATH"] = os.Getenv("PATH")
			h.vars["GITHUB_API_URL"] = api.srv.URL
			h.vars["GITHUB_EVENT_NAME"] = "pull_request"
			h.vars["GITHUB_EVENT_PATH"] = writeEvent(t, baseSHA, testHeadSHA, "o/r")
			h.input("server-cmd", "./server")
			r := h.run()
			if r.code != ExitClean {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			for _, want := range []string{
				"### What this pull request approves in <code>warden.lock</code>",
				"as `warden diff` classifies them",
				"| high | tool-added | tools/delete&#95;note |",
				"schema-enum-widened",
				"The new lock is approved by <code>octocat</code>.",
				"<code>" + baseSHA[:12] + "</code>",
			} {
				if !strings.Contains(r.summary, want) {
					t.Errorf("summary lacks %q:\n%s", want, r.summary)
				}
			}
			if strings.Contains(r.stdout, "::warning") {
				t.Errorf("warnings:\n%s", r.stdout)
			}
			if calls := api.callList(); len(calls) != 0 {
				t.Errorf("API calls without comment: true: %q", calls)
			}
		})
	}
}

// TestReviewLockChangesFromAPI: without a git checkout, and with comment:
// true, the base lock is read through the contents API; the comment and
// the summary show what the pull request approves. A base without the lock
// shows the lock as added; an unapproved new lock is flagged.
func TestReviewLockChangesFromAPI(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")
	baseLock, err := os.ReadFile(filepath.Join(h.ws, "warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	// The pull request re-pins from the mutated server, without approval.
	writeLauncher(t, h.ws, demo, "-mutate")
	h.input("server-cmd", "./server")
	h.input("mode", "pin")
	if r := h.run(); r.code != ExitClean {
		t.Fatalf("re-pin exit %d", r.code)
	}
	h.reset()

	api := newFakeGitHub(t)
	api.files[testBaseSHA+":warden.lock"] = baseLock
	onPullRequest(h, api, writeEvent(t, testBaseSHA, testHeadSHA, "o/r"))
	h.input("server-cmd", "./server")
	vars := keepVars(h)
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	if api.count("GET /repos/o/r/contents/warden.lock?ref="+testBaseSHA) != 1 {
		t.Errorf("calls %q", api.callList())
	}
	c := api.commentList()
	if len(c) != 1 {
		t.Fatalf("a clean pull request that changes the lock got %d comments; calls %q", len(c), api.callList())
	}
	for _, doc := range []string{r.summary, c[0].Body} {
		for _, want := range []string{
			"### What this pull request approves in <code>warden.lock</code>",
			"| high | tool-added | tools/delete&#95;note |",
			"The new lock is **not approved**",
		} {
			if !strings.Contains(doc, want) {
				t.Errorf("lacks %q:\n%s", want, doc)
			}
		}
	}
	if !strings.Contains(c[0].Body, "## ✅ warden: no drift") {
		t.Errorf("comment:\n%s", c[0].Body)
	}

	// The base has no lock: the pull request adds it.
	h.reset()
	h.vars = vars
	api.files = map[string][]byte{}
	api.commits[testBaseSHA] = true
	r = h.run()
	if !strings.Contains(r.summary, "has no lock at this path: merging adds it, pinning 4 tool(s)") {
		t.Errorf("summary:\n%s", r.summary)
	}

	// The base commit cannot be read either: not shown, with a warning.
	h.reset()
	h.vars = vars
	api.commits = map[string]bool{}
	r = h.run()
	if !strings.Contains(r.summary, "could not be read") || !strings.Contains(r.stdout, "::warning title=warden::what this pull request changes in the lock is not shown") {
		t.Errorf("summary:\n%s\nstdout:\n%s", r.summary, r.stdout)
	}
	if r.code != ExitClean {
		t.Errorf("exit %d", r.code)
	}
}

// TestReviewCandidateLock: on drift the captured lock is written beside
// the lock; `warden diff` of the lock and the candidate gives the check's
// drift, approving it makes it the new lock; a candidate path committed as
// a symbolic link is not written through (a warning, the verdict stays).
func TestReviewCandidateLock(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	h := newHarness(t)
	pinDemo(t, h, demo, ".")
	writeLauncher(t, h.ws, demo, "-mutate")
	h.input("server-cmd", "./server")
	h.input("candidate-lock", "out/new.lock")
	r := h.run()
	if r.code != ExitDrift || r.outputs["candidate-lock"] != "out/new.lock" {
		t.Fatalf("exit %d, candidate-lock %q\n%s", r.code, r.outputs["candidate-lock"], r.stdout)
	}
	base, err := lock.ReadFile(filepath.Join(h.ws, "warden.lock"))
	if err != nil {
		t.Fatal(err)
	}
	cand, err := lock.ReadFile(filepath.Join(h.ws, "out", "new.lock"))
	if err != nil {
		t.Fatalf("the candidate does not read as a lock: %v", err)
	}
	if err := lock.Verify(cand); err != nil {
		t.Errorf("the candidate does not verify: %v", err)
	}
	if cand.Pin.Approved || cand.OverallDigest != r.outputs["overall-digest"] {
		t.Errorf("candidate approved %v, digest %s (output %s)", cand.Pin.Approved, cand.OverallDigest, r.outputs["overall-digest"])
	}
	if !strings.Contains(r.summary, "<code>out/new.lock</code>") {
		t.Errorf("the summary does not name the candidate:\n%s", r.summary)
	}
	_ = base

	// A candidate committed as a link to a file outside the workspace.
	h.reset()
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(h.ws, "warden.candidate.lock"))
	h.input("server-cmd", "./server")
	r = h.run()
	assertFailed(t, h, r, "candidate-lock")
	if data, _ := os.ReadFile(outside); string(data) != "keep" {
		t.Errorf("the link's target was written: %q", data)
	}

	// A link inside the workspace: refused at write time, a warning.
	h.reset()
	if err := os.Remove(filepath.Join(h.ws, "warden.candidate.lock")); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(h.ws, "inside")
	if err := os.WriteFile(inside, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, inside, filepath.Join(h.ws, "warden.candidate.lock"))
	h.input("server-cmd", "./server")
	r = h.run()
	if r.code != ExitDrift || r.outputs["candidate-lock"] != "" || !strings.Contains(r.stdout, "::warning title=warden::no candidate lock written") {
		t.Errorf("exit %d, candidate-lock %q\n%s", r.code, r.outputs["candidate-lock"], r.stdout)
	}
	if data, _ := os.ReadFile(inside); string(data) != "keep" {
		t.Errorf("the link's target was written: %q", data)
	}
}

// TestParseReviewInputs covers comment, github-token and candidate-lock.
func TestParseReviewInputs(t *testing.T) {
	tests := []struct {
		name    string
		inputs  map[string]string
		want    Inputs
		wantErr string
	}{
		{"defaults", map[string]string{}, Inputs{Mode: ModeCheck}, ""},
		{"comment", map[string]string{"comment": " True ", "github-token": " ghs_x ", "candidate-lock": "c.lock"},
			Inputs{Mode: ModeCheck, Comment: true, GitHubToken: "ghs_x", CandidateLock: "c.lock"}, ""},
		{"token in pin mode", map[string]string{"mode": ModePin, "github-token": "t"}, Inputs{Mode: ModePin, GitHubToken: "t"}, ""},
		{"comment in pin mode", map[string]string{"mode": ModePin, "comment": "true"}, Inputs{}, "input comment: only used with mode: check"},
		{"candidate in pin mode", map[string]string{"mode": ModePin, "candidate-lock": "c"}, Inputs{}, "input candidate-lock: only used with mode: check"},
		{"comment yes", map[string]string{"comment": "yes"}, Inputs{}, `input comment: "yes" is not true or false`},
		{"token newline", map[string]string{"github-token": "a\nb"}, Inputs{}, "input github-token: contains white space"},
		{"comment with config", map[string]string{"config": ".mcp.json", "comment": "true"}, Inputs{}, "input comment: not supported with config"},
		{"candidate with config", map[string]string{"config": ".mcp.json", "candidate-lock": "c"}, Inputs{}, "input candidate-lock: not supported with config"},
		{"candidate newline", map[string]string{"candidate-lock": "a\nb"}, Inputs{}, "input candidate-lock: contains a control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Inputs{Mode: tt.inputs["mode"], Config: tt.inputs["config"]}
			if in.Mode == "" {
				in.Mode = ModeCheck
			}
			err := parseReviewInputs(func(n string) string { return tt.inputs[n] }, &in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "a\nb") {
					t.Errorf("the error quotes the value: %v", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(in, tt.want) {
				t.Errorf("got %+v, %v; want %+v", in, err, tt.want)
			}
		})
	}
}

// TestCandidatePath covers the default candidate path.
func TestCandidatePath(t *testing.T) {
	for in, want := range map[string]string{
		"warden.lock":         "warden.candidate.lock",
		"mcp/a.lock":          "mcp/a.candidate.lock",
		"locks/server":        "locks/server.candidate.lock",
		"/abs/dir/x.lock":     "/abs/dir/x.candidate.lock",
		"weird.lock.lock":     "weird.lock.candidate.lock",
		"dir.lock/warden.loc": "dir.lock/warden.loc.candidate.lock",
	} {
		if got := CandidatePath(in); got != want {
			t.Errorf("CandidatePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBoundedBody: a response body longer than the cap fails to read.
func TestBoundedBody(t *testing.T) {
	for _, tt := range []struct {
		size    int
		wantErr bool
	}{{0, false}, {9, false}, {10, false}, {11, true}, {1000, true}} {
		b := &boundedBody{ReadCloser: io.NopCloser(strings.NewReader(strings.Repeat("x", tt.size))), left: 10}
		data, err := io.ReadAll(b)
		if (err != nil) != tt.wantErr || (!tt.wantErr && len(data) != tt.size) {
			t.Errorf("size %d: %d bytes, %v", tt.size, len(data), err)
		}
	}
}

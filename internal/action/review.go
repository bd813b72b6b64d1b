package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/ops"
	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/snapshot"
	"github.com/wardenlock/warden/internal/surface"
)

// commentTimeout bounds the whole update of the pull-request comment
// (finding warden's comment among the pull request's, then editing or
// creating it).
const commentTimeout = 3 * time.Minute

// parseReviewInputs reads the inputs of the pull-request review into in
// (whose Mode is already set): comment, github-token and candidate-lock.
func parseReviewInputs(get func(name string) string, in *Inputs) error {
	switch v := strings.ToLower(strings.TrimSpace(get("comment"))); v {
	case "", "false":
	case "true":
		if in.Mode != ModeCheck {
			return errors.New("input comment: only used with mode: check")
		}
		in.Comment = true
	default:
		return fmt.Errorf("input comment: %q is not true or false", v)
	}
	// The token is not echoed in any error.
	in.GitHubToken = strings.TrimSpace(get("github-token"))
	if strings.ContainsFunc(in.GitHubToken, func(r rune) bool { return r < 0x21 || r == 0x7f }) {
		return errors.New("input github-token: contains white space or a control character")
	}
	in.CandidateLock = strings.TrimSpace(get("candidate-lock"))
	if in.CandidateLock != "" && in.Mode != ModeCheck {
		return errors.New("input candidate-lock: only used with mode: check")
	}
	// A client config checks one lock per server; the review covers the
	// single-server check.
	if in.Config != "" && in.Comment {
		return errors.New("input comment: not supported with config (it reviews the single lock of server-cmd or server-url)")
	}
	if in.Config != "" && in.CandidateLock != "" {
		return errors.New("input candidate-lock: not supported with config")
	}
	return noControl("candidate-lock", in.CandidateLock)
}

// CandidatePath returns where the candidate lock goes by default: beside
// the lock, named after it (warden.lock: warden.candidate.lock;
// mcp/a.lock: mcp/a.candidate.lock).
func CandidatePath(lockPath string) string {
	dir, base := filepath.Split(lockPath)
	stem := strings.TrimSuffix(base, ".lock")
	return dir + stem + ".candidate.lock"
}

// prReview is the pull-request side of a check run: the event, the API
// client when warden may call the API, and what the pull request changes
// in the lock.
type prReview struct {
	// ctx is the Run's context. The comment is written at the very end of
	// the run, on the error path too (fail), which has no context of its
	// own; after cancellation nothing is written.
	ctx   context.Context
	event Event
	// api is nil when no API call may be made: comment is not true, the
	// pull request comes from a fork, or there is no token.
	api *githubAPI
	// changes is what the pull request changes in the lock; nil when the
	// lock could not be read at all (the check reports that).
	changes *report.LockChanges
}

// prepareReview settles the pull-request side of a check before the
// server is started: the candidate lock's path (an invalid one is an input
// error), the event, whether warden may call the API, and the base
// branch's lock, read from git or the API now so that nothing the server
// does in the workspace can affect it. Everything but the path is
// best-effort: a problem is a warning or a notice, never an error.
func (r *runner) prepareReview(ctx context.Context) error {
	if r.in.Mode != ModeCheck || r.in.Config != "" {
		return nil
	}
	cand := r.in.CandidateLock
	if cand == "" {
		cand = CandidatePath(r.in.Lock)
	}
	abs, err := ResolveFile(r.workspace, r.workDir, "candidate-lock", cand)
	if err != nil {
		return err
	}
	if abs == r.lockAbs || abs == r.sarifAbs {
		return fmt.Errorf("input candidate-lock: %q is the lock or the SARIF file; name another path", cand)
	}
	r.candidatePath = abs

	name := r.getenv("GITHUB_EVENT_NAME")
	if !IsPullRequest(name) {
		if r.in.Comment {
			r.notice(fmt.Sprintf("comment: true has no effect on a %s event: warden comments only on pull_request and pull_request_target runs; no GitHub API call was made", orUnknown(name)))
		}
		return nil
	}
	ev, err := ReadEvent(name, r.getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		r.warning("no pull-request review: " + err.Error())
		return nil
	}
	rv := &prReview{ctx: ctx, event: ev}
	r.review = rv
	if r.in.Comment {
		switch {
		case ev.Fork():
			head := ev.HeadRepo
			if head == "" {
				head = "a deleted repository"
			}
			r.notice(fmt.Sprintf("pull request #%d comes from a fork (%s): warden makes no GitHub API call for it, so there is no comment; the job summary has the result", ev.Number, head))
		case r.in.GitHubToken == "":
			r.warning("comment: true, but the github-token input is empty: no comment")
		default:
			api, err := newGitHubAPI(r.getenv("GITHUB_API_URL"), r.in.GitHubToken, ev.Owner(), ev.Repo(), "warden/"+r.version)
			if err != nil {
				r.warning("no comment: " + err.Error())
			} else {
				rv.api = api
			}
		}
	}
	changes, err := r.lockChanges(ctx, ev, rv.api)
	rv.changes = changes
	// A snapshot that does not match its lock, the base's or the pull
	// request's, fails the run (exit 2, the error in the comment): it
	// would show a reviewer words nobody approved.
	if me := new(snapshot.MismatchError); errors.As(err, &me) {
		return err
	}
	switch {
	case errors.As(err, new(noBaseSourceError)):
		// Not a failure: nothing could read the base (no git checkout,
		// and the API is off). Say how to get the review.
		r.notice("what this pull request changes in the lock is not shown: " + changes.Note)
	case changes != nil && changes.State == report.LockUnread:
		r.warning("what this pull request changes in the lock is not shown: " + changes.Note)
	}
	return nil
}

// noBaseSourceError says that the base lock had no way to be read: no git
// checkout (or no git) and no API. That is not a failure.
type noBaseSourceError struct{ error }

// errNotCheckout says that the workspace is not a git checkout.
var errNotCheckout = errors.New("the workspace is not a git checkout")

// orUnknown shows an empty event name.
func orUnknown(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return s
}

// lockChanges compares the base branch's lock with the pull request's: the
// same drift items as `warden diff BASE HEAD`, and the approval of the new
// lock. It returns nil when the pull request's lock cannot be read (the
// check fails on it anyway), and the error that kept the base lock from
// being read, if any (the changes are then LockUnread).
func (r *runner) lockChanges(ctx context.Context, ev Event, api *githubAPI) (*report.LockChanges, error) {
	head, err := lock.ReadBytes(r.lockAbs)
	if err != nil {
		return nil, nil
	}
	c := &report.LockChanges{LockPath: r.display(r.lockAbs), BaseSHA: ev.BaseSHA}
	base, found, err := r.baseLock(ctx, ev, api)
	switch {
	case err != nil:
		c.State, c.Note = report.LockUnread, r.relative(err.Error())
		return c, err
	case !found:
		l, err := lock.Parse(head)
		if err != nil {
			return nil, nil
		}
		c.State = report.LockAdded
		c.Tools, c.Resources, c.Prompts = len(l.Tools), len(l.Resources), len(l.Prompts)
		c.HeadAccepted = l.Pin.AcceptedListErrors
		setApproval(c, l)
		c.HeadDigest = l.OverallDigest
		return c, nil
	case bytes.Equal(base, head):
		c.State = report.LockUnchanged
		return c, nil
	}
	// The base's snapshot, when it has one, is read the same way and
	// verified against the base lock by the diff. Not reading it costs
	// only its words: the items are the same.
	var baseSnap []byte
	if data, found, err := r.baseFile(ctx, ev, api, snapshot.Path(r.lockAbs), surface.MaxFileBytes); err != nil {
		r.warning("the base branch's surface snapshot was not read, so the changes are shown without its words: " + r.relative(err.Error()))
	} else if found {
		baseSnap = data
	}
	res, err := diffBase(ctx, base, baseSnap, r.lockAbs)
	if err != nil {
		c.State, c.Note = report.LockUnread, "compare it with this pull request's lock: "+r.relative(err.Error())
		return c, err
	}
	c.State = report.LockChanged
	c.Items = res.Drift
	// The words of a re-pin, from the snapshots beside the two locks (the
	// head's current side alone while the base has none).
	c.Explanations = explain.Items(res.Drift, res.ASurface, res.BSurface)
	c.BaseDigest, c.HeadDigest = res.A.OverallDigest, res.B.OverallDigest
	c.BaseAccepted, c.HeadAccepted = res.A.Pin.AcceptedListErrors, res.B.Pin.AcceptedListErrors
	setApproval(c, res.B)
	return c, nil
}

// setApproval copies the approval state of the pull request's lock l.
func setApproval(c *report.LockChanges, l *lock.Lock) {
	c.Approved = l.Pin.Approved
	if l.Pin.Approver != nil {
		c.Approver = *l.Pin.Approver
	}
	c.ApprovalCurrent = l.Pin.ApprovedDigest != nil && *l.Pin.ApprovedDigest == l.OverallDigest
}

// diffBase runs ops.Diff — exactly what `warden diff` runs — on the base
// lock's bytes (in a private temporary file, with the base's snapshot
// beside it when baseSnap is not nil) and the lock at headPath.
func diffBase(ctx context.Context, base, baseSnap []byte, headPath string) (*ops.DiffResult, error) {
	dir, err := os.MkdirTemp("", "warden-base-")
	if err != nil {
		return nil, fmt.Errorf("temporary file for the base lock: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "base.lock")
	if err := os.WriteFile(path, base, 0o600); err != nil {
		return nil, fmt.Errorf("temporary file for the base lock: %w", err)
	}
	snapPath := snapshot.Path(path)
	if baseSnap != nil {
		if err := os.WriteFile(snapPath, baseSnap, 0o600); err != nil {
			return nil, fmt.Errorf("temporary file for the base snapshot: %w", err)
		}
	}
	res, err := ops.Diff(ctx, path, headPath)
	if err != nil {
		// The temporary paths mean nothing to the reader.
		var me *snapshot.MismatchError
		if errors.As(err, &me) {
			if me.Lock == path {
				me.Snapshot, me.Lock = "the base branch's snapshot", "the base branch's lock"
			}
			return nil, me
		}
		text := strings.ReplaceAll(err.Error(), snapPath, "the base snapshot")
		return nil, errors.New(strings.ReplaceAll(text, path, "the base lock"))
	}
	return res, nil
}

// baseLock reads the lock as of the pull request's base commit: from git
// when the workspace is a checkout and git is installed (fetching the
// commit when the checkout is shallow), otherwise through the contents API
// when warden may call it. found is false when the base has no lock at
// that path. Either way the read is bounded by lock.MaxFileBytes.
func (r *runner) baseLock(ctx context.Context, ev Event, api *githubAPI) (data []byte, found bool, err error) {
	return r.baseFile(ctx, ev, api, r.lockAbs, lock.MaxFileBytes)
}

// baseFile reads the file at abs (in the workspace) as of the pull
// request's base commit, as baseLock reads the lock, bounded by max.
func (r *runner) baseFile(ctx context.Context, ev Event, api *githubAPI, abs string, max int64) (data []byte, found bool, err error) {
	// The file's path in the repository: relative to the checkout's top
	// when there is one, to the workspace otherwise.
	top := checkoutTop(r.workspace, abs)
	root := top
	if root == "" {
		root = r.workspace
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return nil, false, fmt.Errorf("the lock's path in the repository: %w", err)
	}
	rel = filepath.ToSlash(rel)

	gitErr := errNotCheckout
	if top != "" {
		g, err := newGitRepo(top, r.getenv)
		if err == nil {
			data, found, err = g.fileAt(ctx, rel, ev.BaseSHA, max)
			if err == nil {
				return data, found, nil
			}
		}
		gitErr = err
	}
	if api == nil {
		err := fmt.Errorf("the base lock was not read from git (%w), and the GitHub API is used only with comment: true on a pull request from the same repository", gitErr)
		if errors.Is(gitErr, errGitMissing) || errors.Is(gitErr, errNotCheckout) {
			err = noBaseSourceError{err}
		}
		return nil, false, err
	}
	data, found, err = api.fileAt(ctx, rel, ev.BaseSHA, max)
	if err != nil {
		return nil, false, fmt.Errorf("the base lock was read neither from git (%v) nor through the API (%w)", gitErr, err)
	}
	return data, found, nil
}

// checkoutTop returns the nearest directory at or above abs's, up to the
// workspace, that holds a .git entry, or "" when there is none.
func checkoutTop(workspace, abs string) string {
	for dir := filepath.Dir(abs); within(workspace, dir); dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if dir == workspace || dir == filepath.Dir(dir) {
			break
		}
	}
	return ""
}

// pinner returns who and where a lock written by this run is recorded as
// pinned by: WARDEN_ACTOR (else GITHUB_ACTOR) and WARDEN_ENV (else
// github-actions).
func (r *runner) pinner() (actor, environment string) {
	actor = r.getenv("WARDEN_ACTOR")
	if actor == "" {
		actor = r.getenv("GITHUB_ACTOR")
	}
	environment = r.getenv("WARDEN_ENV")
	if environment == "" {
		environment = "github-actions"
	}
	return actor, environment
}

// writeCandidate writes the lock the check just captured, unapproved, to
// the candidate-lock path: atomically, never through a symbolic link, and
// only inside the workspace (checked again: the server has run there
// since). A problem is a warning and leaves the output empty; the verdict
// is drift either way.
func (r *runner) writeCandidate(res *ops.CheckResult) {
	if r.candidatePath == "" {
		return
	}
	actor, environment := r.pinner()
	ctx := context.Background()
	if r.review != nil {
		ctx = r.review.ctx
	}
	l, err := ops.Candidate(ctx, res, ops.CandidateOptions{Version: r.version, Actor: actor, Environment: environment, Handed: r.secrets})
	if err != nil {
		r.warning("no candidate lock written: " + err.Error())
		return
	}
	if _, err := ResolveFile(r.workspace, r.workDir, "candidate-lock", r.candidatePath); err != nil {
		r.warning("no candidate lock written: " + err.Error())
		return
	}
	if err := os.MkdirAll(filepath.Dir(r.candidatePath), 0o755); err != nil {
		r.warning("no candidate lock written: create its directory: " + err.Error())
		return
	}
	if err := lock.WriteFile(r.candidatePath, l); err != nil {
		r.warning("no candidate lock written: " + err.Error())
		return
	}
	r.candidateAbs = r.candidatePath
	r.writeCandidateSnapshot(res)
}

// writeCandidateSnapshot writes the candidate lock's snapshot beside it
// (unless the snapshot input is false), so that approving the candidate
// commits the words with the hashes. A problem is a warning: the candidate
// lock stands without it (and a stale candidate snapshot is removed).
func (r *runner) writeCandidateSnapshot(res *ops.CheckResult) {
	path := snapshot.Path(r.candidatePath)
	if !r.in.Snapshot {
		if err := snapshot.Remove(path); err != nil {
			r.warning("the old candidate snapshot was not removed: " + err.Error())
		}
		return
	}
	ctx := context.Background()
	if r.review != nil {
		ctx = r.review.ctx
	}
	if _, err := ops.WriteCandidateSnapshot(ctx, res, r.candidatePath, ops.SnapshotOptions{Handed: r.secrets}); err != nil {
		if rerr := snapshot.Remove(path); rerr != nil {
			err = fmt.Errorf("%w; the old one was not removed either: %v", err, rerr)
		}
		r.warning("no candidate snapshot written: " + r.relative(err.Error()))
	}
}

// comment brings warden's comment on the pull request up to date with the
// run's verdict (drift items on drift, the error's text on error): it finds
// the comment by its marker and edits it, and creates one only when there
// is something to say — drift, an error, or a change to the lock. A clean
// run with nothing to say edits an existing comment (so it no longer
// reports drift) and creates none. A comment it writes states the lists
// the check accepted as errors (accepted), clean or not. API failures are
// warnings; the exit code never depends on them.
func (r *runner) comment(verdict string, items []drift.Item, expls []explain.Explanation, errText string, accepted []report.AcceptedList) {
	rv := r.review
	if rv == nil || rv.api == nil || ops.Cancelled(rv.ctx) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(rv.ctx, commentTimeout)
	defer cancel()
	c := report.Comment{
		LockPath: r.display(r.lockAbs), Verdict: verdict, Drift: items, Explanations: expls, Error: errText,
		LockChanges: rv.changes, CandidateLock: r.display(r.candidateAbs),
		HeadSHA: rv.event.HeadSHA, RunURL: r.runURL(),
		Accepted: accepted, Consensus: r.consensus,
	}
	if verdict == report.VerdictDrift {
		c.ReviewCommands = r.reviewCommands()
	}
	marker := report.CommentMarker(c.LockPath)
	id, err := rv.api.findComment(ctx, rv.event.Number, marker, rv.api.identity(ctx))
	if err != nil {
		r.warning("the pull request comment was not updated: " + err.Error())
		return
	}
	worth := verdict != report.VerdictClean || r.consensus != nil && r.consensus.Exit() != 0 ||
		rv.changes != nil && (rv.changes.State == report.LockChanged || rv.changes.State == report.LockAdded)
	switch {
	case id != 0:
		if err := rv.api.updateComment(ctx, id, r.secrets.String(report.RenderComment(c))); err != nil {
			r.warning("the pull request comment was not updated: " + err.Error())
			return
		}
		fmt.Fprintf(r.stdout, "updated warden's comment on pull request #%d\n", rv.event.Number)
	case worth:
		if err := rv.api.createComment(ctx, rv.event.Number, r.secrets.String(report.RenderComment(c))); err != nil {
			r.warning("the pull request comment was not created: " + err.Error())
			return
		}
		fmt.Fprintf(r.stdout, "commented on pull request #%d\n", rv.event.Number)
	default:
		fmt.Fprintf(r.stdout, "no comment on pull request #%d: no drift and no change to the lock\n", rv.event.Number)
	}
}

// runURL links this workflow run (GITHUB_SERVER_URL, GITHUB_REPOSITORY,
// GITHUB_RUN_ID), or "" when the runner did not say.
func (r *runner) runURL() string {
	server, repo, id := r.getenv("GITHUB_SERVER_URL"), r.getenv("GITHUB_REPOSITORY"), r.getenv("GITHUB_RUN_ID")
	if server == "" || !validRepoName(repo) || id == "" || strings.Trim(id, "0123456789") != "" {
		return ""
	}
	return strings.TrimSuffix(server, "/") + "/" + repo + "/actions/runs/" + id
}

// notice and warning write an annotation of that level through the job
// log, clipped and escaped like every message that may quote input.
func (r *runner) notice(msg string) {
	_ = r.log.Command("notice", []report.Property{{Key: "title", Value: "warden"}}, report.Message(msg))
}

// warning writes a warning annotation; see notice.
func (r *runner) warning(msg string) {
	_ = r.log.Command("warning", []report.Property{{Key: "title", Value: "warden"}}, report.Message(msg))
}

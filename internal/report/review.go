package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wardenlock/warden/internal/consensus"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/lock"
)

// States of the lock in a pull request, compared with its base.
const (
	// LockUnchanged: the pull request leaves the lock's bytes as they are.
	LockUnchanged = "unchanged"
	// LockChanged: the lock differs from the base's; Items classify how.
	LockChanged = "changed"
	// LockAdded: the base has no lock at this path; the pull request adds it.
	LockAdded = "added"
	// LockUnread: the base lock could not be read; Note says why.
	LockUnread = "unread"
)

// LockChanges is what a pull request changes in the lock: the drift items
// from the base branch's lock to the pull request's lock (what `warden diff
// BASE HEAD` reports), which is what merging it approves, and the approval
// state of the new lock.
type LockChanges struct {
	// State is LockUnchanged, LockChanged, LockAdded or LockUnread.
	State string
	// LockPath is the lock as shown (workspace-relative).
	LockPath string
	// BaseSHA is the base commit the lock is compared with.
	BaseSHA string
	// Items are the classified changes from the base lock to the head lock.
	Items []drift.Item
	// BaseDigest and HeadDigest are the two locks' overall digests.
	BaseDigest, HeadDigest string
	// Approved is the head lock's pin.approved, Approver its pin.approver,
	// and ApprovalCurrent whether pin.approved_digest is the head lock's
	// overall digest (an approval of another surface covers nothing here).
	Approved        bool
	Approver        string
	ApprovalCurrent bool
	// Tools, Resources and Prompts count the head lock's entries (shown
	// when the lock is new).
	Tools, Resources, Prompts int
	// Note says why the base lock could not be read (LockUnread).
	Note string
	// Explanations are parallel to Items (or nil): the words behind each
	// change, from the snapshots beside the two locks.
	Explanations []explain.Explanation
	// BaseAccepted and HeadAccepted are the two locks'
	// pin.accepted_list_errors. They are outside the overall digest, so no
	// item and no approval shows a change to them: the section says so.
	BaseAccepted, HeadAccepted []lock.AcceptedListError
}

// shortSHA returns the first 12 characters of a commit id, or the whole
// value when it is shorter. Callers pass validated hexadecimal ids.
func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// writeLockChanges renders c as a section of a summary or a comment, laid
// out by v (see writeDriftTables and writeQuotes). Nothing is written when
// the lock is unchanged.
func writeLockChanges(b *strings.Builder, c *LockChanges, v mdView) {
	if c == nil || c.State == LockUnchanged || c.State == "" {
		return
	}
	fmt.Fprintf(b, "### What this pull request approves in %s\n\n", code(c.LockPath))
	switch c.State {
	case LockUnread:
		fmt.Fprintf(b, "_The lock on the base branch could not be read, so what this pull request changes in it is not shown: %s._\n\n", code(c.Note))
		return
	case LockAdded:
		fmt.Fprintf(b, "The base branch (%s) has no lock at this path: merging adds it, pinning %d tool(s), %d resource(s) and %d prompt(s).\n\n",
			code(shortSHA(c.BaseSHA)), c.Tools, c.Resources, c.Prompts)
	case LockChanged:
		if len(c.Items) == 0 {
			fmt.Fprintf(b, "The lock differs from the base branch's (%s), but not in the surface it pins: only its metadata changed.\n\n", code(shortSHA(c.BaseSHA)))
			break
		}
		entries := worstFirst(c.Items, c.Explanations)
		fmt.Fprintf(b, "Merging accepts these changes to the pinned surface, from the base branch's lock (%s) to this pull request's, as `warden diff` classifies them (%d item(s)):\n\n",
			code(shortSHA(c.BaseSHA)), len(c.Items))
		b.WriteString(verdictLine(entries))
		writeCountTable(b, "Changes", c.Items)
		writeDriftTables(b, entries, v, "Run `warden diff` on the two locks for the full list.")
		writeQuotes(b, entries, v.quote, v.quoteBudget, "`warden diff` on the two locks and their snapshots shows them all")
	}
	writeAcceptedChange(b, c)
	switch {
	case c.Approved && c.ApprovalCurrent:
		fmt.Fprintf(b, "The new lock is approved by %s.\n\n", code(c.Approver))
	case c.Approved:
		fmt.Fprintf(b, "⚠️ The new lock carries an approval by %s that was given for a different surface (`pin.approved_digest` is not its overall digest): nobody has approved this one.\n\n", code(c.Approver))
	default:
		b.WriteString("⚠️ The new lock is **not approved** (`pin.approved` is false). Approve it with `warden approve --approver <you>` (or pin with `--approve`) once it has been reviewed.\n\n")
	}
	if c.BaseDigest != "" || c.HeadDigest != "" {
		fmt.Fprintf(b, "| | overall digest |\n|---|---|\n| Base branch | %s |\n| This pull request | %s |\n\n", code(orNone(c.BaseDigest)), code(orNone(c.HeadDigest)))
	}
}

// writeAcceptedChange says what the pull request changes in the lists the
// lock accepts as errors, if anything: a change there moves no digest, so
// neither the items above nor an approval would show it.
func writeAcceptedChange(b *strings.Builder, c *LockChanges) {
	if slices.Equal(c.BaseAccepted, c.HeadAccepted) {
		return
	}
	fmt.Fprintf(b, "⚠️ This pull request changes the lists the lock accepts as errors (`pin.accepted_list_errors`, outside the overall digest, so no approval covers it): base branch %s, this pull request %s.\n\n",
		acceptedSummary(c.BaseAccepted), acceptedSummary(c.HeadAccepted))
}

// acceptedSummary lists accepted list errors on one line, e.g.
// "`resources/list` -32603", or "none".
func acceptedSummary(list []lock.AcceptedListError) string {
	if len(list) == 0 {
		return "none"
	}
	parts := make([]string, len(list))
	for i, a := range list {
		parts[i] = fmt.Sprintf("`%s/list` %d", a.List, a.Code)
	}
	return strings.Join(parts, ", ")
}

// orNone shows an empty value as "none".
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// writeCountTable writes the one-row count of items by severity, the row
// named label.
func writeCountTable(b *strings.Builder, label string, items []drift.Item) {
	b.WriteString("| | critical | high | medium | low |\n|---|---:|---:|---:|---:|\n")
	sevs := make([]string, len(items))
	for i, it := range items {
		sevs[i] = it.Severity
	}
	writeCountRow(b, label, sevs)
	b.WriteString("\n")
}

// Bounds of a pull-request comment. GitHub refuses a comment body longer
// than 65,536 characters; warden's stays under MaxCommentBytes bytes, which
// is never fewer characters.
const (
	// MaxCommentBytes is the most RenderComment returns.
	MaxCommentBytes = 60 << 10
	// DefaultCommentRows caps each table of a comment.
	DefaultCommentRows = 50
	// commentCellBytes clips one table cell of a comment before escaping.
	commentCellBytes = 240
	// commentCommandBytes clips one command line of a comment.
	commentCommandBytes = 1 << 10
	// commentRowBudget stops adding table rows once the comment is this
	// large, leaving room for the sections that follow.
	commentRowBudget = 36 << 10
	// commentQuoteBudget stops quoting server text once the comment is
	// this large, leaving room for the commands that follow.
	commentQuoteBudget = 50 << 10
	// commentSharedQuoteBudget is the drift's quotes' budget when the
	// comment also reviews a re-pin, whose rows stop at commentRowBudget.
	commentSharedQuoteBudget = 24 << 10
)

// CommentMarker returns the hidden first line that identifies warden's
// comment for the lock at lockPath (as shown, workspace-relative), so that
// later runs find and edit it instead of adding another. It holds a hash of
// the path, never the path itself, so it is inert whatever the path is.
func CommentMarker(lockPath string) string {
	sum := sha256.Sum256([]byte(lockPath))
	return "<!-- warden-review lock=" + hex.EncodeToString(sum[:8]) + " -->"
}

// Comment is everything warden's pull-request comment shows.
type Comment struct {
	// LockPath is the lock as shown (workspace-relative); the comment's
	// marker is derived from it.
	LockPath string
	// Verdict is VerdictClean, VerdictDrift or VerdictError.
	Verdict string
	// Drift are the check's items (server against lock).
	Drift []drift.Item
	// Error says what failed when Verdict is VerdictError.
	Error string
	// ReviewCommands are the shell commands to reproduce and re-pin.
	ReviewCommands []string
	// LockChanges is what the pull request changes in the lock, if known.
	LockChanges *LockChanges
	// CandidateLock is the path of the freshly captured lock written on
	// drift, empty when none was written.
	CandidateLock string
	// HeadSHA is the pull request's head commit.
	HeadSHA string
	// RunURL links the workflow run; it is shown only when it is a plain
	// http(s) URL (see safeURL).
	RunURL string
	// MaxRows caps each table; 0 means DefaultCommentRows.
	MaxRows int
	// Explanations are parallel to Drift (or nil): the server's words
	// behind each item, quoted in a collapsed section as server-controlled
	// text.
	Explanations []explain.Explanation
	// Accepted are the lists accepted as errors (AcceptedList), shown in
	// their own section whatever the verdict.
	Accepted []AcceptedList
	// Consensus is the community check's verdict, nil without one.
	Consensus *consensus.Result
}

// safeURL matches the URLs RenderComment links: a scheme, a host and a path
// of characters that mean nothing to Markdown or HTML.
var safeURL = regexp.MustCompile(`^https?://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?$`)

// RenderComment returns the body of warden's pull-request comment: the
// hidden marker, the verdict, the drift table, what the pull request
// approves in the lock, the commands to reproduce and re-pin, and where the
// candidate lock is. Server-controlled text is escaped as in the job
// summary; tables are capped and the whole body is at most MaxCommentBytes.
func RenderComment(c Comment) string {
	maxRows := c.MaxRows
	if maxRows <= 0 {
		maxRows = DefaultCommentRows
	}
	view := mdView{maxRows: maxRows, cellBytes: commentCellBytes, rowBudget: commentRowBudget, collapse: true,
		quote: commentQuote, quoteBudget: commentQuoteBudget}
	var b strings.Builder
	b.WriteString(CommentMarker(c.LockPath) + "\n")
	switch c.Verdict {
	case VerdictError:
		b.WriteString("## ⚠️ warden: error\n\n")
	case VerdictDrift:
		fmt.Fprintf(&b, "## ❌ warden: drift detected (%d item(s))\n\n", len(c.Drift))
	default:
		b.WriteString("## ✅ warden: no drift\n\n")
	}
	facts := []string{"Lock " + code(c.LockPath)}
	if c.HeadSHA != "" {
		facts = append(facts, "head "+code(shortSHA(c.HeadSHA)))
	}
	if safeURL.MatchString(c.RunURL) {
		facts = append(facts, "[workflow run]("+c.RunURL+")")
	}
	b.WriteString(strings.Join(facts, " · ") + "\n\n")

	switch c.Verdict {
	case VerdictError:
		fmt.Fprintf(&b, "warden could not complete the check: %s\n\nThe step failed with exit code 2. Nothing was compared, so this is neither a pass nor drift; see the workflow run.\n\n",
			code(Clip(c.Error, MaxMessageBytes/4)))
	case VerdictDrift:
		entries := worstFirst(c.Drift, c.Explanations)
		b.WriteString(verdictLine(entries))
		b.WriteString("The MCP server no longer declares what the lock pins. Each change below was made after the lock was reviewed; if it was not expected, treat the server update as suspect.\n\n")
		writeCountTable(&b, "Drift", c.Drift)
		writeDriftTables(&b, entries, view, "The job summary and the SARIF file list them all.")
		budget := view.quoteBudget
		if lc := c.LockChanges; lc != nil && lc.State == LockChanged && len(lc.Items) > 0 {
			// Leave the re-pin review room for its rows: what merging
			// approves matters as much as what drifted.
			budget = commentSharedQuoteBudget
		}
		writeQuotes(&b, entries, view.quote, budget, "the job summary and `warden check --json` show them all")
	default:
		b.WriteString("The MCP server declares exactly what the lock pins.\n\n")
	}

	if c.Verdict != VerdictError {
		writeAcceptedMarkdown(&b, "check", c.Accepted)
	}
	writeConsensusMarkdown(&b, c.Consensus)

	writeLockChanges(&b, c.LockChanges, view)

	if c.Verdict == VerdictDrift {
		b.WriteString("### Review and re-pin\n\n" +
			"If the change is expected, review it and re-pin with your approval, then commit the new lock. " +
			"If it is not, do not re-pin.\n\n")
		if len(c.ReviewCommands) > 0 {
			b.WriteString("<pre>\n")
			for _, cmd := range c.ReviewCommands {
				b.WriteString(escapeCode(Clip(cmd, commentCommandBytes)))
				b.WriteString("\n")
			}
			b.WriteString("</pre>\n\n")
		}
		if c.CandidateLock != "" {
			fmt.Fprintf(&b, "The lock just captured from the server, unapproved, is at %s (step output `candidate-lock`). "+
				"Upload it with `actions/upload-artifact` to review it offline with `warden diff`, "+
				"or, once reviewed, approve it with `warden approve --lock <candidate> --approver <you>` and commit it in place of the lock.\n\n",
				code(c.CandidateLock))
		}
	}
	b.WriteString("<sub>warden edits this comment on every run for this lock.</sub>\n")
	return capComment(b.String())
}

// capComment cuts a comment longer than MaxCommentBytes at the end of a
// line, closes what the cut left open (see closers), and says that it was
// cut. The marker on the first line is always kept.
func capComment(md string) string {
	const note = "\n_The rest of this comment was left out (GitHub limits a comment's length); the job summary has it._\n"
	return capMarkdown(md, MaxCommentBytes, note)
}

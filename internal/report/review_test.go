package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/drift"
)

// hostileItem is a drift item whose target and detail try every trick a
// server could play on a Markdown comment.
func hostileItem() drift.Item {
	return drift.Item{
		Class: "tool-added", Severity: drift.High,
		Target:  "tools/x|y</td><script>alert(1)</script>",
		Detail:  strp("@everyone [click](https://evil.example) ![img](x) `code` $x$ <!-- www.evil.example\n| forged | row |"),
		Message: "Tool added",
	}
}

func TestCommentMarker(t *testing.T) {
	a, b := CommentMarker("warden.lock"), CommentMarker("mcp/other.lock")
	if a == b || a != CommentMarker("warden.lock") {
		t.Errorf("markers %q %q", a, b)
	}
	for _, m := range []string{a, b, CommentMarker("--> <script>")} {
		if !strings.HasPrefix(m, "<!-- warden-review lock=") || !strings.HasSuffix(m, " -->") || strings.Count(m, "-->") != 1 || strings.Contains(m, "script") {
			t.Errorf("marker %q", m)
		}
	}
}

func TestRenderComment(t *testing.T) {
	many := make([]drift.Item, 10000)
	for i := range many {
		many[i] = drift.Item{Class: "tool-added", Severity: drift.Critical, Target: fmt.Sprintf("tools/t%d", i), Detail: strp(strings.Repeat("|`<", 4000))}
	}
	tests := []struct {
		name    string
		c       Comment
		want    []string
		wantNot []string
	}{
		{"drift", Comment{
			LockPath: "warden.lock", Verdict: VerdictDrift, Drift: []drift.Item{hostileItem()},
			ReviewCommands: []string{"warden pin --lock warden.lock --approve --approver <you> -- ./server"},
			CandidateLock:  "warden.candidate.lock", HeadSHA: strings.Repeat("ab", 20),
			RunURL: "https://github.com/o/r/actions/runs/1",
		}, []string{
			CommentMarker("warden.lock") + "\n## ❌ warden: drift detected (1 item(s))\n",
			"head <code>abababababab</code>",
			"[workflow run](https://github.com/o/r/actions/runs/1)",
			"| high | tool-added | tools/x&#124;y&lt;/td&gt;&lt;script&gt;alert&#40;1&#41;&lt;/script&gt; |",
			"&#64;&#8203;everyone &#91;click&#93;&#40;https&#58;&#8203;//evil.example&#41;",
			"www&#8203;&#46;evil",
			"<pre>\nwarden pin --lock warden.lock --approve --approver &lt;you&gt; -- ./server\n</pre>",
			"<code>warden.candidate.lock</code> (step output `candidate-lock`)",
			"| Drift | 0 | 1 | 0 | 0 |",
		}, []string{"<script>", "@everyone", "](https://evil", "\n| forged", "<!-- www"}},
		{"clean", Comment{LockPath: "warden.lock", Verdict: VerdictClean, RunURL: "javascript:alert(1)"},
			[]string{"## ✅ warden: no drift", "declares exactly what the lock pins"},
			[]string{"workflow run", "javascript", "Review and re-pin", "What this pull request approves"}},
		{"unsafe run URL", Comment{LockPath: "l", Verdict: VerdictClean, RunURL: "https://x.example/a)(b\"c"},
			nil, []string{"workflow run"}},
		{"error", Comment{LockPath: "warden.lock", Verdict: VerdictError, Error: "capture failed: <b>boom</b>",
			LockChanges: &LockChanges{State: LockAdded, LockPath: "warden.lock", BaseSHA: "1234567890abcdef", Tools: 2}},
			[]string{"## ⚠️ warden: error", "<code>capture failed&#58; &lt;b&gt;boom&lt;/b&gt;</code>", "merging adds it, pinning 2 tool(s)"},
			[]string{"<b>"}},
		{"huge", Comment{LockPath: "warden.lock", Verdict: VerdictDrift, Drift: many,
			ReviewCommands: []string{strings.Repeat("|", 100000), strings.Repeat("<", 100000)}, CandidateLock: "c.lock"},
			[]string{"_Showing ", " of 10000, the most severe first; left out: ", " critical. The job summary and the SARIF file list them all._"}, nil},
		{"huge lock changes", Comment{LockPath: "warden.lock", Verdict: VerdictClean,
			LockChanges: &LockChanges{State: LockChanged, LockPath: "warden.lock", Items: many}},
			[]string{"_Showing ", " of 10000, the most severe first; left out: ", " critical. Run `warden diff` on the two locks for the full list._"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RenderComment(tt.c)
			if len(got) > MaxCommentBytes || !utf8.ValidString(got) {
				t.Errorf("comment is %d bytes (max %d), valid UTF-8 %v", len(got), MaxCommentBytes, utf8.ValidString(got))
			}
			if !strings.HasPrefix(got, CommentMarker(tt.c.LockPath)+"\n") {
				t.Errorf("comment does not start with its marker:\n%.200s", got)
			}
			if strings.Count(got, "<pre>") != strings.Count(got, "</pre>") {
				t.Errorf("unbalanced <pre>")
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("comment lacks %q:\n%.3000s", w, got)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("comment contains %q:\n%.3000s", w, got)
				}
			}
		})
	}
}

func TestCapComment(t *testing.T) {
	long := CommentMarker("x") + "\n<pre>\n" + strings.Repeat("line\n", MaxCommentBytes/5)
	got := capComment(long)
	if len(got) > MaxCommentBytes || !strings.HasSuffix(got, "the job summary has it._\n") || !strings.Contains(got, "</pre>") {
		t.Errorf("capComment: %d bytes, tail %q", len(got), got[len(got)-200:])
	}
	if short := "short\n"; capComment(short) != short {
		t.Error("a short comment was changed")
	}
}

func TestLockChangesInSummary(t *testing.T) {
	digest := "sha256:" + strings.Repeat("0", 64)
	tests := []struct {
		name    string
		c       *LockChanges
		want    []string
		wantNot []string
	}{
		{"nil", nil, nil, []string{"What this pull request approves"}},
		{"unchanged", &LockChanges{State: LockUnchanged, LockPath: "warden.lock"}, nil, []string{"What this pull request approves"}},
		{"changed and approved", &LockChanges{State: LockChanged, LockPath: "warden.lock", BaseSHA: strings.Repeat("c", 40),
			Items: []drift.Item{hostileItem()}, Approved: true, Approver: "octo_cat", ApprovalCurrent: true, BaseDigest: digest, HeadDigest: digest},
			[]string{"### What this pull request approves in <code>warden.lock</code>",
				"from the base branch's lock", "<code>cccccccccccc</code>", "(1 item(s))",
				"| high | tool-added | tools/x&#124;y",
				"The new lock is approved by <code>octo&#95;cat</code>.",
				"| Base branch | <code>sha256&#58;000"},
			[]string{"<script>", "not approved"}},
		{"stale approval", &LockChanges{State: LockChanged, LockPath: "l", Items: []drift.Item{hostileItem()}, Approved: true, Approver: "a"},
			[]string{"was given for a different surface"}, []string{"is approved by"}},
		{"metadata only", &LockChanges{State: LockChanged, LockPath: "l", BaseSHA: "abc"},
			[]string{"only its metadata changed", "**not approved**"}, []string{"| Severity |"}},
		{"added", &LockChanges{State: LockAdded, LockPath: "l", Tools: 3, Resources: 1, Prompts: 0, HeadDigest: digest},
			[]string{"merging adds it, pinning 3 tool(s), 1 resource(s) and 0 prompt(s)", "| Base branch | <code>none</code> |"}, nil},
		{"unread", &LockChanges{State: LockUnread, LockPath: "l", Note: "git is not installed; <i>"},
			[]string{"could not be read", "<code>git is not installed; &lt;i&gt;</code>"}, []string{"approved", "<i>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RenderSummary(Summary{Mode: "check", Verdict: VerdictClean, LockPath: "l", LockChanges: tt.c})
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("summary lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("summary contains %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestCandidateInSummary(t *testing.T) {
	got := RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, LockPath: "l", Drift: []drift.Item{hostileItem()},
		CandidateLock: "out/c`x`.lock", ReviewCommands: []string{"warden check"}})
	if !strings.Contains(got, "is at <code>out/c&#96;x&#96;.lock</code>, the step output `candidate-lock`") {
		t.Errorf("summary:\n%s", got)
	}
	if clean := RenderSummary(Summary{Mode: "check", Verdict: VerdictClean, LockPath: "l"}); strings.Contains(clean, "candidate") {
		t.Errorf("clean summary mentions a candidate:\n%s", clean)
	}
}

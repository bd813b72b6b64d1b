package report

import (
	"html"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/report/reporttest"
)

// linkBait is server-controlled text GitHub would link if it reached the
// rendered summary or comment whole: each of GitHub's reference forms, a
// commit id at the lengths it links, mentions, URLs and an address.
var linkBait = []string{
	"GH-77", "gh-77", "JIRA-123", "#123", "fixes #9", "owner/repo#12",
	"owner/repo@" + strings.Repeat("ab12", 10), strings.Repeat("0123456789abcdef", 2) + "01234567",
	"abc1234", "ABCDEF0", "1234567", "deadbeef-cafe", "@octocat", "@org/team", "x@example.com",
	"https://evil.example/x", "http://a.b", "ftp://c.d", "www.evil.example", "mailto:a", "xmpp:b",
}

func TestAutolinkModel(t *testing.T) {
	tests := []struct {
		md    string
		links int
	}{
		{"plain words, 123456 and abcdef", 0},
		// An entity is decoded before GitHub links references: this is
		// what EscapeMarkdown wrote for "#123" and "@user" before.
		{"| &#35;123 | &#64;user |", 2},
		{"GH-77 and a0b1c2d and www&#46;x", 3},
		{"<code>#123 @user a0b1c2d3</code>", 0},
		{"<!-- lock=0123456789abcdef -->", 0},
		{"see https&#58;//x", 1},
		{"see https://x", 2},
	}
	for _, tt := range tests {
		if got := reporttest.Autolinks(tt.md); len(got) != tt.links {
			t.Errorf("Autolinks(%q) = %q, want %d", tt.md, got, tt.links)
		}
	}
}

// TestEscapeMarkdownBreaksAutolinks: no reference, mention or URL in a
// server string survives EscapeMarkdown, as text or as the cell of a table,
// and the reader sees the string unchanged but for invisible breaks.
func TestEscapeMarkdownBreaksAutolinks(t *testing.T) {
	for _, s := range linkBait {
		for _, in := range []string{s, "x " + s + " y", "(" + s + ")", "tools/" + s} {
			got := EscapeMarkdown(in)
			if links := reporttest.Autolinks("| " + got + " |\n"); len(links) != 0 {
				t.Errorf("EscapeMarkdown(%q) = %q leaves %q", in, got, links)
			}
		}
	}
	tests := []struct{ in, want string }{
		{"GH-77", "GH-&#8203;77"},
		{"see #12", "see &#35;&#8203;12"},
		{"a@b", "a&#64;&#8203;b"},
		{"0123456789abcdef0", "012345&#8203;6789ab&#8203;cdef0"},
		{"2026-07-28 v1.2.3 x-y", "2026-07-28 v1.2.3 x-y"},
		{"https://x", "https&#58;&#8203;//x"},
	}
	for _, tt := range tests {
		if got := EscapeMarkdown(tt.in); got != tt.want {
			t.Errorf("EscapeMarkdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSummaryAndCommentAutolinks renders a job summary and a pull-request
// comment whose every server-controlled field holds the link bait, and
// checks against the model of GitHub's rendering that nothing is linked;
// values shown in <code> and commands in <pre> keep their exact text.
func TestSummaryAndCommentAutolinks(t *testing.T) {
	bait := strings.Join(linkBait, " ")
	var items []drift.Item
	var findings []lock.Finding
	for _, s := range linkBait {
		d := s + " → " + bait
		items = append(items, drift.Item{Class: drift.ClassToolAdded, Severity: drift.High, Target: "tools/" + s, Detail: &d, Message: "Tool '" + s + "' added"})
		findings = append(findings, lock.Finding{RuleID: "WRD-CAP-SHELL", Severity: drift.Critical, Target: "tools/" + s, Message: s, Snippet: s})
	}
	items = append(items, drift.Item{Class: drift.ClassServerIdentity, Severity: drift.Critical, Target: "launch/command", Message: bait})
	launch := &LaunchChange{Pinned: Launch{Command: "npx", Args: linkBait}, Current: Launch{Command: "npx", Args: append([]string{"pkg@1.2.3"}, linkBait...)}}
	changes := &LockChanges{State: LockChanged, LockPath: "warden.lock", BaseSHA: strings.Repeat("ab", 20), Items: items, Approved: true, Approver: "@octocat", ApprovalCurrent: true}
	commands := []string{"warden pin --lock warden.lock -- npx -y pkg@1.2.3 GH-77 https://x.example"}

	summary := RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, LockPath: "warden.lock", Findings: findings, Drift: items,
		Launch: launch, LockChanges: changes, ReviewCommands: commands, Approver: "@octocat",
		BaselineDigest: "sha256:" + strings.Repeat("0123456789abcdef", 4), CurrentDigest: "sha256:" + strings.Repeat("fedcba9876543210", 4)})
	comment := RenderComment(Comment{LockPath: "warden.lock", Verdict: VerdictDrift, Drift: items, ReviewCommands: commands,
		LockChanges: changes, HeadSHA: strings.Repeat("cd", 20)})
	failed := RenderSummary(Summary{Mode: "check", Verdict: VerdictError, LockPath: "warden.lock", Error: "server stderr: " + bait})
	failedComment := RenderComment(Comment{LockPath: "warden.lock", Verdict: VerdictError, Error: "server stderr: " + bait})
	servers := RenderServerSummary("check", []ServerReport{
		{Name: "GH-77 @octocat", Mode: "check", LockPath: "a.warden.lock", Drift: items},
		{Name: "#12", Mode: "check", LockPath: "b.warden.lock", Error: "server stderr: " + bait},
	}, "warden.sarif")
	for name, md := range map[string]string{"summary": summary, "comment": comment, "error summary": failed, "error comment": failedComment, "server summary": servers} {
		if links := reporttest.Autolinks(md); len(links) != 0 {
			t.Errorf("the %s leaves %d link(s), first %q:\n%.2000s", name, len(links), links[:min(len(links), 5)], md)
		}
		if !strings.Contains(md, "GH-&#8203;77") && !strings.Contains(md, "<code>server stderr&#58; GH-77 ") {
			t.Errorf("the %s does not show the bait:\n%.2000s", name, md)
		}
	}
	// <code> and <pre> are not linked by GitHub: their text stays whole,
	// so a digest or a command copies as it is.
	for _, want := range []string{
		"<code>sha256&#58;" + strings.Repeat("0123456789abcdef", 4) + "</code>",
		"<code>&#64;octocat</code>",
		"<pre>\nwarden pin --lock warden.lock -- npx -y pkg&#64;1.2.3 GH-77 https&#58;//x.example\n</pre>",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	if !strings.Contains(comment, "<pre>\nwarden pin --lock warden.lock -- npx -y pkg&#64;1.2.3 GH-77 https&#58;//x.example\n</pre>") {
		t.Errorf("the comment's command is not whole")
	}
}

// FuzzEscapeMarkdownAutolinks checks that no input leaves GitHub anything to
// link once escaped, in a table cell or in <code>, and that the reader sees
// the terminal-safe text unchanged.
func FuzzEscapeMarkdownAutolinks(f *testing.F) {
	for _, s := range linkBait {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := EscapeMarkdown(in)
		if links := reporttest.Autolinks("| " + got + " |\n"); len(links) != 0 {
			t.Fatalf("EscapeMarkdown(%q) = %q leaves %q", in, got, links)
		}
		if links := reporttest.Autolinks(code(in)); len(links) != 0 {
			t.Fatalf("code(%q) = %q leaves %q", in, code(in), links)
		}
		if dec := strings.ReplaceAll(html.UnescapeString(got), "\u200b", ""); dec != TerminalSafe(in) {
			t.Fatalf("EscapeMarkdown(%q) reads %q, want %q", in, dec, TerminalSafe(in))
		}
	})
}

package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/consensus"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/lock"
)

// Verdicts of a run, as the Action reports them.
const (
	VerdictClean = "clean"
	VerdictDrift = "drift"
	VerdictError = "error"
)

// Bounds that keep a job summary readable and inside GitHub's 1 MiB
// per-step limit, whatever a server declares.
const (
	// DefaultSummaryRows caps each table of the summary.
	DefaultSummaryRows = 200
	// maxCellBytes clips one table cell (with Clip) before it is escaped.
	maxCellBytes = 480
	// maxSummaryBytes stops adding table rows once the summary is this
	// large, leaving headroom under 1 MiB for the closing sections.
	maxSummaryBytes = 800 << 10
	// MaxSummaryBytes is the most RenderSummary returns; a longer summary
	// is cut at a line and says so. It leaves room under GitHub's 1 MiB
	// for an error summary appended in the same step: that one quotes two
	// values (the lock path and the error), each clipped to
	// MaxMessageBytes before escaping, which at most multiplies a byte by
	// ten (a backslash becomes "&#92;&#92;"), so it stays under 164 KiB.
	MaxSummaryBytes = 860 << 10
	// summaryQuoteBudget stops quoting server text once the summary is
	// this large.
	summaryQuoteBudget = 700 << 10
)

// markdownEntities maps each character that can start Markdown or HTML
// syntax to an HTML character reference. Used through EscapeMarkdown.
func markdownEntity(r rune) string {
	switch r {
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	case '"':
		return "&quot;"
	case '\'', '|', '`', '[', ']', '(', ')', '*', '_', '~', '\\', '#', '!', '$', '@', '{', '}', '^', '+', '=', ':':
		return fmt.Sprintf("&#%d;", r)
	}
	return ""
}

// EscapeMarkdown makes a server-controlled string inert in GitHub-flavoured
// Markdown, in HTML, inside a table cell, and to GitHub's autolinking of
// references. Non-printable characters are first made visible with
// TerminalSafe (so a newline cannot end a table row or start a block), then
// every character that could open Markdown or HTML syntax — emphasis, code
// spans, links and images, tables (|), raw HTML and entities, math ($),
// mentions (@), autolinks (the ':' of a scheme, the '.' of "www.") — is
// replaced by its HTML character reference. The browser shows the original
// text; no Markdown parser sees syntax.
//
// GitHub links references after the Markdown is rendered, in the HTML
// text, where an entity is the character it stands for: issues (#123,
// GH-123, owner/repo#123, and a repository's own prefixes such as
// JIRA-123), commits (7 to 40 hexadecimal digits, owner/repo@sha), @user
// and @org/team mentions, and URLs. EscapeMarkdown therefore also puts an
// invisible zero-width space (U+200B, as "&#8203;") where each of these
// would match: after every '#' and '@', between a letter's '-' and a digit,
// after every sixth hexadecimal digit of a longer run, after a scheme's ':'
// and before the '.' of "www.". The reader sees the same text, and no
// reference, mention or URL is left whole.
func EscapeMarkdown(s string) string {
	return escapeMarkdown(s, true)
}

// escapeCode is EscapeMarkdown without the breaks of references, for text
// inside a <code> or <pre> element: GitHub links no reference there, and
// the value (a digest, a path, a command) stays exactly what a reader
// copies.
func escapeCode(s string) string {
	return escapeMarkdown(s, false)
}

// linkBreak is the zero-width space EscapeMarkdown puts inside references.
const linkBreak = "&#8203;"

// hexRunBreak is how many hexadecimal digits in a row EscapeMarkdown
// leaves whole: one fewer than the shortest commit id GitHub links.
const hexRunBreak = 6

// escapeMarkdown is EscapeMarkdown, with the reference breaks only when
// breakLinks is set.
func escapeMarkdown(s string, breakLinks bool) string {
	s = TerminalSafe(s)
	var b strings.Builder
	b.Grow(len(s))
	// ws counts the 'w's just written, for the "www." of an extended
	// autolink, which needs no scheme; hex counts the hexadecimal digits
	// just written, for a commit id; prev is the rune before r.
	ws, hex := 0, 0
	prev := rune(0)
	for i, r := range s {
		next := rune(0)
		if j := i + utf8.RuneLen(r); j < len(s) {
			next, _ = utf8.DecodeRuneInString(s[j:])
		}
		e := markdownEntity(r)
		if r == '.' && ws >= 3 {
			e = "&#46;"
			if breakLinks {
				e = linkBreak + e
			}
		}
		if r == 'w' || r == 'W' {
			ws++
		} else {
			ws = 0
		}
		if breakLinks && isHexDigit(r) {
			if hex == hexRunBreak {
				b.WriteString(linkBreak)
				hex = 0
			}
			hex++
		} else {
			hex = 0
		}
		if e != "" {
			b.WriteString(e)
		} else {
			b.WriteRune(r)
		}
		if breakLinks && breaksAfter(prev, r, next) {
			b.WriteString(linkBreak)
		}
		prev = r
	}
	return b.String()
}

// breaksAfter reports whether a reference could start or continue across
// the point after r (prev before it, next after it, 0 at either end): an
// issue or a mention ('#', '@'), a prefixed issue (GH-77: a letter, '-', a
// digit) or a URL's scheme (':' before '/').
func breaksAfter(prev, r, next rune) bool {
	switch r {
	case '#', '@':
		return true
	case '-':
		return unicode.IsLetter(prev) && next >= '0' && next <= '9'
	case ':':
		return next == '/'
	}
	return false
}

func isHexDigit(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
}

// code renders an escaped value, clipped to MaxMessageBytes, in a monospace
// element. A Markdown code span cannot be used for hostile text (a backtick
// in it ends the span and entities are not decoded inside it), so this is
// the HTML element with escaped content. GitHub links no reference inside
// it, so the value is not broken up (escapeCode).
func code(s string) string {
	return "<code>" + escapeCode(Clip(s, MaxMessageBytes)) + "</code>"
}

// cell clips and escapes one table cell.
func cell(s string) string {
	return EscapeMarkdown(Clip(s, maxCellBytes))
}

// Summary is everything the Action's job summary shows.
type Summary struct {
	// Mode is "check" or "pin".
	Mode string
	// Verdict is VerdictClean, VerdictDrift or VerdictError.
	Verdict string
	// LockPath and SARIFPath are shown as given (workspace-relative).
	LockPath  string
	SARIFPath string
	Findings  []lock.Finding
	Drift     []drift.Item
	// BaselineDigest is the pinned lock's overall digest (check) and
	// CurrentDigest the fresh capture's (check) or the new lock's (pin).
	BaselineDigest string
	CurrentDigest  string
	// Approver is who approved a pin, if anyone.
	Approver string
	// Error says what failed when Verdict is VerdictError.
	Error string
	// ReviewCommands are shell commands shown on drift to review and re-pin.
	ReviewCommands []string
	// MaxRows caps each table; 0 means DefaultSummaryRows.
	MaxRows int
	// Launch is the pinned and the current launch, shown under the drift
	// table when there is server-identity drift; nil shows nothing.
	Launch *LaunchChange
	// LockChanges is what the pull request changes in the lock (check on a
	// pull request), nil otherwise.
	LockChanges *LockChanges
	// CandidateLock is where the freshly captured lock was written on
	// drift (workspace-relative), empty when none was.
	CandidateLock string
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

// RenderSummary returns the job summary as GitHub-flavoured Markdown, at
// most MaxSummaryBytes long.
func RenderSummary(s Summary) string {
	return capSummary(renderSummary(s))
}

// capSummary cuts a summary longer than MaxSummaryBytes at the end of a
// line (so no table row, entity or tag is split), closes what the cut left
// open (see closers), and says that it was cut.
func capSummary(md string) string {
	const note = "\n_The rest of this summary was left out: GitHub accepts at most 1 MiB per step. See the SARIF file for the results._\n"
	return capMarkdown(md, MaxSummaryBytes, note)
}

// maxClosers bounds what closers can return: a fence is at most one longer
// than a clipped quote line, and sections do not nest.
const maxClosers = 2 << 10

// capMarkdown cuts md to at most max bytes at the end of a line, closes
// what the cut left open and ends with note. md is returned as is when it
// fits.
func capMarkdown(md string, max int, note string) string {
	if len(md) <= max {
		return md
	}
	cut := md[:max-len(note)-maxClosers]
	if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i+1]
	} else {
		cut = strings.ToValidUTF8(cut, "")
	}
	return cut + closers(cut) + note
}

// closers returns what closes the blocks md leaves open, innermost first:
// a fenced code block of quoted server text (whose lines must not be read
// as warden's), a <pre> command block, and <details> sections. It reads md
// line by line as warden writes it: a fence opens on a line of three or
// more backticks followed by warden's info string and closes on the same
// backticks alone, and the lines inside it (the server's) are not read for
// tags.
func closers(md string) string {
	fence, pre, details := "", false, 0
	for _, line := range strings.Split(md, "\n") {
		switch {
		case fence != "":
			if line == fence {
				fence = ""
			}
		case strings.HasPrefix(line, "```"):
			fence = strings.TrimRight(line, "abcdefghijklmnopqrstuvwxyz")
		case line == "<pre>":
			pre = true
		case line == "</pre>":
			pre = false
		case strings.HasPrefix(line, "<details>"):
			details++
		case line == "</details>":
			details--
		}
	}
	var b strings.Builder
	if fence != "" {
		b.WriteString(fence + "\n\n")
	}
	if pre {
		b.WriteString("</pre>\n")
	}
	for ; details > 0; details-- {
		b.WriteString("</details>\n\n")
	}
	return b.String()
}

// renderSummary renders the summary without the overall cap.
func renderSummary(s Summary) string {
	maxRows := s.MaxRows
	if maxRows <= 0 {
		maxRows = DefaultSummaryRows
	}
	view := mdView{maxRows: maxRows, cellBytes: maxCellBytes, rowBudget: maxSummaryBytes,
		quote: summaryQuote, quoteBudget: summaryQuoteBudget}
	var b strings.Builder

	switch {
	case s.Verdict == VerdictError:
		b.WriteString("## ⚠️ warden: error\n\n")
	case s.Verdict == VerdictDrift:
		fmt.Fprintf(&b, "## ❌ warden: drift detected (%d item(s))\n\n", len(s.Drift))
	case s.Mode == "pin":
		b.WriteString("## 📌 warden: pinned\n\n")
	default:
		b.WriteString("## ✅ warden: no drift\n\n")
	}

	var facts []string
	if s.LockPath != "" {
		facts = append(facts, "Lock "+code(s.LockPath))
	}
	if s.SARIFPath != "" && s.Verdict != VerdictError {
		facts = append(facts, "SARIF "+code(s.SARIFPath))
	}
	if s.Approver != "" {
		facts = append(facts, "approved by "+code(s.Approver))
	}
	if len(facts) > 0 {
		b.WriteString(strings.Join(facts, " · ") + "\n\n")
	}

	if s.Verdict == VerdictError {
		what := "the check"
		if s.Mode == "pin" {
			what = "the pin"
		}
		fmt.Fprintf(&b, "warden could not complete %s: %s\n\n", what, code(s.Error))
		b.WriteString("Exit code 2. No SARIF file was written, so existing code-scanning alerts are left as they are.\n")
		return b.String()
	}

	// Counts by severity.
	b.WriteString("| | critical | high | medium | low |\n|---|---:|---:|---:|---:|\n")
	if s.Mode != "pin" {
		sevs := make([]string, len(s.Drift))
		for i, it := range s.Drift {
			sevs[i] = it.Severity
		}
		writeCountRow(&b, "Drift", sevs)
	}
	sevs := make([]string, len(s.Findings))
	for i, f := range s.Findings {
		sevs[i] = f.Severity
	}
	writeCountRow(&b, "Findings", sevs)
	b.WriteString("\n")
	total := len(s.Findings) + len(s.Drift)
	if total > SARIFResultLimit {
		fmt.Fprintf(&b, "_The SARIF file holds the %d most severe of %d results (GitHub code scanning accepts at most %d per run); %d were left out._\n\n",
			SARIFResultLimit, total, SARIFResultLimit, total-SARIFResultLimit)
	}

	if len(s.Drift) > 0 {
		entries := worstFirst(s.Drift, s.Explanations)
		fmt.Fprintf(&b, "### Drift (%d)\n\n", len(s.Drift))
		b.WriteString(verdictLine(entries))
		writeDriftTables(&b, entries, view, whereRest(total, s.SARIFPath))
		writeLaunchSummary(&b, s.Launch)
		writeQuotes(&b, entries, view.quote, view.quoteBudget, "`warden check --json` shows them all")
	}

	writeAcceptedMarkdown(&b, s.Mode, s.Accepted)
	writeConsensusMarkdown(&b, s.Consensus)

	writeLockChanges(&b, s.LockChanges, view)

	if len(s.Findings) > 0 {
		fmt.Fprintf(&b, "### Static findings (%d)\n\nFindings are informational; they never change the exit code.\n\n"+
			"| Severity | Rule | Target | Message |\n|---|---|---|---|\n", len(s.Findings))
		findings := append([]lock.Finding(nil), s.Findings...)
		sort.SliceStable(findings, func(i, j int) bool {
			return severityRank(findings[i].Severity) < severityRank(findings[j].Severity)
		})
		shown := 0
		for _, f := range findings {
			if shown >= maxRows || b.Len() > maxSummaryBytes {
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(f.Severity), cell(f.RuleID), cell(f.Target),
				cell(f.Message+" ["+f.Snippet+"]"))
			shown++
		}
		if shown < len(findings) {
			left := make([]string, 0, len(findings)-shown)
			for _, f := range findings[shown:] {
				left = append(left, f.Severity)
			}
			fmt.Fprintf(&b, "\n_Showing %d of %d, the most severe first; left out: %s. %s_\n", shown, len(findings), countSeverities(left), whereRest(total, s.SARIFPath))
		}
		b.WriteString("\n")
	} else {
		b.WriteString("No static findings.\n\n")
	}

	if s.BaselineDigest != "" || s.CurrentDigest != "" {
		b.WriteString("### Overall digest\n\n| | digest |\n|---|---|\n")
		if s.Mode == "pin" {
			fmt.Fprintf(&b, "| Pinned | %s |\n", code(s.CurrentDigest))
		} else {
			fmt.Fprintf(&b, "| Pinned (lock) | %s |\n| Current server | %s |\n", code(s.BaselineDigest), code(s.CurrentDigest))
		}
		b.WriteString("\n")
	}

	if s.Verdict == VerdictDrift {
		b.WriteString("### Review and re-pin\n\n" + RepinAdvice + "\n\n")
		if len(s.ReviewCommands) > 0 {
			b.WriteString("<pre>\n")
			for _, c := range s.ReviewCommands {
				// Entities are decoded inside <pre>, so the same escaping
				// shows the command exactly while leaving nothing for a
				// Markdown or HTML parser to act on; GitHub links nothing
				// in it, so the command copies as it is.
				b.WriteString(escapeCode(Clip(c, MaxMessageBytes)))
				b.WriteString("\n")
			}
			b.WriteString("</pre>\n")
		}
		if s.CandidateLock != "" {
			fmt.Fprintf(&b, "\nThe lock just captured from the server (unapproved) is at %s, the step output `candidate-lock`: "+
				"upload it as an artifact to review it with `warden diff`, or approve it with `warden approve --lock <candidate> --approver <you>` and commit it in place of the lock.\n",
				code(s.CandidateLock))
		}
	}
	return b.String()
}

// whereRest is the sentence that says where the rows a capped table of the
// summary left out are: the SARIF file, which holds them all unless the run
// has more than SARIFResultLimit results in all.
func whereRest(results int, sarifPath string) string {
	file := "SARIF file"
	if sarifPath != "" {
		file += " " + code(sarifPath)
	}
	if results > SARIFResultLimit {
		return fmt.Sprintf("The %s holds the %d most severe results of the run.", file, SARIFResultLimit)
	}
	return "The full list is in the " + file + "."
}

// WriteSummary writes RenderSummary's Markdown to w.
func WriteSummary(w io.Writer, s Summary) error {
	if _, err := io.WriteString(w, RenderSummary(s)); err != nil {
		return fmt.Errorf("write job summary: %w", err)
	}
	return nil
}

// writeCountRow writes one table row counting sevs by severity.
func writeCountRow(b *strings.Builder, label string, sevs []string) {
	fmt.Fprintf(b, "| %s |", label)
	for _, sev := range severities() {
		n := 0
		for _, s := range sevs {
			if s == sev {
				n++
			}
		}
		fmt.Fprintf(b, " %d |", n)
	}
	b.WriteString("\n")
}

// mdView lays out the drift tables of one Markdown document.
type mdView struct {
	// maxRows caps the rows of a table of items, all its parts together.
	maxRows int
	// cellBytes clips one table cell (with Clip) before it is escaped.
	cellBytes int
	// rowBudget stops adding rows once the document is this large.
	rowBudget int
	// collapse puts the medium and low rows in a collapsed <details> when
	// any item is critical or high, so those are what a reader sees.
	collapse bool
	// quote and quoteBudget bound the server text quoted beside the items
	// (see writeQuotes).
	quote       quoteLimits
	quoteBudget int
}

// Bounds of the class table of a long drift: the targets listed in the row
// of a critical or high class, and in the row of any other class.
const (
	severeTargetsBytes = 3 << 10
	otherTargetsBytes  = 160
)

// verdictLine is the one line that tells a reader of a drift how much of it
// is critical or high, before any table.
func verdictLine(entries []shown) string {
	var hard, rest []string
	for _, e := range entries {
		if severe(e.item.Severity) {
			hard = append(hard, e.item.Severity)
		} else {
			rest = append(rest, e.item.Severity)
		}
	}
	switch {
	case len(hard) == 0:
		return fmt.Sprintf("**No critical or high changes** (%s).\n\n", countSeverities(rest))
	case len(rest) == 0:
		return fmt.Sprintf("**Review each change: %s.**\n\n", countSeverities(hard))
	}
	return fmt.Sprintf("**Review first: %s.** Then %s.\n\n", countSeverities(hard), countSeverities(rest))
}

// writeDriftTables writes entries, which are in worstFirst order: for a
// long drift (more than GroupThreshold items) first a table by class, with
// the targets of each critical and high class, then the items one row each,
// the most severe first. With v.collapse the medium and low rows go in a
// collapsed <details> after the critical and high ones. The rows are capped
// by v.maxRows and v.rowBudget, and what was left out is counted by
// severity, with where the rest is (rest, a sentence).
func writeDriftTables(b *strings.Builder, entries []shown, v mdView, rest string) {
	if len(entries) > GroupThreshold {
		writeClassTable(b, entries, v)
	}
	open, folded := entries, []shown(nil)
	if v.collapse {
		n := 0
		for n < len(entries) && severe(entries[n].item.Severity) {
			n++
		}
		if n > 0 {
			open, folded = entries[:n], entries[n:]
		}
	}
	shownOpen := writeRows(b, open, v, v.maxRows)
	shownFolded := 0
	if len(folded) > 0 && shownOpen < v.maxRows && b.Len() <= v.rowBudget {
		fmt.Fprintf(b, "<details><summary>%d lower-severity change(s): %s</summary>\n\n", len(folded), countSeverities(itemSeverities(folded)))
		shownFolded = writeRows(b, folded, v, v.maxRows-shownOpen)
		b.WriteString("</details>\n\n")
	}
	left := append(itemSeverities(open[shownOpen:]), itemSeverities(folded[shownFolded:])...)
	if len(left) > 0 {
		fmt.Fprintf(b, "_Showing %d of %d, the most severe first; left out: %s. %s_\n\n", len(entries)-len(left), len(entries), countSeverities(left), rest)
	}
}

// writeRows writes a table of at most limit of entries, stopping once b is
// larger than v.rowBudget, and returns how many rows it wrote. It writes
// nothing when there is no room for a row.
func writeRows(b *strings.Builder, entries []shown, v mdView, limit int) int {
	if len(entries) == 0 || limit <= 0 || b.Len() > v.rowBudget {
		return 0
	}
	clip := func(s string) string { return EscapeMarkdown(Clip(s, v.cellBytes)) }
	b.WriteString("| Severity | Class | Target | Detail |\n|---|---|---|---|\n")
	n := 0
	for _, e := range entries {
		if n >= limit || b.Len() > v.rowBudget {
			break
		}
		it := e.item
		d := detailText(it)
		if d == "" {
			d = it.Message
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", clip(it.Severity), clip(it.Class), clip(it.Target), clip(d))
		n++
	}
	b.WriteString("\n")
	return n
}

// writeClassTable writes the table of a long drift by class: severity,
// class, how many items, and their targets (all of them for a critical or
// high class while they fit in severeTargetsBytes, a few for the others),
// in worstFirst order.
func writeClassTable(b *strings.Builder, entries []shown, v mdView) {
	b.WriteString("| Severity | Class | Items | Targets |\n|---|---|---:|---|\n")
	for _, g := range groupByClass(entries) {
		budget := otherTargetsBytes
		if severe(g.severity) {
			budget = severeTargetsBytes
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s |\n", cell(g.severity), cell(g.class), len(g.entries), targetList(g.entries, budget))
	}
	b.WriteString("\n")
}

// targetList lists the targets of entries, escaped, while their text fits
// in budget bytes, then says how many more there are.
func targetList(entries []shown, budget int) string {
	var parts []string
	used := 0
	for i, e := range entries {
		t := Clip(e.item.Target, maxCellBytes)
		if i > 0 && used+len(t) > budget {
			parts = append(parts, fmt.Sprintf("and %d more", len(entries)-i))
			break
		}
		used += len(t)
		parts = append(parts, EscapeMarkdown(t))
	}
	return strings.Join(parts, ", ")
}

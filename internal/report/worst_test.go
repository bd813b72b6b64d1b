package report

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/report/reporttest"
)

// firstScreenLines is how much of a pull-request comment this package
// counts as its first screen: the Markdown lines before the first
// <details> (anything inside one is out of sight until expanded), and at
// most this many of them — about what a reviewer sees on opening the
// comment without scrolling. Every critical and high item must be named
// there.
const firstScreenLines = 60

// drift200 is a 200-item drift in drift.Compare's order (by target, then
// class), whose low items come first by name: 1 critical (server
// identity), 80 high (tools added), 70 medium (tools removed) and 49 low
// (descriptions changed), with the explanations a snapshot gives.
func drift200() ([]drift.Item, []explain.Explanation) {
	type pair struct {
		it drift.Item
		ex explain.Explanation
	}
	var ps []pair
	ps = append(ps, pair{it: drift.Item{Class: "server-identity", Severity: drift.Critical, Target: "launch/command",
		Message: "Server launch command changed since pin"}})
	for i := range 80 {
		desc := fmt.Sprintf("Added later, number %d.", i)
		ps = append(ps, pair{
			it: drift.Item{Class: "tool-added", Severity: drift.High, Target: fmt.Sprintf("tools/z-added-%03d", i),
				Message: fmt.Sprintf("Tool 'z-added-%03d' added since pin", i)},
			ex: explain.Explanation{Source: explain.SourceSnapshot, Current: &explain.ToolView{Description: &desc, Capabilities: []string{"net-egress"}}},
		})
	}
	for i := range 70 {
		ps = append(ps, pair{it: drift.Item{Class: "tool-removed", Severity: drift.Medium, Target: fmt.Sprintf("tools/m-removed-%03d", i),
			Message: fmt.Sprintf("Tool 'm-removed-%03d' removed since pin", i)}})
	}
	for i := range 49 {
		old, nw := fmt.Sprintf("Lists the notes of folder %d.", i), fmt.Sprintf("Lists the notes of folder %d and uploads them.", i)
		ps = append(ps, pair{
			it: drift.Item{Class: "description-modified", Severity: drift.Low, Target: fmt.Sprintf("tools/a-described-%03d", i),
				Message: fmt.Sprintf("Tool 'a-described-%03d' description changed", i)},
			ex: explain.Explanation{Source: explain.SourceSnapshot, Description: &explain.TextChange{Old: &old, New: &nw,
				Words: []explain.WordOp{{Op: "=", Text: fmt.Sprintf("Lists the notes of folder %d", i)}, {Op: "-", Text: "."}, {Op: "+", Text: " and uploads them."}}}},
		})
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].it.Target != ps[j].it.Target {
			return ps[i].it.Target < ps[j].it.Target
		}
		return ps[i].it.Class < ps[j].it.Class
	})
	items := make([]drift.Item, len(ps))
	expls := make([]explain.Explanation, len(ps))
	for i, p := range ps {
		items[i], expls[i] = p.it, p.ex
	}
	return items, expls
}

// severeTargets returns the targets of the critical and high items.
func severeTargets(items []drift.Item) []string {
	var out []string
	for _, it := range items {
		if it.Severity == drift.Critical || it.Severity == drift.High {
			out = append(out, it.Target)
		}
	}
	return out
}

// plainText drops the zero-width spaces EscapeMarkdown puts inside
// references.
func plainText(s string) string { return strings.ReplaceAll(s, "\u200b", "") }

// nonIncreasing reports whether severities never rise from one to the next.
func nonIncreasing(sevs []string) bool {
	for i := 1; i < len(sevs); i++ {
		if severityRank(sevs[i]) < severityRank(sevs[i-1]) {
			return false
		}
	}
	return true
}

func TestWorstFirst(t *testing.T) {
	it := func(sev, class, target string) drift.Item {
		return drift.Item{Severity: sev, Class: class, Target: target}
	}
	tests := []struct {
		name string
		in   []drift.Item
		want []string // "severity class target"
	}{
		{"empty", nil, nil},
		{"severity, then class, then target", []drift.Item{
			it("low", "description-modified", "tools/a"),
			it("high", "tool-added", "tools/b"),
			it("medium", "tool-removed", "tools/a"),
			it("high", "schema-modified", "tools/c"),
			it("critical", "server-identity", "launch/command"),
			it("high", "tool-added", "tools/a"),
		}, []string{
			"critical server-identity launch/command",
			"high schema-modified tools/c",
			"high tool-added tools/a",
			"high tool-added tools/b",
			"medium tool-removed tools/a",
			"low description-modified tools/a",
		}},
		{"an unknown severity ranks with medium", []drift.Item{
			it("low", "x", "t"), it("weird", "x", "t"), it("high", "x", "t"),
		}, []string{"high x t", "weird x t", "low x t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := slices.Clone(tt.in)
			var got []string
			for _, x := range WorstFirst(tt.in) {
				got = append(got, x.Severity+" "+x.Class+" "+x.Target)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("WorstFirst =\n%q\nwant\n%q", got, tt.want)
			}
			if !slices.Equal(tt.in, orig) {
				t.Errorf("WorstFirst changed its input (the interoperable order)")
			}
		})
	}
	// Explanations move with their items.
	items, expls := drift200()
	for _, e := range worstFirst(items, expls) {
		if (e.item.Class == "tool-added") != (e.expl.Current != nil) || (e.item.Class == "description-modified") != (e.expl.Description != nil) {
			t.Fatalf("%s lost its explanation", e.item.Target)
		}
	}
}

// textRows returns the severity and target of each item row of a text
// report (after the class table of a long drift).
func textRows(out string) (sevs, targets []string) {
	body := out
	if i := strings.Index(out, "  items, the most severe first:\n"); i >= 0 {
		body = out[i:]
	}
	for _, line := range strings.Split(body, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && isSeverityWord(f[0]) {
			sevs = append(sevs, f[0])
			targets = append(targets, f[2])
		}
	}
	return sevs, targets
}

func isSeverityWord(s string) bool {
	return s == drift.Critical || s == drift.High || s == drift.Medium || s == drift.Low
}

// TestDrift200Text: the text report of a 200-item drift counts it by class,
// then lists every item worst first, each explanation indented under its
// row.
func TestDrift200Text(t *testing.T) {
	items, expls := drift200()
	for _, tt := range []struct {
		name  string
		write func(w io.Writer) error
	}{
		{"check", func(w io.Writer) error { return WriteCheckTextExplained(w, "warden.lock", items, expls) }},
		{"diff", func(w io.Writer) error { return WriteDiffText(w, "a.lock", "b.lock", items, expls) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.write(&buf); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			sevs, targets := textRows(out)
			if len(sevs) != 200 {
				t.Fatalf("%d item rows, want 200:\n%s", len(sevs), out)
			}
			if !nonIncreasing(sevs) || sevs[0] != drift.Critical || sevs[1] != drift.High {
				t.Errorf("rows are not worst first: %q", sevs)
			}
			if !strings.Contains(out, "  by class: 1 critical, 80 high, 70 medium, 49 low\n") ||
				!regexp.MustCompile(`(?m)^  high +tool-added +80$`).MatchString(out) {
				t.Errorf("no class table:\n%.1500s", out)
			}
			if i := slices.Index(targets, "tools/z-added-000"); i < 0 {
				t.Errorf("tools/z-added-000 has no row")
			}
			for _, want := range []string{
				"  high      tool-added            tools/z-added-000      Tool 'z-added-000' added since pin\n" +
					"      the tool as the server now declares it — server text:\n" +
					"        description:\n" +
					"          Added later, number 0.\n" +
					"        capabilities: net-egress\n",
				"  low       description-modified  tools/a-described-000  Tool 'a-described-000' description changed\n" +
					"      description, word diff (- old, + new) — server text:\n" +
					"          Lists the notes of folder 0\n" +
					"        - .\n" +
					"        + and uploads them.\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("report lacks\n%s", want)
				}
			}
		})
	}
}

// TestDrift200Summary: the job summary of a 200-item drift, rendered as
// GitHub renders it, has a class table and a row table, both worst first,
// the first row critical and every high row above every low one.
func TestDrift200Summary(t *testing.T) {
	items, expls := drift200()
	md := RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, LockPath: "warden.lock", SARIFPath: "warden.sarif",
		Drift: items, Explanations: expls})
	h, err := reporttest.RenderGFM(md)
	if err != nil {
		t.Fatal(err)
	}
	var rows, classes *reporttest.Table
	tables := reporttest.Tables(h)
	for i := range tables {
		tb := &tables[i]
		switch {
		case tb.Column("Severity") >= 0 && tb.Column("Detail") >= 0 && rows == nil:
			rows = tb
		case tb.Column("Severity") >= 0 && tb.Column("Items") >= 0 && classes == nil:
			classes = tb
		}
	}
	if rows == nil || classes == nil {
		t.Fatalf("no row table or no class table:\n%s", md)
	}
	if len(rows.Rows) != 200 {
		t.Errorf("%d rows, want all 200", len(rows.Rows))
	}
	for _, tb := range []*reporttest.Table{classes, rows} {
		col := tb.Column("Severity")
		var sevs []string
		for _, r := range tb.Rows {
			sevs = append(sevs, r[col])
		}
		if len(sevs) == 0 || sevs[0] != drift.Critical || !nonIncreasing(sevs) {
			t.Errorf("table %q is not worst first: %q", tb.Header, sevs)
		}
	}
	if got := fmt.Sprint(classes.Rows[1][:3]); got != "[high tool-added 80]" {
		t.Errorf("class row %s, want high tool-added 80", got)
	}
}

// TestDrift200Comment: the comment of a 200-item drift names every
// critical and high item on its first screen (see firstScreenLines), shows
// only critical and high rows before its first <details>, and says what
// its cap left out, by severity.
func TestDrift200Comment(t *testing.T) {
	items, expls := drift200()
	md := RenderComment(Comment{LockPath: "warden.lock", Verdict: VerdictDrift, Drift: items, Explanations: expls})
	lines := strings.Split(md, "\n")
	screen := lines[:min(firstScreenLines, len(lines))]
	if i := slices.IndexFunc(screen, func(l string) bool { return strings.HasPrefix(l, "<details>") }); i >= 0 {
		screen = screen[:i]
	}
	h, err := reporttest.RenderComment(strings.Join(screen, "\n") + "\n")
	if err != nil {
		t.Fatal(err)
	}
	seen := plainText(reporttest.Text(h))
	for _, target := range severeTargets(items) {
		if !strings.Contains(seen, target) {
			t.Errorf("%s is not on the first screen:\n%s", target, strings.Join(screen, "\n"))
			break
		}
	}
	if !strings.Contains(seen, "Review first: 1 critical, 80 high.") {
		t.Errorf("no verdict line on the first screen:\n%s", seen)
	}

	full, err := reporttest.RenderComment(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range reporttest.Tables(full) {
		col := tb.Column("Severity")
		if col < 0 || tb.Collapsed {
			continue
		}
		var sevs []string
		for _, r := range tb.Rows {
			sevs = append(sevs, r[col])
		}
		if !nonIncreasing(sevs) || sevs[0] != drift.Critical {
			t.Errorf("visible table %q is not worst first: %q", tb.Header, sevs)
		}
		if tb.Column("Detail") >= 0 && slices.ContainsFunc(sevs, func(s string) bool { return !severe(s) }) {
			t.Errorf("a medium or low row is visible without expanding anything: %q", sevs)
		}
	}
	if !strings.Contains(md, "_Showing 50 of 200, the most severe first; left out: 31 high, 70 medium, 49 low. The job summary and the SARIF file list them all._") {
		t.Errorf("the cap does not say what it left out:\n%s", md)
	}
	if !strings.Contains(md, "<details><summary>Server-controlled text: the server's own words behind 129 change(s)</summary>") {
		t.Errorf("no collapsed server text:\n%s", md)
	}
}

// TestCommentCollapsesLowerSeverity: with room for every row, a comment
// shows the critical and high rows and puts the medium and low ones in a
// collapsed <details>; with no critical or high item nothing is collapsed.
func TestCommentCollapsesLowerSeverity(t *testing.T) {
	var items []drift.Item
	for i := range 6 {
		items = append(items, drift.Item{Class: "description-modified", Severity: drift.Low, Target: fmt.Sprintf("tools/a%d", i), Message: "m"})
	}
	items = append(items, drift.Item{Class: "tool-added", Severity: drift.High, Target: "tools/z", Message: "m"},
		drift.Item{Class: "tool-removed", Severity: drift.Medium, Target: "tools/m", Message: "m"})
	tests := []struct {
		name          string
		items         []drift.Item
		open, hidden  []string
		wantCollapsed bool
	}{
		{"high and lower", items, []string{"high"}, []string{"medium", "low", "low", "low", "low", "low", "low"}, true},
		{"lower only", items[:6], []string{"low", "low", "low", "low", "low", "low"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := RenderComment(Comment{LockPath: "warden.lock", Verdict: VerdictDrift, Drift: tt.items})
			h, err := reporttest.RenderComment(md)
			if err != nil {
				t.Fatal(err)
			}
			var open, hidden []string
			for _, tb := range reporttest.Tables(h) {
				if tb.Column("Detail") < 0 {
					continue
				}
				for _, r := range tb.Rows {
					if tb.Collapsed {
						hidden = append(hidden, r[0])
					} else {
						open = append(open, r[0])
					}
				}
			}
			if !slices.Equal(open, tt.open) || !slices.Equal(hidden, tt.hidden) {
				t.Errorf("open %q, collapsed %q; want %q, %q\n%s", open, hidden, tt.open, tt.hidden, md)
			}
			if got := strings.Contains(md, "lower-severity change(s): 1 medium, 6 low</summary>"); got != tt.wantCollapsed {
				t.Errorf("collapsed section present %v, want %v:\n%s", got, tt.wantCollapsed, md)
			}
		})
	}
}

// TestCapsSayWhatTheyLeftOut: every capped list keeps the most severe and
// says how many of each severity it left out.
func TestCapsSayWhatTheyLeftOut(t *testing.T) {
	items, expls := drift200()
	var log bytes.Buffer
	if err := WriteAnnotations(NewJobLog(&log, io.Discard), sampleFindings(), items, AnnotationOptions{File: "warden.lock"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  string
		want []string
	}{
		{"summary", RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, Drift: items, Explanations: expls, MaxRows: 10, SARIFPath: "w.sarif"}),
			[]string{"_Showing 10 of 200, the most severe first; left out: 71 high, 70 medium, 49 low. The full list is in the SARIF file <code>w.sarif</code>._"}},
		{"comment", RenderComment(Comment{LockPath: "l", Verdict: VerdictDrift, Drift: items, MaxRows: 90}),
			[]string{"_Showing 90 of 200, the most severe first; left out: 61 medium, 49 low. The job summary"}},
		{"lock changes", RenderComment(Comment{LockPath: "l", Verdict: VerdictClean, MaxRows: 3,
			LockChanges: &LockChanges{State: LockChanged, LockPath: "l", Items: items, Explanations: expls}}),
			[]string{"_Showing 3 of 200, the most severe first; left out: 78 high, 70 medium, 49 low. Run `warden diff`"}},
		{"class table", RenderComment(Comment{LockPath: "l", Verdict: VerdictDrift, Drift: items}),
			[]string{"| medium | tool-removed | 70 | tools/m-removed-&#8203;000, tools/m-removed-&#8203;001, ", ", and 62 more |"}},
		{"annotations", log.String(),
			// One error slot each for the critical and 9 high items; the
			// notice slot kept free for the overflow notice.
			[]string{"::error file=warden.lock,line=1,title=WRD-DRIFT-SERVER-IDENTITY::",
				"::notice title=warden%3A more results::173 more warden result(s) not shown as annotations (GitHub shows at most 10 of each kind per step; drift: 71 high, 60 medium, 40 low; findings: 1 critical, 1 high)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range tt.want {
				if !strings.Contains(tt.got, w) {
					t.Errorf("lacks %q:\n%.4000s", w, tt.got)
				}
			}
		})
	}
	if first := strings.SplitN(log.String(), "\n", 2)[0]; !strings.Contains(first, "SERVER-IDENTITY") {
		t.Errorf("the first annotation is not the critical item: %s", first)
	}
}

// TestCommentSharesItsBudget: a comment with both a long explained drift
// and a re-pin review still lists the re-pin's most severe rows.
func TestCommentSharesItsBudget(t *testing.T) {
	items, expls := drift200()
	long := strings.Repeat("many words ", 300)
	for i := range expls {
		expls[i] = explanationOf(long)
	}
	md := RenderComment(Comment{LockPath: "l", Verdict: VerdictDrift, Drift: items, Explanations: expls,
		LockChanges: &LockChanges{State: LockChanged, LockPath: "l", Items: items, Explanations: expls}})
	if len(md) > MaxCommentBytes {
		t.Fatalf("comment is %d bytes", len(md))
	}
	review := md[strings.Index(md, "### What this pull request approves"):]
	if !strings.Contains(review, "| critical | server-identity | launch/command |") || !strings.Contains(review, "| high | tool-added |") {
		t.Errorf("the re-pin review lost its rows:\n%.3000s", review)
	}
}

package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/report/reporttest"
)

func TestJSONL(t *testing.T) {
	tests := []struct {
		name     string
		findings []lock.Finding
		items    []drift.Item
		want     string
	}{
		{"empty", nil, nil, ""},
		{
			"finding then drift",
			[]lock.Finding{{RuleID: "WRD-SEC-OPENAI", Severity: "critical", Target: "tools/t",
				Message: "WRD-SEC-OPENAI: possible secret in field", Snippet: "sk-a…(len=23)"}},
			[]drift.Item{
				{Class: "schema-type-broadened", Severity: "high", Target: "tools/ü\n",
					Detail: strp("type ['string']→any"), Message: "Tool 'ü\n' schema schema-type-broadened at 'a'"},
				{Class: "tool-removed", Severity: "medium", Target: "tools/\"q\"", Message: "Tool '\"q\"' removed since pin"},
			},
			`{"kind": "finding", "rule_id": "WRD-SEC-OPENAI", "severity": "critical", "level": "warning", "target": "tools/t", "message": "WRD-SEC-OPENAI: possible secret in field", "snippet": "sk-a…(len=23)"}` + "\n" +
				`{"kind": "drift", "rule_id": "WRD-DRIFT-SCHEMA-TYPE-BROADENED", "drift_class": "schema-type-broadened", "severity": "high", "level": "error", "target": "tools/ü\n", "message": "Tool 'ü\n' schema schema-type-broadened at 'a'", "detail": "type ['string']→any"}` + "\n" +
				`{"kind": "drift", "rule_id": "WRD-DRIFT-TOOL-REMOVED", "drift_class": "tool-removed", "severity": "medium", "level": "warning", "target": "tools/\"q\"", "message": "Tool '\"q\"' removed since pin", "detail": null}` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := JSONL(tt.findings, tt.items); got != tt.want {
				t.Errorf("JSONL =\n%s\nwant\n%s", got, tt.want)
			}
			var buf bytes.Buffer
			if err := WriteJSONL(&buf, tt.findings, tt.items); err != nil || buf.String() != tt.want {
				t.Errorf("WriteJSONL = %q, %v", buf.String(), err)
			}
		})
	}
}

func TestTerminalSafe(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain_name", "plain_name"},
		{"café ☕ 名前", "café ☕ 名前"},
		{"a\nb\r\tc", `a\nb\r\tc`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b]8;;https://evil\x07link", `\x1b]8;;https://evil\alink`},
		{"back\\slash\\n", `back\\slash\\n`},
		{"rtl\u202eevil", `rtl\u202eevil`},
		{"nbsp\u00a0zw\u200b", `nbsp\u00a0zw\u200b`},
		{"c1\u009bx", `c1\u009bx`},
		{"del\x7f", `del\x7f`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"line\u2028sep", `line\u2028sep`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := TerminalSafe(tt.in); got != tt.want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCheckText(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCheckText(&buf, "warden.lock", nil); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "OK no drift vs warden.lock\n" {
		t.Errorf("clean = %q", buf.String())
	}

	buf.Reset()
	items := []drift.Item{
		{Class: "tool-added", Severity: "high", Target: "tools/delete_note", Message: "Tool 'delete_note' added since pin"},
		{Class: "schema-enum-widened", Severity: "high", Target: "tools/get_weather",
			Detail: strp("enum 2→3 values"), Message: "Tool 'get_weather' schema schema-enum-widened at 'units'"},
	}
	if err := WriteCheckText(&buf, "warden.lock", items); err != nil {
		t.Fatal(err)
	}
	want := "DRIFT DETECTED vs warden.lock (2 item(s))\n" +
		"  SEVERITY  CLASS                TARGET             MESSAGE\n" +
		"  high      schema-enum-widened  tools/get_weather  Tool 'get_weather' schema schema-enum-widened at 'units' [enum 2→3 values]\n" +
		"  high      tool-added           tools/delete_note  Tool 'delete_note' added since pin\n"
	if buf.String() != want {
		t.Errorf("drift =\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestCheckTextHostile(t *testing.T) {
	name := "evil\n::error::forged\x1b[2J\x1b]0;title\x07"
	items := []drift.Item{{Class: "tool-added", Severity: "high", Target: "tools/" + name, Message: "Tool '" + name + "' added since pin"}}
	var buf bytes.Buffer
	if err := WriteCheckText(&buf, "warden.lock", items); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.ContainsAny(out, "\x1b\x07\r") {
		t.Errorf("control characters reached the output: %q", out)
	}
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("%d lines, want 3 (headline, header, one row):\n%s", n, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("a line starts a workflow command: %q", line)
		}
	}
}

func TestPinText(t *testing.T) {
	approver := "alice"
	l := &lock.Lock{OverallDigest: "sha256:abc", Tools: make([]lock.Tool, 3), Prompts: make([]lock.Prompt, 1)}
	tests := []struct {
		name     string
		approved bool
		findings []lock.Finding
		want     string
	}{
		{"plain", false, nil,
			"pinned -> warden.lock\n  overall_digest: sha256:abc\n  tools=3 resources=0 prompts=1\n  no static findings\n"},
		{"approved with findings", true, []lock.Finding{{RuleID: "WRD-CAP-SHELL", Severity: "critical", Target: "tools/sh", Snippet: "name token 'sh'"}},
			"pinned -> warden.lock\n  overall_digest: sha256:abc\n  tools=3 resources=0 prompts=1\n  approved by: alice\n" +
				"  SEVERITY  RULE           TARGET    SNIPPET\n" +
				"  critical  WRD-CAP-SHELL  tools/sh  name token 'sh'\n" +
				"  findings are informational: they never change the exit code (review them like code)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l.Pin.Approved = tt.approved
			l.Pin.Approver = nil
			if tt.approved {
				l.Pin.Approver = &approver
			}
			var buf bytes.Buffer
			if err := WritePinText(&buf, "warden.lock", l, tt.findings); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", buf.String(), tt.want)
			}
		})
	}
}

func TestEscapeWorkflowCommands(t *testing.T) {
	tests := []struct {
		in, data, prop string
	}{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"%0A", "%250A", "%250A"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"a:b,c", "a:b,c", "a%3Ab%2Cc"},
		{"::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"},
	}
	for _, tt := range tests {
		if got := EscapeData(tt.in); got != tt.data {
			t.Errorf("EscapeData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := EscapeProperty(tt.in); got != tt.prop {
			t.Errorf("EscapeProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
	got := Command("error", []Property{{"file", "a,b:c.lock"}, {"line", "3"}, {"title", "T"}}, "x\ny%")
	if want := "::error file=a%2Cb%3Ac.lock,line=3,title=T::x%0Ay%25"; got != want {
		t.Errorf("Command = %q, want %q", got, want)
	}
	if got := Command("notice", nil, "m"); got != "::notice::m" {
		t.Errorf("Command without properties = %q", got)
	}
}

func TestAnnotations(t *testing.T) {
	var buf bytes.Buffer
	err := WriteAnnotations(NewJobLog(&buf, io.Discard), sampleFindings(), sampleDrift(), AnnotationOptions{
		File: "warden.lock", Lines: IndexLock([]byte(sampleLock)),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "::error file=warden.lock,line=5,title=WRD-DRIFT-SCHEMA-ENUM-WIDENED::Tool 'get_weather' schema schema-enum-widened at 'units' [enum 2→3 values]\n" +
		"::error file=warden.lock,line=1,title=WRD-DRIFT-TOOL-ADDED::Tool 'delete_note' added since pin\n" +
		"::warning file=warden.lock,line=11,title=WRD-DRIFT-TOOL-REMOVED::Tool 'search' removed since pin\n" +
		"::notice file=warden.lock,line=5,title=WRD-DRIFT-DESCRIPTION-MODIFIED::Tool 'get_weather' description changed\n" +
		"::warning file=warden.lock,line=8,title=WRD-CAP-SHELL (informational)::tools/run_shell: Tool derives capability 'shell-exec' (name token 'shell') [name token 'shell']\n" +
		"::warning file=warden.lock,line=1,title=WRD-SUP-NPX-UNPINNED (informational)::launch/command: Unpinned npx package (resolves latest at run) [some-server]\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestAnnotationCaps(t *testing.T) {
	mk := func(n int, sev string) []drift.Item {
		var out []drift.Item
		for i := 0; i < n; i++ {
			out = append(out, drift.Item{Class: "tool-added", Severity: sev, Target: fmt.Sprintf("tools/%s%d", sev, i), Message: "m"})
		}
		return out
	}
	tests := []struct {
		name                              string
		errors, warnings, notices         int
		wantErr, wantWarn, wantNote, omit int
	}{
		{"under the caps", 10, 10, 10, 10, 10, 10, 0},
		{"errors overflow", 15, 3, 10, 10, 3, 9, 6},
		{"notices overflow", 0, 0, 12, 0, 0, 9, 3},
		{"nothing", 0, 0, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := append(append(mk(tt.errors, "high"), mk(tt.warnings, "medium")...), mk(tt.notices, "low")...)
			var buf bytes.Buffer
			if err := WriteAnnotations(NewJobLog(&buf, io.Discard), nil, items, AnnotationOptions{File: "warden.lock", SARIFPath: "warden.sarif"}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			count := func(prefix string) int {
				return strings.Count(out, "\n"+prefix) + boolInt(strings.HasPrefix(out, prefix))
			}
			summary := strings.Count(out, "title=warden%3A more results")
			if e, w, n := count("::error "), count("::warning "), count("::notice ")-summary; e != tt.wantErr || w != tt.wantWarn || n != tt.wantNote {
				t.Errorf("errors/warnings/notices = %d/%d/%d, want %d/%d/%d", e, w, n, tt.wantErr, tt.wantWarn, tt.wantNote)
			}
			if tt.omit == 0 && summary != 0 {
				t.Errorf("unexpected overflow notice:\n%s", out)
			}
			if tt.omit > 0 && (summary != 1 || !strings.Contains(out, fmt.Sprintf("::%d more warden result(s)", tt.omit)) || !strings.Contains(out, "warden.sarif")) {
				t.Errorf("overflow notice missing or wrong (want %d omitted):\n%s", tt.omit, out)
			}
			if got := count("::notice "); got > AnnotationLimit {
				t.Errorf("%d notices exceed the display limit", got)
			}
		})
	}
}

func TestAnnotationsDriftBeforeFindings(t *testing.T) {
	var findings []lock.Finding
	for i := 0; i < 12; i++ {
		findings = append(findings, lock.Finding{RuleID: "WRD-CAP-SHELL", Severity: "critical", Target: fmt.Sprintf("tools/f%d", i), Message: "m"})
	}
	items := []drift.Item{{Class: "tool-added", Severity: "high", Target: "tools/new", Message: "Tool 'new' added since pin"}}
	var buf bytes.Buffer
	if err := WriteAnnotations(NewJobLog(&buf, io.Discard), findings, items, AnnotationOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "::error title=WRD-DRIFT-TOOL-ADDED::") {
		t.Errorf("drift did not take the first error slot:\n%s", buf.String())
	}
	// Critical findings are informational: warnings, never errors, so they
	// cannot take the error slots that drift needs.
	if n := strings.Count(buf.String(), "::warning title=WRD-CAP-SHELL (informational)"); n != AnnotationLimit {
		t.Errorf("%d finding warnings, want %d", n, AnnotationLimit)
	}
	if strings.Contains(buf.String(), "::error title=WRD-CAP") {
		t.Errorf("a finding became an error annotation:\n%s", buf.String())
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestAnnotationsHostile(t *testing.T) {
	name := "n\r\n::warning file=x::forged%0A\x1b[1m,:"
	items := []drift.Item{{Class: "tool-added", Severity: "low", Target: "tools/" + name, Message: "Tool '" + name + "' added since pin"}}
	findings := []lock.Finding{{RuleID: "WRD-SEC-JWT", Severity: "high", Target: "tools/" + name, Message: "m", Snippet: name}}
	var buf bytes.Buffer
	if err := WriteAnnotations(NewJobLog(&buf, io.Discard), findings, items, AnnotationOptions{File: "dir,x/warden:1.lock"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), buf.String())
	}
	for _, l := range lines {
		if strings.ContainsAny(l, "\r\x1b") {
			t.Errorf("raw control character in %q", l)
		}
		// The message part (after the second "::") must not carry a raw
		// "%0A" sequence the runner would decode into a newline.
		msg := l[strings.Index(l[2:], "::")+4:]
		if strings.Contains(strings.ReplaceAll(msg, "%25", ""), "%0A") {
			t.Errorf("message decodes to a newline: %q", msg)
		}
		if !strings.Contains(l, "file=dir%2Cx/warden%3A1.lock,") {
			t.Errorf("file property not escaped: %q", l)
		}
	}
}

func TestEscapeMarkdown(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain name", "plain name"},
		{"a|b", "a&#124;b"},
		{"<script>alert('x')</script>", "&lt;script&gt;alert&#40;&#39;x&#39;&#41;&lt;/script&gt;"},
		{"[click](https://evil)", "&#91;click&#93;&#40;https&#58;&#8203;//evil&#41;"},
		{"![img](x)", "&#33;&#91;img&#93;&#40;x&#41;"},
		{"`code` *em* _u_ ~s~", "&#96;code&#96; &#42;em&#42; &#95;u&#95; &#126;s&#126;"},
		{"&amp; &#124;", "&amp;amp; &amp;&#35;&#8203;124;"},
		{"$x$ @team #1", "&#36;x&#36; &#64;&#8203;team &#35;&#8203;1"},
		{"line\nbreak", "line&#92;nbreak"},
		{"ünï", "ünï"},
		{"see www.evil.example/login", "see www&#8203;&#46;evil.example/login"},
		{"WWW.evil.example", "WWW&#8203;&#46;evil.example"},
		{"(www.evil.example)", "&#40;www&#8203;&#46;evil.example&#41;"},
		{"*www.x* wwww.y", "&#42;www&#8203;&#46;x&#42; wwww&#8203;&#46;y"},
		{"www,ww.w.w. www", "www,ww.w.w. www"},
	}
	for _, tt := range tests {
		if got := EscapeMarkdown(tt.in); got != tt.want {
			t.Errorf("EscapeMarkdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEscapeMarkdownProperties checks, over hostile inputs, that the output
// contains no character that can open Markdown or HTML syntax, and that a
// browser decoding the entities shows exactly the terminal-safe text.
func TestEscapeMarkdownProperties(t *testing.T) {
	entity := regexp.MustCompile(`&(#[0-9]+|amp|lt|gt|quot);`)
	inputs := []string{
		"| col | <b>x</b> ` ``` [a]: http://x \"t\"",
		"ghadelimiter_deadbeef\nEOF\n::error::x%0A",
		"<img src=x onerror=alert(1)>&lt;",
		"\\|escaped pipe\\| ***bold*** __u__ ~~s~~ $$math$$",
		"<!-- comment --> <details open> ]]> {{x}} ^[note]",
		"see www.evil.example/login and WwW.x and (www.y)",
	}
	for _, in := range inputs {
		got := EscapeMarkdown(in)
		bare := entity.ReplaceAllString(got, "")
		if i := strings.IndexAny(bare, "&|`[]()*_~\\<>\"'$@{}!#^+=:\n\r"); i >= 0 {
			t.Errorf("EscapeMarkdown(%q) = %q keeps %q", in, got, got[i])
		}
		if strings.Contains(strings.ToLower(got), "www.") {
			t.Errorf("EscapeMarkdown(%q) = %q keeps a www. autolink", in, got)
		}
		// The zero-width spaces are EscapeMarkdown's own: TerminalSafe
		// writes a U+200B of the input as an escape.
		if dec := strings.ReplaceAll(html.UnescapeString(got), "\u200b", ""); dec != TerminalSafe(in) {
			t.Errorf("decoded %q, want %q", dec, TerminalSafe(in))
		}
	}
}

func TestSummaryVerdicts(t *testing.T) {
	tests := []struct {
		name     string
		s        Summary
		contains []string
		absent   []string
	}{
		{"clean", Summary{Mode: "check", Verdict: VerdictClean, LockPath: "warden.lock", SARIFPath: "warden.sarif",
			BaselineDigest: "sha256:aa", CurrentDigest: "sha256:aa"},
			[]string{"## ✅ warden: no drift", "Lock <code>warden.lock</code>", "| Drift | 0 | 0 | 0 | 0 |",
				"No static findings.", "| Pinned (lock) | <code>sha256&#58;aa</code> |"},
			[]string{"Review and re-pin", "### Drift"}},
		{"drift", Summary{Mode: "check", Verdict: VerdictDrift, LockPath: "warden.lock", SARIFPath: "warden.sarif",
			Findings: sampleFindings(), Drift: sampleDrift(), BaselineDigest: "sha256:aa", CurrentDigest: "sha256:bb",
			ReviewCommands: []string{"warden pin --lock candidate.lock -- ./server", "warden diff warden.lock candidate.lock"}},
			[]string{"## ❌ warden: drift detected (4 item(s))", "| Drift | 0 | 2 | 1 | 1 |", "| Findings | 1 | 1 | 0 | 0 |",
				"### Drift (4)", "| high | schema-enum-widened | tools/get&#95;weather | enum 2→3 values |",
				"| high | tool-added | tools/delete&#95;note | Tool &#39;delete&#95;note&#39; added since pin |",
				"### Static findings (2)", "Current server | <code>sha256&#58;bb</code>", "### Review and re-pin",
				"<pre>\nwarden pin --lock candidate.lock -- ./server\nwarden diff warden.lock candidate.lock\n</pre>"},
			nil},
		{"error", Summary{Mode: "check", Verdict: VerdictError, LockPath: "warden.lock", SARIFPath: "warden.sarif",
			Error: "read lock: open warden.lock: no such file"},
			[]string{"## ⚠️ warden: error", "warden could not complete the check: <code>read lock&#58; open warden.lock&#58; no such file</code>", "Exit code 2"},
			[]string{"SARIF <code>", "| Drift |"}},
		{"pin", Summary{Mode: "pin", Verdict: VerdictClean, LockPath: "warden.lock", SARIFPath: "warden.sarif",
			CurrentDigest: "sha256:cc", Approver: "alice", Findings: sampleFindings()[:1]},
			[]string{"## 📌 warden: pinned", "approved by <code>alice</code>", "| Findings | 0 | 1 | 0 | 0 |", "| Pinned | <code>sha256&#58;cc</code> |"},
			[]string{"| Drift |", "Current server"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RenderSummary(tt.s)
			for _, c := range tt.contains {
				if !strings.Contains(got, c) {
					t.Errorf("summary lacks %q:\n%s", c, got)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("summary should not contain %q:\n%s", a, got)
				}
			}
		})
	}
}

// TestSummaryHostile renders server-controlled strings built to break out
// of table cells, inject HTML, links or a fenced block, and checks that every
// table row still has exactly its four cells and no raw markup survives.
func TestSummaryHostile(t *testing.T) {
	evil := "x|y\n\n# Heading\n<script>alert(1)</script>[link](javascript:alert(1))`code`</code></pre>ghadelimiter_1234"
	items := []drift.Item{{Class: "tool-added", Severity: "high", Target: "tools/" + evil,
		Message: "Tool '" + evil + "' added since pin", Detail: strp(evil)}}
	findings := []lock.Finding{{RuleID: "WRD-CAP-SHELL", Severity: "critical", Target: "tools/" + evil, Message: evil, Snippet: evil}}
	got := RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, LockPath: "warden.lock", Drift: items, Findings: findings,
		BaselineDigest: evil, CurrentDigest: evil, ReviewCommands: []string{"warden pin -- " + evil}})
	for _, bad := range []string{"<script", "</code></pre>", "[link]", "](", "\n# Heading", "`code`"} {
		if strings.Contains(got, bad) {
			t.Errorf("summary contains raw %q:\n%s", bad, got)
		}
	}
	rows := 0
	for _, line := range strings.Split(got, "\n") {
		want := 0
		switch {
		case strings.HasPrefix(line, "| high |"), strings.HasPrefix(line, "| critical |"):
			want = 5
		case strings.HasPrefix(line, "| Pinned"), strings.HasPrefix(line, "| Current"):
			want = 3
		default:
			continue
		}
		rows++
		if n := strings.Count(line, "|"); n != want {
			t.Errorf("table row has %d pipes, want %d (a cell broke out): %q", n, want, line)
		}
	}
	if rows != 4 {
		t.Errorf("found %d hostile table rows, want 4:\n%s", rows, got)
	}
	if strings.Count(got, "<pre>") != 1 || strings.Count(got, "</pre>") != 1 {
		t.Errorf("the command block was broken out of:\n%s", got)
	}
}

func TestSummaryCaps(t *testing.T) {
	long := strings.Repeat("<|>", 2000)
	var items []drift.Item
	for i := 0; i < 5000; i++ {
		items = append(items, drift.Item{Class: "tool-added", Severity: "high", Target: fmt.Sprintf("tools/%d%s", i, long), Message: long, Detail: strp(long)})
	}
	got := RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, Drift: items, SARIFPath: "warden.sarif"})
	if len(got) >= 1<<20 {
		t.Errorf("summary is %d bytes, over GitHub's 1 MiB step-summary limit", len(got))
	}
	if !strings.Contains(got, "_Showing ") || !strings.Contains(got, " of 5000, the most severe first; left out: ") ||
		!strings.Contains(got, " high. The full list is in the SARIF file <code>warden.sarif</code>._") {
		t.Errorf("summary does not say rows were left out")
	}
	rows := strings.Count(got, "\n| high |")
	if rows == 0 || rows > DefaultSummaryRows {
		t.Errorf("%d drift rows, want 1..%d", rows, DefaultSummaryRows)
	}

	small := RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, Drift: sampleDrift(), MaxRows: 2})
	if n := strings.Count(small, "\n| high |") + strings.Count(small, "\n| low |") + strings.Count(small, "\n| medium |"); n != 2 {
		t.Errorf("MaxRows 2 gave %d rows:\n%s", n, small)
	}
}

// TestLegacyCommandsInert puts the tool name (a legacy runner
// command) in every Action-mode writer — annotations, the drift table, the
// pin findings table — and checks with a model of the runner that only
// warden's own annotations are read as commands, with the name neutralised.
func TestLegacyCommandsInert(t *testing.T) {
	items := []drift.Item{{Class: "tool-added", Severity: "high", Target: "tools/" + injected,
		Message: "Tool '" + injected + "' added since pin", Detail: strp(injected)}}
	findings := []lock.Finding{{RuleID: "WRD-CAP-SHELL", Severity: "critical", Target: "tools/" + injected,
		Message: "m", Snippet: "name token '" + injected + "'"}}
	tests := []struct {
		name      string
		write     func(log *JobLog) error
		wantNames []string
	}{
		{"annotations", func(log *JobLog) error {
			return WriteAnnotations(log, findings, items, AnnotationOptions{File: "warden.lock"})
		}, []string{"error", "warning"}},
		{"drift table", func(log *JobLog) error { return WriteCheckText(log.Stdout(), "warden.lock", items) }, nil},
		{"pin findings table", func(log *JobLog) error {
			return WritePinText(log.Stdout(), "warden.lock", &lock.Lock{}, findings)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			log := NewJobLog(&out, io.Discard)
			if err := tt.write(log); err != nil {
				t.Fatal(err)
			}
			if err := log.Flush(); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range reporttest.RunnerCommands(out.String()) {
				names = append(names, c.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.wantNames) {
				t.Errorf("the runner executes %q, want %q:\n%s", names, tt.wantNames, out.String())
			}
			if strings.Contains(out.String(), "##[") || !strings.Contains(out.String(), `#\x23[set-output name=injected;]pwned`) {
				t.Errorf("the name is not shown neutralised:\n%s", out.String())
			}
		})
	}
}

// TestHugeInputClipped quotes a 10 MB name in every human-facing writer and
// checks that each line stays bounded and still names what it is about.
func TestHugeInputClipped(t *testing.T) {
	huge := strings.Repeat("K", 10<<20) + "-end"
	items := []drift.Item{{Class: "tool-added", Severity: "high", Target: "tools/" + huge,
		Message: "Tool '" + huge + "' added since pin", Detail: strp(huge)}}
	findings := []lock.Finding{{RuleID: "WRD-CAP-SHELL", Severity: "critical", Target: "tools/" + huge,
		Message: huge, Snippet: huge}}
	tests := []struct {
		name  string
		write func(w *bytes.Buffer) error
		max   int
	}{
		{"annotations", func(w *bytes.Buffer) error {
			return WriteAnnotations(NewJobLog(w, io.Discard), findings, items, AnnotationOptions{File: "warden.lock"})
		}, 4*MaxMessageBytes + 200},
		{"drift table", func(w *bytes.Buffer) error { return WriteCheckText(w, "warden.lock", items) }, 5 * MaxMessageBytes},
		{"pin findings table", func(w *bytes.Buffer) error { return WritePinText(w, "warden.lock", &lock.Lock{}, findings) }, 5 * MaxMessageBytes},
		{"summary", func(w *bytes.Buffer) error {
			return WriteSummary(w, Summary{Mode: "check", Verdict: VerdictDrift, LockPath: "warden.lock", Drift: items, Findings: findings})
		}, 4 * maxCellBytes * 6},
		{"sarif", func(w *bytes.Buffer) error {
			return WriteSARIF(w, findings, items, SARIFOptions{})
		}, 8 * MaxMessageBytes},
		{"error summary", func(w *bytes.Buffer) error {
			return WriteSummary(w, Summary{Mode: "check", Verdict: VerdictError, LockPath: "warden.lock",
				Error: "read lock warden.lock: tool \"" + huge + "\": digest mismatch"})
		}, 6*MaxMessageBytes + 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.write(&buf); err != nil {
				t.Fatal(err)
			}
			if buf.Len() > 8*MaxMessageBytes {
				t.Errorf("output is %d bytes for a 10 MB input", buf.Len())
			}
			for _, line := range strings.Split(buf.String(), "\n") {
				if len(line) > tt.max {
					t.Errorf("a %d-byte line (cap %d): %.80q…", len(line), tt.max, line)
				}
			}
			if !strings.Contains(buf.String(), " bytes elided") {
				t.Errorf("the cut is not marked:\n%.400s", buf.String())
			}
		})
	}
}

// TestSummaryOverallCap fills every section of a summary with the most an
// input can put there and checks the whole stays under MaxSummaryBytes,
// leaving room for an error summary in the same step under GitHub's 1 MiB.
func TestSummaryOverallCap(t *testing.T) {
	worst := strings.Repeat("\\\x01", 20<<10) // each byte escapes to 8-10 bytes
	var items []drift.Item
	for i := 0; i < 3000; i++ {
		items = append(items, drift.Item{Class: "tool-added", Severity: "high", Target: fmt.Sprintf("tools/%d%s", i, worst), Message: worst, Detail: strp(worst)})
	}
	var cmds []string
	for i := 0; i < 20; i++ {
		cmds = append(cmds, "warden pin -- "+worst)
	}
	got := RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, LockPath: worst, SARIFPath: worst, Drift: items,
		Findings:       []lock.Finding{{RuleID: "WRD-CAP-SHELL", Severity: "critical", Target: worst, Message: worst, Snippet: worst}},
		BaselineDigest: worst, CurrentDigest: worst, ReviewCommands: cmds})
	if len(got) > MaxSummaryBytes {
		t.Errorf("summary is %d bytes, over MaxSummaryBytes (%d)", len(got), MaxSummaryBytes)
	}
	errSummary := RenderSummary(Summary{Mode: "check", Verdict: VerdictError, LockPath: worst, Error: worst + worst})
	if len(errSummary) > 1<<20-MaxSummaryBytes {
		t.Errorf("an error summary is %d bytes; after a full summary it would pass GitHub's 1 MiB", len(errSummary))
	}
	if strings.Count(got, "<pre>") != strings.Count(got, "</pre>") {
		t.Errorf("the cut left a <pre> block open")
	}
	if !strings.HasSuffix(got, "See the SARIF file for the results._\n") {
		t.Errorf("the cut is not announced: …%q", got[len(got)-200:])
	}
}

// TestSummarySARIFLimit checks that the summary says when the SARIF file
// cannot hold every result.
func TestSummarySARIFLimit(t *testing.T) {
	items := make([]drift.Item, SARIFResultLimit+5)
	for i := range items {
		items[i] = drift.Item{Class: "tool-added", Severity: "low", Target: fmt.Sprintf("tools/t%d", i), Message: "m"}
	}
	got := RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, SARIFPath: "warden.sarif", Drift: items})
	for _, want := range []string{
		"_The SARIF file holds the 25000 most severe of 25005 results (GitHub code scanning accepts at most 25000 per run); 5 were left out._",
		"_Showing 200 of 25005, the most severe first; left out: 24805 low. The SARIF file <code>warden.sarif</code> holds the 25000 most severe results of the run._",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if small := RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, Drift: sampleDrift()}); strings.Contains(small, "most severe") {
		t.Errorf("a small run mentions the SARIF limit:\n%s", small)
	}
}

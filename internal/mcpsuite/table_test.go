package mcpsuite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The verdicts a row of the table may expect.
const (
	verdictPass = "pass"
	verdictFail = "fail"
	verdictNA   = "n/a"
)

// extensionTag is the tag the suite gives a scenario that is not on the
// specification's timeline; such a scenario runs at the suite's default
// revision, without --spec-version.
const extensionTag = "extension"

// key names one row of the table: a scenario at one revision.
type key struct {
	scenario string
	revision string
}

func (k key) String() string { return k.scenario + "@" + k.revision }

// The values of the capture cell of an n/a row.
const (
	captureYes = "yes"
	captureNo  = "no"
)

// expectation is what the table says about one key.
type expectation struct {
	verdict string
	capture bool // an n/a row whose server warden must still pin and check
	reason  string
	line    int // in docs/mcp-conformance.md, for messages
}

// scenarioLine is one scenario of `conformance list`: "  - name [tag,tag]".
var scenarioLine = regexp.MustCompile(`^\s+- (\S+) \[([^\]]*)\]\s*$`)

// parseScenarioList reads the output of `conformance list --client`.
func parseScenarioList(out []byte) ([]key, error) {
	var keys []key
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := scenarioLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		for _, tag := range strings.Split(m[2], ",") {
			tag = strings.TrimSpace(tag)
			if tag == "" {
				return nil, fmt.Errorf("scenario %s has an empty tag", m[1])
			}
			keys = append(keys, key{scenario: m[1], revision: tag})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, errors.New("no scenario in the output; has its format changed?")
	}
	return keys, nil
}

// tableHeader is the header row of the table in docs/mcp-conformance.md.
var tableHeader = []string{"scenario", "revision", "expected", "capture", "reason"}

// readTable reads the expected verdicts from the Markdown table whose header
// is tableHeader. A revision cell may list several revisions, separated by
// commas, that share a verdict and a reason. The capture cell is empty on a
// pass or fail row (the suite's verdict already holds the client's exit
// status) and yes or no on an n/a row.
func readTable(path string) (map[key]expectation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the conformance table: %w", err)
	}
	table, err := parseTable(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return table, nil
}

// parseTable parses the conformance table out of a Markdown document.
func parseTable(doc string) (map[key]expectation, error) {
	lines := strings.Split(doc, "\n")
	start := -1
	for i, l := range lines {
		if slices.Equal(tableCells(l), tableHeader) {
			if start >= 0 {
				return nil, fmt.Errorf("line %d: a second conformance table", i+1)
			}
			start = i
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no table with the header | %s |", strings.Join(tableHeader, " | "))
	}
	table := map[key]expectation{}
	for i := start + 2; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
		cells := tableCells(lines[i])
		if len(cells) != len(tableHeader) {
			return nil, fmt.Errorf("line %d: %d cells, want %d", i+1, len(cells), len(tableHeader))
		}
		scenario := strings.Trim(cells[0], "`")
		e, err := parseExpectation(cells[2], cells[3], cells[4])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		e.line = i + 1
		for _, rev := range strings.Split(cells[1], ",") {
			k := key{scenario: scenario, revision: strings.Trim(strings.TrimSpace(rev), "`")}
			if k.scenario == "" || k.revision == "" {
				return nil, fmt.Errorf("line %d: empty scenario or revision", i+1)
			}
			if prev, dup := table[k]; dup {
				return nil, fmt.Errorf("line %d: %s is already on line %d", i+1, k, prev.line)
			}
			table[k] = e
		}
	}
	if len(table) == 0 {
		return nil, errors.New("the conformance table has no rows")
	}
	return table, nil
}

// parseExpectation reads the expected, capture and reason cells of a row.
func parseExpectation(verdict, capture, reason string) (expectation, error) {
	e := expectation{verdict: verdict, reason: reason}
	switch verdict {
	case verdictPass, verdictFail:
		if capture != "" {
			return e, fmt.Errorf("a %s row is judged by the suite; its capture cell must be empty, not %q", verdict, capture)
		}
	case verdictNA:
		switch capture {
		case captureYes:
			e.capture = true
		case captureNo:
		default:
			return e, fmt.Errorf("an n/a row's capture cell is %q, want %s or %s", capture, captureYes, captureNo)
		}
	default:
		return e, fmt.Errorf("expected %q is not pass, fail or n/a", verdict)
	}
	if verdict != verdictPass && reason == "" {
		return e, fmt.Errorf("a %s row needs a reason", verdict)
	}
	return e, nil
}

// tableCells splits a Markdown table row into its trimmed cells; a line
// that is not a row has none.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

// compareRows lists every key the suite has and the table lacks, and every
// row of the table the suite does not have.
func compareRows(listed []key, table map[key]expectation) []string {
	var problems []string
	have := map[key]bool{}
	for _, k := range listed {
		have[k] = true
		if _, ok := table[k]; !ok {
			problems = append(problems, fmt.Sprintf("  %s: a scenario of the suite that the table lacks (read its source, then add a row)", k))
		}
	}
	var stale []string
	for k, e := range table {
		if !have[k] {
			stale = append(stale, fmt.Sprintf("  %s (line %d): not a client scenario of the suite at that revision", k, e.line))
		}
	}
	slices.Sort(stale)
	return append(problems, stale...)
}

// clip shortens s to at most n bytes of escaped text, keeping newlines.
func clip(s string, n int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = escape(l)
	}
	s = strings.Join(lines, "\n")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// escape makes one line of foreign text inert: control characters,
// invalid UTF-8 and non-graphic runes become Go escapes.
func escape(line string) string {
	q := strconv.QuoteToGraphic(line)
	q = q[1 : len(q)-1]
	return strings.ReplaceAll(q, `\"`, `"`)
}

// TestParseScenarioList: every scenario line of `conformance list` gives
// one key per tag; headings, blank lines and the deprecation noise Node
// prints are not scenarios.
func TestParseScenarioList(t *testing.T) {
	for _, tc := range []struct {
		name    string
		out     string
		want    []key
		wantErr bool
	}{
		{
			name: "tags",
			out: "Client scenarios (test against a client):\n" +
				"  - initialize [2025-06-18,2025-11-25]\n" +
				"  - request-metadata [2026-07-28]\n" +
				"  - auth/dpop [extension]\n\n",
			want: []key{
				{"initialize", "2025-06-18"}, {"initialize", "2025-11-25"},
				{"request-metadata", "2026-07-28"}, {"auth/dpop", "extension"},
			},
		},
		{name: "nothing", out: "Client scenarios (test against a client):\n", wantErr: true},
		{name: "empty tag", out: "  - x [2025-11-25,]\n", wantErr: true},
		{name: "no tags", out: "  - x\n", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseScenarioList([]byte(tc.out))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestParseTable: the table is found by its header, a revision cell may
// name several revisions, an n/a row says yes or no to capture and a pass or
// fail row says nothing, and every malformed row is an error naming its line
// rather than a row silently dropped.
func TestParseTable(t *testing.T) {
	const head = "# t\n\ntext | with a pipe |\n\n| scenario | revision | expected | capture | reason |\n|---|---|---|---|---|\n"
	for _, tc := range []struct {
		name    string
		doc     string
		want    map[key]expectation
		wantErr string
	}{
		{
			name: "rows",
			doc: head +
				"| `initialize` | 2025-06-18, 2025-11-25 | pass | | |\n" +
				"| `tools_call` | 2026-07-28 | n/a | yes | calls a tool |\n" +
				"| `auth/x` | 2026-07-28 | n/a | no | OAuth |\n" +
				"| x | extension | fail | | broken |\n\nafter the table\n| not | a | row | of | it |\n",
			want: map[key]expectation{
				{"initialize", "2025-06-18"}: {verdictPass, false, "", 7},
				{"initialize", "2025-11-25"}: {verdictPass, false, "", 7},
				{"tools_call", "2026-07-28"}: {verdictNA, true, "calls a tool", 8},
				{"auth/x", "2026-07-28"}:     {verdictNA, false, "OAuth", 9},
				{"x", "extension"}:           {verdictFail, false, "broken", 10},
			},
		},
		{name: "no table", doc: "| a | b |\n", wantErr: "no table"},
		{name: "two tables", doc: head + "| x | r | pass | | |\n\n" + head, wantErr: "second conformance table"},
		{name: "empty", doc: head, wantErr: "no rows"},
		{name: "bad verdict", doc: head + "| x | r | passes | | |\n", wantErr: "line 7"},
		{name: "fail without reason", doc: head + "| x | r | fail | | |\n", wantErr: "needs a reason"},
		{name: "n/a without reason", doc: head + "| x | r | n/a | no |  |\n", wantErr: "needs a reason"},
		{name: "n/a without capture", doc: head + "| x | r | n/a | | calls a tool |\n", wantErr: `line 7: an n/a row's capture cell is ""`},
		{name: "n/a capture not yes or no", doc: head + "| x | r | n/a | pin | calls a tool |\n", wantErr: `capture cell is "pin", want yes or no`},
		{name: "pass with capture", doc: head + "| x | r | pass | yes | |\n", wantErr: "capture cell must be empty"},
		{name: "fail with capture", doc: head + "| x | r | fail | no | broken |\n", wantErr: "capture cell must be empty"},
		{name: "old header", doc: "| scenario | revision | expected | reason |\n|---|---|---|---|\n| x | r | pass | |\n", wantErr: "no table"},
		{name: "cells", doc: head + "| x | r | pass | |\n", wantErr: "4 cells, want 5"},
		{name: "duplicate", doc: head + "| x | r1, r2 | pass | | |\n| `x` | r2 | pass | | |\n", wantErr: "already on line 7"},
		{name: "empty revision", doc: head + "| x | r1, | pass | | |\n", wantErr: "empty scenario or revision"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseTable(tc.doc)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %d keys, want %d: %v", len(got), len(tc.want), got)
			}
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("%s: got %+v, want %+v", k, got[k], w)
				}
			}
		})
	}
}

// TestCompareRows: a scenario the table lacks and a row the suite lacks
// are both reported; a table that matches has nothing to say.
func TestCompareRows(t *testing.T) {
	listed := []key{{"a", "r1"}, {"a", "r2"}, {"b", "extension"}}
	table := map[key]expectation{
		{"a", "r1"}:        {verdict: verdictPass, line: 3},
		{"b", "extension"}: {verdict: verdictNA, reason: "x", line: 4},
		{"gone", "r1"}:     {verdict: verdictFail, reason: "y", line: 5},
	}
	got := compareRows(listed, table)
	if len(got) != 2 || !strings.Contains(got[0], "a@r2: a scenario of the suite that the table lacks") ||
		!strings.Contains(got[1], "gone@r1 (line 5): not a client scenario") {
		t.Errorf("got %q", got)
	}
	delete(table, key{"gone", "r1"})
	table[key{"a", "r2"}] = expectation{verdict: verdictPass}
	if got := compareRows(listed, table); len(got) != 0 {
		t.Errorf("a matching table: got %q", got)
	}
}

// TestClip: foreign text is escaped line by line, newlines kept, and cut
// on a rune boundary with the count of what was cut.
func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"plain\ntwo lines", 100, "plain\ntwo lines"},
		{"esc\x1b[31m \"q\" \r\x00", 100, `esc\x1b[31m "q" \r\x00`},
		{"bad \xff utf-8", 100, `bad \xff utf-8`},
		{"abcdef", 3, "abc… (3 more bytes)"},
		{"a世界", 3, "a… (6 more bytes)"},
	} {
		if got := clip(tc.in, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

package report

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// Launch is how a server is started, as a lock's server block records it:
// an argv (Command and Args) for a stdio server, a URL for an HTTP one.
// Values are redacted for display (see NewLaunchChange).
type Launch struct {
	Command string
	Args    []string
	URL     string
}

// argv returns the launch's argv, or nil for a URL launch.
func (l Launch) argv() []string {
	if l.Command == "" && len(l.Args) == 0 {
		return nil
	}
	return append([]string{l.Command}, l.Args...)
}

// LaunchChange is the pinned and the current launch behind a
// server-identity drift item. The item itself keeps the reference's message
// ("a different launch") and no detail; reports show the change beside it,
// argv by argv.
type LaunchChange struct {
	Pinned, Current Launch
}

// LaunchRow is one line of a launch comparison: an argv position (or the
// URL), the pinned and the current value ("" where one side has none), and
// whether they differ.
type LaunchRow struct {
	Field                 string
	Pinned, Current       string
	HasPinned, HasCurrent bool
	Changed               bool
}

// NewLaunchChange returns the launch change to show beside items, or nil
// when items hold no server-identity drift or a lock is missing. pinned is
// the baseline lock, current the fresh capture's (or the second lock of a
// diff). Every value is redacted with findings.RedactSecrets, and a URL's
// user information and query values are hidden: the current launch comes
// from the command line and may carry a credential the lock never stored.
func NewLaunchChange(items []drift.Item, pinned, current *lock.Lock) *LaunchChange {
	if pinned == nil || current == nil {
		return nil
	}
	for _, it := range items {
		if it.Class == drift.ClassServerIdentity {
			return &LaunchChange{Pinned: launchOf(pinned.Server), Current: launchOf(current.Server)}
		}
	}
	return nil
}

// launchOf is a server block's launch, redacted.
func launchOf(s lock.Server) Launch {
	l := Launch{Command: findings.RedactSecrets(s.Command)}
	for _, a := range s.Args {
		l.Args = append(l.Args, findings.RedactSecrets(a))
	}
	if s.URL != nil {
		l.URL = redactURL(*s.URL)
	}
	return l
}

// redactURL hides what in a URL can be a credential: user information and
// query values (names are kept), then redacts what still looks secret.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return findings.RedactSecrets(raw)
	}
	if u.User != nil {
		u.User = url.User("<redacted>")
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if name, _, ok := strings.Cut(p, "="); ok {
				parts[i] = name + "=<redacted>"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return findings.RedactSecrets(u.String())
}

// Rows compares the two launches position by position: argv[0], argv[1], …
// as far as the longer argv goes, and the URL when either side has one.
func (c *LaunchChange) Rows() []LaunchRow {
	if c == nil {
		return nil
	}
	var rows []LaunchRow
	p, q := c.Pinned.argv(), c.Current.argv()
	for i := 0; i < max(len(p), len(q)); i++ {
		r := LaunchRow{Field: "argv[" + strconv.Itoa(i) + "]"}
		if i < len(p) {
			r.Pinned, r.HasPinned = p[i], true
		}
		if i < len(q) {
			r.Current, r.HasCurrent = q[i], true
		}
		r.Changed = r.HasPinned != r.HasCurrent || r.Pinned != r.Current
		rows = append(rows, r)
	}
	if c.Pinned.URL != "" || c.Current.URL != "" {
		rows = append(rows, LaunchRow{Field: "url", Pinned: c.Pinned.URL, Current: c.Current.URL,
			HasPinned: c.Pinned.URL != "", HasCurrent: c.Current.URL != "", Changed: c.Pinned.URL != c.Current.URL})
	}
	return rows
}

// launchCell is a row value for text and Markdown: the value, or "(none)".
func launchCell(v string, has bool) string {
	if !has {
		return "(none)"
	}
	return v
}

// WriteLaunchText writes the launch change as a table under a check's or a
// diff's drift table: one row per argv position, changed rows marked with
// "*". Nothing is written for a nil change.
func WriteLaunchText(w io.Writer, c *LaunchChange) error {
	rows := c.Rows()
	if len(rows) == 0 {
		return nil
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("launch (server-identity): pinned vs current, * where they differ\n")
	table := make([][]string, 0, len(rows))
	for _, r := range rows {
		mark := " "
		if r.Changed {
			mark = "*"
		}
		table = append(table, []string{mark + " " + r.Field, launchCell(r.Pinned, r.HasPinned), launchCell(r.Current, r.HasCurrent)})
	}
	writeTable(bw, []string{"  ARG", "PINNED", "CURRENT"}, table)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write launch change: %w", err)
	}
	return nil
}

// launchValue is a launch as JSON, shaped like a lock's server block:
// {"command": …, "args": […], "url": … or null}.
func launchValue(l Launch) *jsonv.Value {
	args := make([]*jsonv.Value, 0, len(l.Args))
	for _, a := range l.Args {
		args = append(args, jsonv.NewString(a))
	}
	u := jsonv.NewNull()
	if l.URL != "" {
		u = jsonv.NewString(l.URL)
	}
	return jsonv.NewObject(
		jsonv.M("command", jsonv.NewString(l.Command)),
		jsonv.M("args", jsonv.NewArray(args...)),
		jsonv.M("url", u),
	)
}

// launchJSON is the "launch" member of a server-identity record:
// {"pinned": {…}, "current": {…}}.
func launchJSON(c *LaunchChange) *jsonv.Value {
	return jsonv.NewObject(
		jsonv.M("pinned", launchValue(c.Pinned)),
		jsonv.M("current", launchValue(c.Current)),
	)
}

// launchProperty is the launch change as a SARIF property value.
func launchProperty(c *LaunchChange) map[string]any {
	side := func(l Launch) map[string]any {
		m := map[string]any{"command": l.Command, "args": append([]string{}, l.Args...), "url": nil}
		if l.URL != "" {
			m["url"] = l.URL
		}
		return m
	}
	return map[string]any{"pinned": side(c.Pinned), "current": side(c.Current)}
}

// launchText is the launch change on one line, for the SARIF result
// property a person reads in the raw file: `pinned: node a.js → current:
// node b.js`.
func launchText(c *LaunchChange) string {
	side := func(l Launch) string {
		if a := l.argv(); a != nil {
			return strings.Join(a, " ")
		}
		return l.URL
	}
	return "pinned: " + side(c.Pinned) + " → current: " + side(c.Current)
}

// writeLaunchSummary writes the launch change as a Markdown table for the
// job summary, right under the drift table.
func writeLaunchSummary(b *strings.Builder, c *LaunchChange) {
	rows := c.Rows()
	if len(rows) == 0 {
		return
	}
	b.WriteString("#### Launch (server-identity)\n\nThe server is started differently than when it was pinned; changed arguments are marked ✱.\n\n" +
		"| | Argument | Pinned | Current |\n|---|---|---|---|\n")
	shown := 0
	for _, r := range rows {
		if shown >= DefaultSummaryRows || b.Len() > maxSummaryBytes {
			break
		}
		mark := ""
		if r.Changed {
			mark = "✱"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mark, cell(r.Field), cell(launchCell(r.Pinned, r.HasPinned)), cell(launchCell(r.Current, r.HasCurrent)))
		shown++
	}
	if shown < len(rows) {
		fmt.Fprintf(b, "\n_Showing %d of %d arguments; the SARIF file and `warden check --json` have the whole launch._\n", shown, len(rows))
	}
	b.WriteString("\n")
}

// JSONLWithLaunch is JSONL with the launch change beside the
// server-identity record: that record gets one more member, "launch":
// {"pinned": {"command", "args", "url"}, "current": {…}}, after the
// reference's members, which are unchanged. A nil change gives JSONL's
// output.
func JSONLWithLaunch(findings []lock.Finding, items []drift.Item, c *LaunchChange) string {
	recs := records(findings, items)
	var b strings.Builder
	for i, rec := range recs {
		if c != nil && i >= len(findings) && items[i-len(findings)].Class == drift.ClassServerIdentity {
			rec.Members = append(rec.Members, jsonv.M("launch", launchJSON(c)))
		}
		b.WriteString(pyfmt.Dumps(rec, false))
		b.WriteByte('\n')
	}
	return b.String()
}

// WriteJSONLWithLaunch writes JSONLWithLaunch's text to w.
func WriteJSONLWithLaunch(w io.Writer, findings []lock.Finding, items []drift.Item, c *LaunchChange) error {
	if _, err := io.WriteString(w, JSONLWithLaunch(findings, items, c)); err != nil {
		return fmt.Errorf("write JSON lines: %w", err)
	}
	return nil
}

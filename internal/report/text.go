package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/lock"
)

// TerminalSafe makes a server-controlled string safe to print on a terminal
// or in a CI log: control characters (C0, DEL, C1, including ESC, so no ANSI
// or OSC sequence survives), line and paragraph separators, bidirectional
// overrides and other invisible or non-printable runes are written as Go
// escapes (\n, \x1b, \u202e); invalid UTF-8 bytes as \xNN; and the
// backslash itself as \\, so an escape shown in the output always means the
// string held that character and cannot be spoofed by a literal "\n".
// Printable text, non-ASCII letters included, is left as is.
func TerminalSafe(s string) string {
	// Printable ASCII other than the backslash is the common case, and
	// safe as it stands.
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\' {
		i++
	}
	if i == len(s) {
		return s
	}
	clean := true
	for _, r := range s[i:] {
		if r == '\\' || r == utf8.RuneError || !unicode.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return escapeRunes(s, true)
}

// escapeRunes writes every non-printable rune of s (control characters,
// line and paragraph separators, bidirectional overrides, other invisible
// runes) as its shortest Go escape and every invalid byte as \xNN; with
// backslash set, the backslash itself as \\.
func escapeRunes(s string, backslash bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' && backslash:
			b.WriteString(`\\`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			// QuoteRune yields the shortest Go escape ('\n', '\x1b',
			// '\u202e'); strip its quotes.
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// WriteCheckText writes the human result of a check: "OK no drift vs
// <lock>", or "DRIFT DETECTED vs <lock> (<n> item(s))" followed by a table
// of severity, class, target and message, the most severe first (see
// WriteCheckTextExplained).
func WriteCheckText(w io.Writer, lockPath string, items []drift.Item) error {
	return WriteCheckTextExplained(w, lockPath, items, nil)
}

// WriteCheckTextExplained is WriteCheckText with the explanations of the
// items (parallel to items, or nil): each is written under its item's row,
// indented and marked as server text. Items are shown by severity, then
// class, then target; a long drift (more than GroupThreshold items) is
// first counted by class.
func WriteCheckTextExplained(w io.Writer, lockPath string, items []drift.Item, expls []explain.Explanation) error {
	bw := bufio.NewWriter(w)
	if len(items) == 0 {
		fmt.Fprintf(bw, "OK no drift vs %s\n", TerminalSafe(lockPath))
	} else {
		fmt.Fprintf(bw, "DRIFT DETECTED vs %s (%d item(s))\n", TerminalSafe(lockPath), len(items))
		writeItemsText(bw, worstFirst(items, expls))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write check result: %w", err)
	}
	return nil
}

// WriteDiffText writes the human result of a diff of two locks, from and to
// (shown as given): "no differences (from → to)", or a headline and a table
// of severity, class, target and detail in the order and with the
// explanations of WriteCheckTextExplained.
func WriteDiffText(w io.Writer, from, to string, items []drift.Item, expls []explain.Explanation) error {
	bw := bufio.NewWriter(w)
	header := Message(from) + " → " + Message(to)
	if len(items) == 0 {
		fmt.Fprintf(bw, "no differences (%s)\n", header)
	} else {
		fmt.Fprintf(bw, "%s (%d integrity change(s))\n", header, len(items))
		writeItemsText(bw, worstFirst(items, expls))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write diff result: %w", err)
	}
	return nil
}

// writeItemsText writes entries, in worstFirst order, as a table, each row
// followed by its item's quoted server text; a long drift is first counted
// by class.
func writeItemsText(bw *bufio.Writer, entries []shown) {
	if len(entries) > GroupThreshold {
		groups := groupByClass(entries)
		rows := make([][]string, len(groups))
		for i, g := range groups {
			rows[i] = []string{g.severity, g.class, strconv.Itoa(len(g.entries))}
		}
		fmt.Fprintf(bw, "  by class: %s\n", countSeverities(itemSeverities(entries)))
		writeTable(bw, []string{"SEVERITY", "CLASS", "ITEMS"}, rows)
		bw.WriteString("  items, the most severe first:\n")
	}
	rows := make([][]string, len(entries))
	notes := make([][]string, len(entries))
	for i, e := range entries {
		rows[i] = []string{e.item.Severity, e.item.Class, e.item.Target, driftMessage(e.item)}
		notes[i] = quoteTextLines(quotes(e.expl), textQuote)
	}
	writeTableNotes(bw, []string{"SEVERITY", "CLASS", "TARGET", "MESSAGE"}, rows, notes)
}

// FindingsNote is the line under a table of static findings: they are
// informational, whatever their severity.
const FindingsNote = "  findings are informational: they never change the exit code (review them like code)"

// WritePinText writes the human result of a pin: the lock path, its overall
// digest, the entry counts, the approver when the pin was approved, and the
// static findings as a table followed by FindingsNote (or "no static
// findings").
func WritePinText(w io.Writer, lockPath string, l *lock.Lock, findings []lock.Finding) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "pinned -> %s\n", TerminalSafe(lockPath))
	if l != nil {
		fmt.Fprintf(bw, "  overall_digest: %s\n", TerminalSafe(l.OverallDigest))
		fmt.Fprintf(bw, "  tools=%d resources=%d prompts=%d\n", len(l.Tools), len(l.Resources), len(l.Prompts))
		if l.Pin.Approved && l.Pin.Approver != nil {
			fmt.Fprintf(bw, "  approved by: %s\n", TerminalSafe(*l.Pin.Approver))
		}
		for _, a := range AcceptedFromLock(l, true) {
			fmt.Fprintf(bw, "  note: %s\n", PinAcceptedText(a))
		}
	}
	if len(findings) == 0 {
		bw.WriteString("  no static findings\n")
	} else {
		rows := make([][]string, 0, len(findings))
		cells := make([]string, 0, 4*len(findings))
		for _, f := range findings {
			cells = append(cells, f.Severity, f.RuleID, f.Target, f.Snippet)
			rows = append(rows, cells[len(cells)-4:])
		}
		writeTable(bw, []string{"SEVERITY", "RULE", "TARGET", "SNIPPET"}, rows)
		bw.WriteString(FindingsNote + "\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write pin result: %w", err)
	}
	return nil
}

// maxColumnWidth bounds how far one long cell can push the columns after it;
// longer cells simply overflow their column.
const maxColumnWidth = 48

// writeTable writes an indented, space-aligned table. Every cell goes
// through Message (clipped to MaxMessageBytes, then TerminalSafe), and the
// last column is not padded, so no line ends in spaces.
func writeTable(w *bufio.Writer, header []string, rows [][]string) {
	writeTableNotes(w, header, rows, nil)
}

// writeTableNotes is writeTable with notes, when not nil parallel to rows:
// lines already made safe, written under their row and not counted in the
// column widths.
func writeTableNotes(w *bufio.Writer, header []string, rows [][]string, notes [][]string) {
	safe := make([][]string, 0, len(rows)+1)
	safe = append(safe, header)
	n := 0
	for _, r := range rows {
		n += len(r)
	}
	cells := make([]string, 0, n)
	for _, r := range rows {
		for _, cell := range r {
			cells = append(cells, Message(cell))
		}
		safe = append(safe, cells[len(cells)-len(r):])
	}
	widths := make([]int, len(header))
	for _, r := range safe {
		for i, cell := range r {
			if n := utf8.RuneCountInString(cell); n > widths[i] {
				widths[i] = min(n, maxColumnWidth)
			}
		}
	}
	for k, r := range safe {
		w.WriteString("  ")
		for i, cell := range r {
			w.WriteString(cell)
			if i == len(r)-1 {
				break
			}
			writeSpaces(w, max(widths[i]-utf8.RuneCountInString(cell), 0)+2)
		}
		w.WriteByte('\n')
		if k > 0 && k-1 < len(notes) {
			for _, line := range notes[k-1] {
				w.WriteString(line)
				w.WriteByte('\n')
			}
		}
	}
}

// writeSpaces writes n spaces.
func writeSpaces(w *bufio.Writer, n int) {
	const spaces = "                                                                "
	for n > 0 {
		k := min(n, len(spaces))
		w.WriteString(spaces[:k])
		n -= k
	}
}

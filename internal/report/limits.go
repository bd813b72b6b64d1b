package report

import (
	"fmt"
	"unicode/utf8"
)

// MaxMessageBytes bounds one message that quotes input — an error line of
// the CLI or the Action, an annotation's text, a table cell of the text
// report, the error in a job summary — before it is escaped for its
// medium. Input can be huge (a 10 MB key in a PR-controlled lock, a tool
// name near the 16 MiB message limit) and every such message is otherwise a
// copy of it; real messages, including a capture error with the server's
// 4 KiB stderr tail, fit well inside.
const MaxMessageBytes = 8 << 10

// Clip returns s when it is at most max bytes long. Otherwise it keeps the
// beginning and the end of s, about max bytes in all and cut at rune
// boundaries, joined by a marker that says how many bytes were left out:
// "head…[12345 bytes elided]…tail". Both ends are kept because an error
// names what failed at its start and often quotes the decisive part (the
// last lines of a server's stderr) at its end.
//
// Clip is the one cap applied to every message that quotes input. It does
// not escape anything: callers clip first and then escape for their medium
// (TerminalSafe, EscapeData, EscapeMarkdown), which bounds the escaped text
// by a small multiple of max.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max < 2 {
		max = 2
	}
	head := max / 2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (max - max/2)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + fmt.Sprintf("…[%d bytes elided]…", tail-head) + s[tail:]
}

// Message is a message quoting input as warden prints it on a terminal or
// in a CI log: clipped to MaxMessageBytes, then made TerminalSafe.
func Message(s string) string {
	return TerminalSafe(Clip(s, MaxMessageBytes))
}

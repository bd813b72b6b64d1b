package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/wardenlock/warden/internal/lock"
)

// RepinAdvice is the sentence every drift report gives before its re-pin
// commands, the job summary's and the CLI's alike.
const RepinAdvice = "If the change is expected, review it and re-pin with your approval, then commit the new lock. " +
	"If it is not, do not re-pin: treat the server update as suspect."

// ShellQuote quotes s for a POSIX shell when it needs quoting, so that a
// command built from argv words pastes as it is.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./-_", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// LaunchArgs returns the warden arguments that reach the server a lock's
// server block records, redacted as every report redacts a launch: "--
// CMD ARGS..." for a stdio server, "--url URL" for an HTTP one, each word
// shell-quoted; "" when the block records neither. Headers and --env
// names are not in a lock; NextSteps says to add them.
func LaunchArgs(s lock.Server) string {
	l := launchOf(s)
	if l.URL != "" {
		return "--url " + ShellQuote(l.URL)
	}
	argv := l.argv()
	if len(argv) == 0 {
		return ""
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = ShellQuote(a)
	}
	return "-- " + strings.Join(words, " ")
}

// NextSteps are the commands a drift report ends with: capture the current
// surface into a scratch lock, compare it with the lock, and re-pin the
// lock in place, approving again when the lock was approved.
type NextSteps struct {
	// Lock is the lock the check compared with.
	Lock string
	// Source is the shell-quoted arguments that reach the server:
	// LaunchArgs's form, or "--surface FILE".
	Source string
	// Approved says the lock was approved, so the re-pin approves too
	// (a pin without --approve drops the approval).
	Approved bool
}

// Commands returns the shell commands, in the order to run them.
func (n NextSteps) Commands() []string {
	lockArg := ShellQuote(n.Lock)
	src := n.Source
	if src == "" {
		src = "-- <the server's command>"
	}
	repin := "warden pin --lock " + lockArg
	if n.Approved {
		repin += " --approve --approver <you>"
	}
	return []string{
		"warden pin --lock candidate.lock " + src,
		"warden diff " + lockArg + " candidate.lock",
		repin + " " + src,
	}
}

// WriteNextStepsText writes the next steps after a drift report: the
// advice, the commands (clipped and made terminal-safe, one a line), and,
// for a launched server, that the --header and --env flags the check used
// go on the pin too.
func WriteNextStepsText(w io.Writer, n NextSteps) error {
	var notes []string
	if !strings.HasPrefix(n.Source, "--surface") {
		notes = append(notes, "add the --header and --env flags you checked with; the lock does not record them")
	}
	if n.Approved {
		notes = append(notes, "the lock was approved: a re-pin without --approve drops the approval")
	}
	return WriteStepsText(w, n.Commands(), notes)
}

// WriteStepsText writes "next steps:" with RepinAdvice, then each command
// and each note (in parentheses) on its own indented line, clipped and
// made terminal-safe.
func WriteStepsText(w io.Writer, commands, notes []string) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("next steps: " + RepinAdvice + "\n")
	for _, c := range commands {
		fmt.Fprintf(bw, "  %s\n", Message(c))
	}
	for _, n := range notes {
		fmt.Fprintf(bw, "  (%s)\n", Message(n))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write next steps: %w", err)
	}
	return nil
}

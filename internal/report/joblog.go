package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The Actions runner reads every line a container step prints, on stdout
// and on stderr alike, as a possible workflow command in two syntaxes:
//
//   - "::name k=v,k=v::data", when the line starts with "::" after leading
//     white space is trimmed;
//   - the legacy "##[name k=v;k=v]data", when "##[" appears anywhere in the
//     line and a registered command name follows it.
//
// The runner splits lines at "\n", "\r" and "\r\n". Inert and JobLog make
// sure that no text warden prints starts a command in either syntax.

// legacyPrefix starts a command in the runner's legacy syntax wherever it
// appears in a line; inertLegacyPrefix is how Inert writes it. The second
// '#' is written as the Go escape \x23, in the escape language TerminalSafe
// uses (which writes a literal backslash as \\), so the text stays readable
// and unambiguous.
const (
	legacyPrefix      = "##["
	inertLegacyPrefix = `#\x23[`
	// inertColon replaces the first ':' of a "::" that starts a line.
	inertColon = `\x3a`
)

// Inert returns s with every workflow-command trigger of the Actions
// runner neutralised, for both syntaxes: each "##[" becomes `#\x23[`, and a
// "::" at the start of a line (after any white space, control or other
// invisible characters, which the runner's trimming and culture-aware
// matching may skip) becomes `\x3a:`. Lines are split where the runner
// splits them, at '\n' and '\r'. Everything else is left as is, so Inert
// applied to TerminalSafe text shows every character of the original; Inert
// is idempotent.
func Inert(s string) string {
	if !strings.Contains(s, legacyPrefix) && !strings.Contains(s, "::") {
		return s
	}
	s = strings.ReplaceAll(s, legacyPrefix, inertLegacyPrefix)
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			b.WriteString(inertLineStart(s))
			return b.String()
		}
		b.WriteString(inertLineStart(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
}

// inertLineStart neutralises a "::" that starts line (one line, without its
// terminator) once leading invisible characters are skipped.
func inertLineStart(line string) string {
	i := 0
	for i < len(line) {
		r, size := utf8.DecodeRuneInString(line[i:])
		if unicode.IsGraphic(r) && !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	if !strings.HasPrefix(line[i:], "::") {
		return line
	}
	return line[:i] + inertColon + line[i+1:]
}

// MaxLogLineBytes bounds one line of text a JobLog passes to the job log;
// the rest of a longer line is left out and counted. Messages are already
// clipped to MaxMessageBytes before they are escaped, so this is only a
// backstop that also bounds the JobLog's buffer.
const MaxLogLineBytes = 64 << 10

// JobLog is the single path from warden's GitHub Action to the job log:
// every byte the Action prints on stdout or stderr goes through it.
//
// Text (the human report, error lines, diagnostics) is written to the
// writers Stdout and Stderr return: each line is passed through Inert, so
// nothing in it is read as a workflow command whatever it quotes, and is
// clipped to MaxLogLineBytes. Workflow commands are written only with
// Command (and Mask, StopCommands), which escape the command's properties
// and data and neutralise the legacy syntax in them too.
//
// Text is buffered only up to the end of the current line; Flush writes a
// last unterminated line. A JobLog is not safe for concurrent use.
type JobLog struct {
	out, err *inertLines
}

// NewJobLog returns a JobLog that writes to the step's stdout and stderr.
func NewJobLog(stdout, stderr io.Writer) *JobLog {
	return &JobLog{out: &inertLines{w: stdout}, err: &inertLines{w: stderr}}
}

// Stdout returns the writer for text on stdout.
func (l *JobLog) Stdout() io.Writer { return l.out }

// Stderr returns the writer for text on stderr.
func (l *JobLog) Stderr() io.Writer { return l.err }

// Command writes the workflow command "::name props::message" on stdout, on
// a line of its own. Property values and the message are escaped as
// Command (the function) does, and the legacy "##[" is neutralised in them
// as in text, so the runner reads exactly this one command from the line.
// name is one of warden's own constants (or a stop-commands token).
func (l *JobLog) Command(name string, props []Property, message string) error {
	line := Command(name, props, message)
	return l.out.writeLine("::" + Inert(line[len("::"):]))
}

// Mask registers value as a secret with "::add-mask::". The value is the
// workflow's own (a literal header value), and the line is read as an
// add-mask command, so it is written escaped but not otherwise rewritten:
// rewriting it would mask a different string than the one to hide.
func (l *JobLog) Mask(value string) error {
	return l.out.writeLine(Command("add-mask", nil, value))
}

// StopCommands makes the runner ignore workflow commands in both syntaxes
// until the returned resume function writes the token back. token must be
// unpredictable (it is the only thing that resumes processing) and made of
// letters and digits.
func (l *JobLog) StopCommands(token string) (resume func() error, err error) {
	if err := l.Command("stop-commands", nil, token); err != nil {
		return nil, err
	}
	return func() error { return l.Command(token, nil, "") }, nil
}

// Flush writes any unterminated last line of text, ending it with a
// newline.
func (l *JobLog) Flush() error {
	if err := l.out.endLine(); err != nil {
		return err
	}
	return l.err.endLine()
}

// inertLines is a line-buffered writer that passes each line through Inert.
type inertLines struct {
	w       io.Writer
	line    []byte // the current line, at most MaxLogLineBytes
	dropped int    // bytes of the current line beyond MaxLogLineBytes
}

// Write buffers p and writes every completed line.
func (f *inertLines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		room := MaxLogLineBytes - len(f.line)
		if len(chunk) > room {
			f.dropped += len(chunk) - room
			chunk = chunk[:room]
		}
		f.line = append(f.line, chunk...)
		if i < 0 {
			break
		}
		p = p[i+1:]
		if err := f.emit(); err != nil {
			return n - len(p), err
		}
	}
	return n, nil
}

// emit writes the buffered line, made inert, with a newline.
func (f *inertLines) emit() error {
	line := string(f.line)
	if f.dropped > 0 {
		// Cut at a rune boundary so the marker does not follow half a
		// character.
		last := len(line) - 1
		for last > 0 && last > len(line)-utf8.UTFMax && !utf8.RuneStart(line[last]) {
			last--
		}
		if last >= 0 && !utf8.FullRuneInString(line[last:]) {
			f.dropped += len(line) - last
			line = line[:last]
		}
		line += fmt.Sprintf("…[%d more bytes of this line not shown]", f.dropped)
	}
	f.line, f.dropped = f.line[:0], 0
	if _, err := io.WriteString(f.w, Inert(line)+"\n"); err != nil {
		return fmt.Errorf("write to the job log: %w", err)
	}
	return nil
}

// endLine terminates a pending unterminated line, if any.
func (f *inertLines) endLine() error {
	if len(f.line) == 0 && f.dropped == 0 {
		return nil
	}
	return f.emit()
}

// writeLine writes one line of warden's own (a workflow command) after
// ending any pending text line, so the command starts a line of its own.
func (f *inertLines) writeLine(line string) error {
	if err := f.endLine(); err != nil {
		return err
	}
	if _, err := io.WriteString(f.w, line+"\n"); err != nil {
		return fmt.Errorf("write to the job log: %w", err)
	}
	return nil
}

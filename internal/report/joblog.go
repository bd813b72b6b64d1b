package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The Actions runner reads every line a step prints, on stdout and on
// stderr alike, as a possible workflow command in two syntaxes:
//
//   - "::name k=v,k=v::data", when the line starts with "::" after leading
//     white space is trimmed;
//   - the legacy "##[name k=v;k=v]data", when "##[" appears anywhere in the
//     line and a registered command name (in any case) follows it.
//
// The runner splits lines at "\n", "\r" and "\r\n" (StreamReader.ReadLine).
// Inert, InertWriter and JobLog make sure that no text warden prints starts
// a command in either syntax, stop-commands and its resume token included.

// legacyPrefix starts a command in the runner's legacy syntax wherever it
// appears in a line. Inert writes its second '#' as an escape: `\x23` in
// the escape language TerminalSafe uses (which writes a literal backslash
// as \\), so text stays readable and unambiguous, or `\u0023` in a line
// that is a JSON text, where it decodes back to '#'.
const (
	legacyPrefix          = "##["
	inertLegacyPrefix     = `#\x23[`
	inertLegacyPrefixJSON = `#\u0023[`
	// inertColon and inertColonJSON replace the first ':' of a "::" that
	// starts a line.
	inertColon     = `\x3a`
	inertColonJSON = `\u003a`
)

// Inert returns s with every workflow-command trigger of the Actions
// runner neutralised, for both syntaxes: each "##[" becomes `#\x23[`, and a
// "::" at the start of a line (after any white space, control or other
// invisible characters, which the runner's trimming and culture-aware
// matching may skip) becomes `\x3a:`. Lines are split where the runner
// splits them, at '\n' and '\r', and also, in case a runner ever honours
// them, at U+0085, U+2028 and U+2029. A line that is a JSON text (a --json
// record) gets the JSON escapes `#\u0023[` and `\u003a:` instead, so it
// stays valid JSON that decodes to the same value. Everything else is left
// as is, so Inert applied to TerminalSafe text shows every character of the
// original; Inert is idempotent.
func Inert(s string) string {
	if !strings.Contains(s, legacyPrefix) && !strings.Contains(s, "::") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			b.WriteString(inertLine(s))
			return b.String()
		}
		b.WriteString(inertLine(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
}

// inertLine neutralises one line as the runner reads it (without its
// terminator).
func inertLine(line string) string {
	if !strings.Contains(line, legacyPrefix) && !strings.Contains(line, "::") {
		return line
	}
	legacy, colon := inertLegacyPrefix, inertColon
	// Only a JSON string can hold "##[" or a separator in a JSON text, so
	// a JSON escape there is always inside a string.
	if json.Valid([]byte(line)) {
		legacy, colon = inertLegacyPrefixJSON, inertColonJSON
	}
	line = strings.ReplaceAll(line, legacyPrefix, legacy)
	var b strings.Builder
	for {
		i, size := indexSeparator(line)
		if i < 0 {
			b.WriteString(inertLineStart(line, colon))
			return b.String()
		}
		b.WriteString(inertLineStart(line[:i], colon))
		b.WriteString(line[i : i+size])
		line = line[i+size:]
	}
}

// separators are the Unicode line separators the runner does not split at
// today; Inert treats them as line ends all the same.
const separators = "\u0085\u2028\u2029"

// indexSeparator returns the index and size of the first of separators in
// s, or -1.
func indexSeparator(s string) (int, int) {
	i := strings.IndexAny(s, separators)
	if i < 0 {
		return -1, 0
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	return i, size
}

// inertLineStart neutralises a "::" that starts line (one line, without its
// terminator) once leading invisible characters are skipped, writing its
// first ':' as colon.
func inertLineStart(line, colon string) string {
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
	return line[:i] + colon + line[i+1:]
}

// MaxLogLineBytes bounds one line of text a JobLog passes to the job log;
// the rest of a longer line is left out and counted. Messages are already
// clipped to MaxMessageBytes before they are escaped, so this is only a
// backstop that also bounds the JobLog's buffer.
const MaxLogLineBytes = 64 << 10

// InertWriter is a writer for text bound for a job log: it buffers each
// line up to its end and writes it passed through Inert, so nothing in it
// is read as a workflow command whatever it quotes, and whichever writes
// the line was split across. It is the one mechanism behind JobLog's text
// and the CLI's output under GitHub Actions. Completed lines are written by
// the Write that completes them, gathered into writes of about 64 KiB;
// Flush writes an unterminated last line. An
// InertWriter is safe for concurrent use.
type InertWriter struct {
	mu      sync.Mutex
	w       io.Writer
	max     int    // the longest line kept, in bytes; 0 keeps every byte
	line    []byte // the current line, without its '\n'
	dropped int    // bytes of the current line beyond max
	out     []byte // completed lines not yet written to w
}

// outChunk is how much completed output an InertWriter gathers before it
// writes it out.
const outChunk = 64 << 10

// NewInertWriter returns an InertWriter that writes to w. Lines are kept
// whole, so the text is unchanged but for the neutralised triggers.
func NewInertWriter(w io.Writer) *InertWriter {
	return &InertWriter{w: w}
}

// Write buffers p and writes every line it completes.
func (f *InertWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		chunk := rest
		if i >= 0 {
			chunk = rest[:i]
		}
		f.keep(chunk)
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		f.complete("\n")
		// A large write goes out in pieces, not as a second copy of itself.
		if len(f.out) >= outChunk {
			if err := f.writeOut(); err != nil {
				return 0, err
			}
		}
	}
	if err := f.writeOut(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a pending unterminated line, as it is (made inert, without
// adding a newline).
func (f *InertWriter) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.line) > 0 || f.dropped > 0 {
		f.complete("")
	}
	return f.writeOut()
}

// keep appends chunk to the current line, up to max.
func (f *InertWriter) keep(chunk []byte) {
	if f.max > 0 {
		room := max(f.max-len(f.line), 0)
		if len(chunk) > room {
			f.dropped += len(chunk) - room
			chunk = chunk[:room]
		}
	}
	f.line = append(f.line, chunk...)
}

// complete moves the current line, made inert and followed by end, to the
// output.
func (f *InertWriter) complete(end string) {
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
	f.out = append(f.out, Inert(line)...)
	f.out = append(f.out, end...)
}

// writeOut writes the completed lines to w.
func (f *InertWriter) writeOut() error {
	if len(f.out) == 0 {
		return nil
	}
	_, err := f.w.Write(f.out)
	// A large output is not kept around once written.
	if cap(f.out) > 2*outChunk {
		f.out = nil
	} else {
		f.out = f.out[:0]
	}
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// endLine terminates a pending unterminated line, if any, with a newline.
func (f *InertWriter) endLine() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.line) > 0 || f.dropped > 0 {
		f.complete("\n")
	}
	return f.writeOut()
}

// writeLine writes one line of warden's own (a workflow command) after
// ending any pending text line, so the command starts a line of its own.
func (f *InertWriter) writeLine(line string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.line) > 0 || f.dropped > 0 {
		f.complete("\n")
	}
	f.out = append(f.out, line...)
	f.out = append(f.out, '\n')
	return f.writeOut()
}

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
	out, err *InertWriter
}

// NewJobLog returns a JobLog that writes to the step's stdout and stderr.
func NewJobLog(stdout, stderr io.Writer) *JobLog {
	return &JobLog{
		out: &InertWriter{w: stdout, max: MaxLogLineBytes},
		err: &InertWriter{w: stderr, max: MaxLogLineBytes},
	}
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
	// The escaped line holds no CR or LF, so it is one line to the runner;
	// only the legacy prefix can act inside it. (Inert would also take a
	// U+2028 in a value for a line end and break the command.)
	line := Command(name, props, message)
	return l.out.writeLine("::" + strings.ReplaceAll(line[len("::"):], legacyPrefix, inertLegacyPrefix))
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

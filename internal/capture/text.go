package capture

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// stderrTailBytes is how much of a stdio server's stderr is kept for error
// messages: enough for a stack trace's last frames or a "fatal:" line.
const stderrTailBytes = 4096

// tailRing keeps the last stderrTailBytes bytes written to it. The server's
// stderr is drained into it continuously so that a chatty server never
// blocks on a full pipe, while memory stays constant.
type tailRing struct {
	mu   sync.Mutex
	buf  [stderrTailBytes]byte
	next int  // where the next byte goes
	full bool // the buffer has wrapped at least once
}

func (r *tailRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	if n >= len(r.buf) {
		copy(r.buf[:], p[n-len(r.buf):])
		r.next, r.full = 0, true
		return n, nil
	}
	k := copy(r.buf[r.next:], p)
	if k < n {
		copy(r.buf[:], p[k:])
		r.full = true
	}
	r.next = (r.next + n) % len(r.buf)
	if r.next == 0 && n > 0 {
		r.full = true
	}
	return n, nil
}

// tail returns the kept bytes, oldest first. When the buffer has wrapped,
// the first line is usually cut, and a cut UTF-8 sequence at the start is
// dropped so that it does not show up as an escape.
func (r *tailRing) tail() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return string(r.buf[:r.next])
	}
	s := string(r.buf[r.next:]) + string(r.buf[:r.next])
	for i := 0; i < utf8.UTFMax && i < len(s); i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}

// oneLine makes untrusted or multi-line text safe to embed in a one-line
// error message: control characters, line and paragraph separators, bidi and
// other format characters and invalid UTF-8 are written as Go escapes, and the
// text is cut to at most max runes (the middle is elided, since both the
// start and the end of a message tend to matter).
func oneLine(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i]), 16))
		case r == ' ' || (unicode.IsPrint(r) && r != '\\'):
			b.WriteRune(r)
		case r == '\\':
			b.WriteString(`\\`)
		default:
			q := strconv.QuoteRune(r) // 'x' with the escape inside
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return elide(b.String(), max)
}

// elide cuts s to at most max runes by replacing its middle with "…".
func elide(s string, max int) string {
	if utf8.RuneCountInString(s) <= max || max < 3 {
		return s
	}
	runes := []rune(s)
	head := (max - 1) / 2
	tail := max - 1 - head
	return string(runes[:head]) + "…" + string(runes[len(runes)-tail:])
}

// quoteName quotes a server-provided name (a tool name, a URI) for an error
// message, escaped and cut to a length that keeps the message readable.
func quoteName(s string) string {
	return `"` + oneLine(s, 80) + `"`
}

// startBytes is how much of a non-JSON line an error quotes.
const startBytes = 64

// quoteStart quotes the first startBytes bytes of what a server printed
// (cut at a character boundary, escaped by oneLine), with "…" when there
// was more, so that an error shows what the server wrote instead of JSON.
func quoteStart(b []byte) string {
	n := min(len(b), startBytes)
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	more := ""
	if n < len(b) {
		more = "…"
	}
	return `"` + oneLine(string(b[:n]), startBytes*4) + more + `"`
}

// notJSON adds to the parse error of a stdout line that is not JSON the
// line's first bytes and the usual cause, a server that logs to stdout. A
// budget error is returned as it is: the line was not looked at.
func notJSON(line []byte, err error) error {
	var le *limitError
	if errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("%w; it began %s (an MCP stdio server must print only JSON-RPC messages on stdout and log to stderr)", err, quoteStart(line))
}

// downloadHint says, for a launch through a package runner that downloads
// the server on first use (npx, npm exec, pnpm dlx, yarn dlx, bunx, uvx,
// pipx run), that a timeout may only mean the download took longer than
// the capture allowed, and flag, the option that allows more. Empty for any
// other launch.
func downloadHint(argv []string, flag string) string {
	if len(argv) == 0 {
		return ""
	}
	base := argv[0]
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	base = strings.TrimSuffix(strings.ToLower(base), ".cmd")
	sub := ""
	if len(argv) > 1 {
		sub = argv[1]
	}
	var runner string
	switch {
	case base == "npx" || base == "bunx" || base == "uvx":
		runner = base
	case (base == "npm" && sub == "exec") || (base == "pnpm" && sub == "dlx") || (base == "yarn" && sub == "dlx") || (base == "pipx" && sub == "run"):
		runner = base + " " + sub
	default:
		return ""
	}
	return runner + " may still have been downloading the server (a first run fetches the package); allow more time with " + flag
}

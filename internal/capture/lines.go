package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/wardenlock/warden/internal/jsonv"
)

// readChunk is how much lineReader asks the underlying reader for at once.
const readChunk = 64 << 10

// limitError reports that a server sent more than a configured bound. It is
// its own type so that tests (and callers) can tell a bound from a framing
// error without matching text.
type limitError struct {
	what  string
	limit int64
}

func (e *limitError) Error() string {
	return fmt.Sprintf("%s exceeds the limit of %d bytes", e.what, e.limit)
}

// lineReader splits a byte stream into lines while never holding more than
// max bytes of one line in memory. bufio.Scanner and bufio.Reader.ReadBytes
// either grow without bound or cannot tell "too long" apart from a stream
// error cleanly, and a hostile server can send a 100 MB line: the bound has to
// be enforced while reading, not after.
type lineReader struct {
	r   io.Reader
	buf []byte
	// pos and end delimit the unread part of buf.
	pos, end int
	// acc accumulates a line that spans more than one read.
	acc []byte
	max int
	// anyEOL makes CR, LF and CRLF all end a line, as the SSE grammar
	// requires; otherwise only LF does (JSON-RPC over stdio).
	anyEOL bool
	// skipLF drops an LF that directly follows a CR which ended a line.
	skipLF bool
	// what names the unit being bounded in a limitError.
	what string
	err  error
}

// newLineReader returns a reader of lines of at most max bytes (terminator
// excluded).
func newLineReader(r io.Reader, max int, anyEOL bool, what string) *lineReader {
	return &lineReader{r: r, buf: make([]byte, readChunk), max: max, anyEOL: anyEOL, what: what}
}

// truncatedError reports a stream that ended inside a line: bytes after the
// last line feed. In LF framing (JSON-RPC over stdio) that is a message cut
// off, which must not read as a server that simply exited.
type truncatedError struct{ n int }

func (e *truncatedError) Error() string {
	return fmt.Sprintf("the stream ended inside a message (%d bytes after the last newline)", e.n)
}

// next returns the next line without its terminator. The slice is only valid
// until the following call. At the end of the stream an unterminated final
// line is dropped (a message cut off by EOF is not a message) and the read
// error is returned: normally io.EOF, but in LF framing a *truncatedError
// when the dropped line held more than whitespace. Errors are sticky.
func (l *lineReader) next() ([]byte, error) {
	l.acc = l.acc[:0]
	for {
		if l.pos < l.end {
			if l.skipLF {
				l.skipLF = false
				if l.buf[l.pos] == '\n' {
					l.pos++
					continue
				}
			}
			chunk := l.buf[l.pos:l.end]
			i := l.indexEOL(chunk)
			if i >= 0 {
				if len(l.acc)+i > l.max {
					return nil, l.tooLong()
				}
				if l.anyEOL && chunk[i] == '\r' {
					l.skipLF = true
				}
				l.pos += i + 1
				if len(l.acc) == 0 {
					return chunk[:i], nil
				}
				l.acc = append(l.acc, chunk[:i]...)
				return l.acc, nil
			}
			if len(l.acc)+len(chunk) > l.max {
				return nil, l.tooLong()
			}
			l.acc = l.grow(chunk)
			l.pos = l.end
		}
		if l.err != nil {
			if !l.anyEOL && l.err == io.EOF && !isBlank(l.acc) {
				l.err = &truncatedError{n: len(l.acc)}
				l.acc = nil
			}
			return nil, l.err
		}
		n, err := l.r.Read(l.buf)
		l.pos, l.end = 0, n
		if err != nil {
			l.err = err
		} else if n == 0 {
			// A reader that keeps returning (0, nil) would spin forever.
			l.err = io.ErrNoProgress
		}
	}
}

func (l *lineReader) tooLong() error {
	l.err = &limitError{what: l.what, limit: int64(l.max)}
	l.pos, l.end = 0, 0
	l.acc = nil
	return l.err
}

func (l *lineReader) indexEOL(b []byte) int {
	if !l.anyEOL {
		return bytes.IndexByte(b, '\n')
	}
	return bytes.IndexAny(b, "\r\n")
}

// grow appends chunk to acc, growing the capacity geometrically but never
// past max, so that a line at the bound costs about max bytes, not 2*max.
func (l *lineReader) grow(chunk []byte) []byte {
	need := len(l.acc) + len(chunk)
	if need <= cap(l.acc) {
		return append(l.acc, chunk...)
	}
	c := max(2*cap(l.acc), need, 4096)
	c = min(c, l.max)
	n := make([]byte, len(l.acc), c)
	copy(n, l.acc)
	return append(n, chunk...)
}

// budget bounds what one capture may cost, across every process, message,
// page and HTTP response: the bytes read from the server, plus a fixed charge
// for every JSON value parsed (valueCost) and every list item kept
// (itemCost). The charges make the budget a bound on memory too: a dense
// message of tiny values, or a page of a million minimal tools, costs far
// more memory than its bytes, and exhausts the budget accordingly.
type budget struct {
	limit int64
	used  atomic.Int64
}

// Charges beyond the bytes themselves: about what a parsed JSON value costs
// in memory, and a share of what one item costs once it is kept and built
// into the lock.
const (
	valueCost = 64
	itemCost  = 1024
	// budgetWhat names the budget in errors about charges.
	budgetWhat = "what the server sent (bytes read, plus 64 per JSON value and 1024 per list item)"
)

// charge adds n to the budget's use; what says what was charged, for the
// error.
func (b *budget) charge(n int64) error {
	if b.used.Add(n) > b.limit {
		return &limitError{what: budgetWhat, limit: b.limit}
	}
	return nil
}

// parse parses one message, refusing it before it is built when its values
// would overrun the budget, and charges them. invalid prefixes a parse
// error ("server sent a reply that is not valid JSON").
func (b *budget) parse(data []byte, invalid string) (*jsonv.Value, error) {
	room := (b.limit - b.used.Load()) / valueCost
	if room < 1 {
		room = 1
	}
	v, n, err := jsonv.ParseCounted(data, jsonv.Options{MaxValues: int(min(room, 1<<40))})
	var le *jsonv.ValueLimitError
	if errors.As(err, &le) {
		return nil, &limitError{what: budgetWhat, limit: b.limit}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", invalid, err)
	}
	if err := b.charge(int64(n) * valueCost); err != nil {
		return nil, err
	}
	return v, nil
}

// countingReader charges everything read through it to a budget.
type countingReader struct {
	r io.Reader
	b *budget
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 && c.b.used.Add(int64(n)) > c.b.limit {
		return n, &limitError{what: "total data read from the server", limit: c.b.limit}
	}
	return n, err
}

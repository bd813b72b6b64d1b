package lock

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
)

// StreamWriter writes a lock file whose tool entries arrive one at a time,
// already rendered by AppendToolText, while the rest of the lock is still
// being built: pin --surface writes the text of a 10,000-tool lock as its
// tools are built, on other goroutines, instead of holding it or writing
// it all after the last tool. Like WriteFile it writes to a temporary file
// in the lock's directory and renames it over the path only at Finish, so
// a failure or an Abort leaves the path as it was.
//
// The lock puts its server block before the tools and sorts the tools by
// name; a surface promises neither. While the tools arrive in order after
// the head that Provisional announced, each is written straight into its
// place. Otherwise they are kept where they landed and Finish writes the
// lock again around them, copying each tool's text once. Either way the
// file holds exactly the bytes WriteFile writes for the finished lock. A
// pin from a surface file hands the tools over in the lock's order after
// the final head, so its lock is written once; the copy is left to a pin
// from standard input, which cannot be read twice, and to the plain read
// that reports a refused file.
//
// A StreamWriter is not safe for concurrent use.
type StreamWriter struct {
	path string
	max  int64
	// head is the provisional text before the tools array; nil when none
	// was announced before the first tool.
	head []byte
	f    *os.File
	bw   *bufio.Writer
	n    int64 // bytes written to f
	// direct is set while f holds head, the array's "[" and every tool so
	// far, in order and separated as the lock separates them.
	direct bool
	spans  []toolSpan // where each tool's text sits in f, in arrival order
	err    error
	// released is closed once the cached pages of the lock this one
	// replaces are dropped (see releaseReplaced); nil when not started
	// or done with.
	released <-chan struct{}
	// releasing is set once releaseReplaced has been started.
	releasing bool
}

// toolSpan is where one tool's text sits in the temporary file.
type toolSpan struct {
	name string
	off  int64
	n    int
}

// NewStreamWriter returns a StreamWriter for the lock at path. Nothing is
// created until the first tool is added.
func NewStreamWriter(path string) *StreamWriter {
	return &StreamWriter{path: path, max: MaxFileBytes}
}

// itemBreak is what comes before each item of one of the lock's top-level
// arrays: a newline and the items' indentation.
const itemBreak = "\n    "

// Provisional announces the head the finished lock is expected to have:
// the text before its tools array, made from l's schema_version,
// warden_version and server. It counts only before the first tool.
func (w *StreamWriter) Provisional(l *Lock) {
	if w.f != nil {
		return
	}
	e := &encoder{}
	e.head(l)
	w.head = e.b
}

// Prepare starts dropping the cached pages of the lock this one will
// replace, which Add otherwise starts with the first tool: a caller that
// reads its whole input before the first tool calls it first, so that the
// kernel's work overlaps the reading.
func (w *StreamWriter) Prepare() {
	if !w.releasing {
		w.releasing = true
		w.released = releaseReplaced(w.path)
	}
}

// Add writes the next tool's text (AppendToolText of the entry named
// name). After an error every call returns it.
func (w *StreamWriter) Add(name string, text []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		if w.f, w.err = createTemp(w.path); w.err != nil {
			return w.err
		}
		w.Prepare()
		w.bw = bufio.NewWriterSize(&fileWriter{f: w.f, path: w.path}, writeBuffer)
		if w.head != nil {
			w.write(w.head)
			w.write([]byte{'['})
			w.direct = true
		}
	}
	if w.direct && len(w.spans) > 0 && strings.Compare(name, w.spans[len(w.spans)-1].name) <= 0 {
		w.direct = false
	}
	if w.direct {
		if len(w.spans) > 0 {
			w.write([]byte{','})
		}
		w.write([]byte(itemBreak))
	}
	w.spans = append(w.spans, toolSpan{name: name, off: w.n, n: len(text)})
	w.write(text)
	return w.err
}

// write appends p to the temporary file, refusing a lock that grows past
// the size warden reads back.
func (w *StreamWriter) write(p []byte) {
	if w.err != nil {
		return
	}
	if w.n += int64(len(p)); w.n > w.max {
		w.err = fmt.Errorf("write lock %s: the lock would be more than the %s a lock may be (warden could not read it back)", w.path, limitText(w.max))
		return
	}
	if _, err := w.bw.Write(p); err != nil {
		w.err = err
	}
}

// Finish completes the lock with l, the finished lock whose tools are the
// ones added (l.Tools in the lock's order), and renames it into place. check,
// when not nil, runs while the rest is written, and its error stops the
// rename as WriteFileChecked's does. Without any tool added, Finish is
// WriteFileChecked. Whatever the outcome, the temporary files are gone
// when Finish returns.
func (w *StreamWriter) Finish(l *Lock, check func() error) error {
	if w.f == nil && w.err == nil {
		w.waitReleased() // started by Prepare, if at all
		if len(l.Tools) > 0 {
			return fmt.Errorf("write lock %s: the lock has %d tools but none was written", w.path, len(l.Tools))
		}
		return writeLockFile(w.path, l, w.max, check)
	}
	var checked chan error
	if check != nil && w.err == nil {
		checked = make(chan error, 1)
		go func() { checked <- check() }()
	}
	err := w.finish(l)
	w.waitReleased()
	if checked != nil {
		// Waited for even after a failure, so that check never outlives
		// the call.
		if cerr := <-checked; err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = commitTemp(w.f, w.path)
	}
	if err != nil {
		w.Abort()
		w.err = err
	}
	return err
}

// finish writes everything after the tools, first writing the lock again
// around the tools when they are not already in place, and flushes.
func (w *StreamWriter) finish(l *Lock) error {
	if w.err != nil {
		return w.err
	}
	if len(w.spans) != len(l.Tools) {
		return fmt.Errorf("write lock %s: %d tools were written but the lock has %d", w.path, len(w.spans), len(l.Tools))
	}
	e := &encoder{}
	e.head(l)
	if !w.direct || !bytes.Equal(e.b, w.head) || !sameNames(w.spans, l.Tools) {
		if err := w.rewrite(l, e.b); err != nil {
			return err
		}
	}
	w.write([]byte("\n  ]"))
	e = &encoder{w: writerFunc(func(p []byte) (int, error) { w.write(p); return len(p), w.err })}
	e.tail(l)
	e.flush()
	if w.err != nil {
		return w.err
	}
	return w.bw.Flush()
}

// rewrite starts a new temporary file with head and the tools in l's
// order, copied from where they landed in the current one, which is then
// removed.
func (w *StreamWriter) rewrite(l *Lock, head []byte) error {
	if err := w.bw.Flush(); err != nil {
		return err
	}
	spans := slices.Clone(w.spans)
	// The order the Builder gives l.Tools: by name, stable.
	slices.SortStableFunc(spans, func(a, b toolSpan) int { return strings.Compare(a.name, b.name) })
	for i := range spans {
		if spans[i].name != l.Tools[i].Name {
			return fmt.Errorf("write lock %s: tool %q was written but the lock has %q in its place", w.path, spans[i].name, l.Tools[i].Name)
		}
	}
	old := w.f
	defer discardTemp(old)
	f, err := createTemp(w.path)
	if err != nil {
		return err
	}
	w.f, w.n, w.direct = f, 0, true
	w.bw.Reset(&fileWriter{f: f, path: w.path})
	w.write(head)
	w.write([]byte{'['})
	var buf []byte
	for i, s := range spans {
		if i > 0 {
			w.write([]byte{','})
		}
		w.write([]byte(itemBreak))
		buf = slices.Grow(buf[:0], s.n)[:s.n]
		if _, err := old.ReadAt(buf, s.off); err != nil {
			return fmt.Errorf("write %s: read back tool %q: %w", w.path, s.name, err)
		}
		w.write(buf)
	}
	return w.err
}

// sameNames reports whether the tools written are l's tools in l's order.
func sameNames(spans []toolSpan, tools []Tool) bool {
	for i := range spans {
		if spans[i].name != tools[i].Name {
			return false
		}
	}
	return true
}

// Abort removes the temporary file; the lock's path is left as it was.
func (w *StreamWriter) Abort() {
	w.waitReleased()
	if w.f != nil {
		discardTemp(w.f)
	}
	if w.err == nil {
		w.err = fmt.Errorf("write lock %s: aborted", w.path)
	}
}

// waitReleased waits for releaseReplaced, so that nothing the writer
// started outlives it.
func (w *StreamWriter) waitReleased() {
	if w.released != nil {
		<-w.released
		w.released = nil
	}
}

// writerFunc is an io.Writer made of a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

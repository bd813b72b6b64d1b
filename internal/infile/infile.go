// Package infile opens the files warden reads as one bounded input — a lock,
// a surface file — so that a path committed by a pull request cannot make
// warden block or read without end: only a regular file (a symbolic link is
// followed, but must lead to one) of at most a given size is read; a FIFO,
// a device such as /dev/zero, a directory or a socket is refused without
// being read, and a file that grows past the limit while it is read is
// refused too. Standard input can be read under the same size limit.
//
// Every error names the input and fits on one line.
package infile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// File is one bounded input being read. Read fails with a *TooLargeError
// once more than the limit has been read.
type File struct {
	f      *os.File // nil for standard input
	r      io.Reader
	ctx    context.Context // nil: never cancelled
	read   int64
	max    int64
	path   string
	noun   string
	tooBig error
}

// TooLargeError is the refusal of an input larger than its limit.
type TooLargeError struct {
	// Path and Noun name the input ("lock", "surface file").
	Path, Noun string
	// Size is the size seen: the file's, or how much was read before the
	// limit was passed (then a lower bound).
	Size, Max int64
}

// Error says which input is too large, and by how much at least.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("read %s %s: the file is larger than %s, the most a %s may be (%d bytes or more)", e.Noun, e.Path, LimitText(e.Max), e.Noun, e.Size)
}

// Open opens path as an input of at most max bytes; noun names it in
// errors ("lock" gives "read lock PATH: ..."). The file is inspected before
// it is opened, so a FIFO or a device is never opened at all, and again once
// open, to be sure it is the regular file inspected.
func Open(path, noun string, max int64) (*File, error) {
	before, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", noun, path, err)
	}
	if err := checkRegular(path, noun, before, max); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", noun, path, err)
	}
	info, err := f.Stat()
	if err == nil {
		err = checkRegular(path, noun, info, max)
		if err == nil && !os.SameFile(before, info) {
			err = fmt.Errorf("read %s %s: the file was replaced while it was being opened", noun, path)
		}
	} else {
		err = fmt.Errorf("read %s %s: %w", noun, path, err)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, r: f, max: max, path: path, noun: noun}, nil
}

// Stdin returns r (a process's standard input) as an input of at most max
// bytes, named "standard input" in errors. Closing it does not close r.
func Stdin(r io.Reader, noun string, max int64) *File {
	return &File{r: r, max: max, path: "(standard input)", noun: noun}
}

// WithContext makes f stop reading once ctx is done: every Read checks
// it first, and fails with a *ReadError wrapping the context's cause. A
// parser reading f in chunks so stops within a chunk of a signal, not
// after the whole file. It returns f.
func (f *File) WithContext(ctx context.Context) *File {
	f.ctx = ctx
	return f
}

// Read reads from the input; past the limit it fails with *TooLargeError,
// and once the context given to WithContext is done, with *ReadError.
func (f *File) Read(p []byte) (int, error) {
	if f.tooBig != nil {
		return 0, f.tooBig
	}
	if f.ctx != nil && f.ctx.Err() != nil {
		return 0, &ReadError{Path: f.path, Noun: f.noun, Err: context.Cause(f.ctx)}
	}
	// Ask for one byte beyond the limit at most, to see whether there is
	// more; what lies beyond is never handed out.
	if room := f.max + 1 - f.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := f.r.Read(p)
	f.read += int64(n)
	if f.read > f.max {
		f.tooBig = &TooLargeError{Path: f.path, Noun: f.noun, Size: f.read, Max: f.max}
		return n - int(f.read-f.max), f.tooBig
	}
	if err != nil && err != io.EOF {
		return n, &ReadError{Path: f.path, Noun: f.noun, Err: err}
	}
	return n, err
}

// ReadError is a failure to read an input (an I/O error), naming it.
type ReadError struct {
	Path, Noun string
	Err        error
}

// Error names the input and the failure.
func (e *ReadError) Error() string { return fmt.Sprintf("read %s %s: %v", e.Noun, e.Path, e.Err) }

// Unwrap returns the underlying error.
func (e *ReadError) Unwrap() error { return e.Err }

// IsInputError reports whether err is (or wraps) a failure to read an
// input — *TooLargeError or *ReadError — whose message names the input.
func IsInputError(err error) bool {
	var r *ReadError
	return IsTooLarge(err) || errors.As(err, &r)
}

// Close closes the file (standard input is left open).
func (f *File) Close() error {
	if f.f == nil {
		return nil
	}
	return f.f.Close()
}

// Name returns the path as given, or "(standard input)".
func (f *File) Name() string { return f.path }

// ReadAll reads the whole input at path (see Open).
func ReadAll(path, noun string, max int64) ([]byte, error) {
	f, err := Open(path, noun, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if info, err := f.f.Stat(); err == nil {
		buf.Grow(int(min(info.Size(), max)) + 1)
	}
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkRegular refuses anything but a regular file of at most max bytes.
func checkRegular(path, noun string, info fs.FileInfo, max int64) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("read %s %s: not a regular file (%s); a %s must be a plain file", noun, path, FileType(info.Mode()), noun)
	}
	if info.Size() > max {
		return &TooLargeError{Path: path, Noun: noun, Size: info.Size(), Max: max}
	}
	return nil
}

// IsTooLarge reports whether err is (or wraps) a *TooLargeError.
func IsTooLarge(err error) bool {
	var t *TooLargeError
	return errors.As(err, &t)
}

// LimitText renders a size limit: in MiB when it is a whole number of them.
func LimitText(max int64) string {
	if max >= 1<<20 && max%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", max>>20)
	}
	return fmt.Sprintf("%d bytes", max)
}

// FileType names the type of a non-regular file for an error message.
func FileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "type " + m.Type().String()
}

// ReadAt reads len(p) bytes of the file from offset off, as
// io.ReaderAt does, without moving the place Read reads from. Standard
// input cannot be read twice: ReadAt refuses it.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.f == nil {
		return 0, fmt.Errorf("read %s %s: standard input cannot be read again", f.noun, f.path)
	}
	return f.f.ReadAt(p, off)
}

// Stamp is what the operating system says of an open file's contents: a
// write to it, or any other change, gives another Stamp (see File.Stamp).
type Stamp struct {
	size        int64
	mtime, ctim int64 // nanoseconds
	dev, ino    uint64
}

// Stamp returns the file's Stamp now, so that a caller that reads it
// again later can tell whether its contents may have changed in between
// (ok is false where that cannot be told: standard input, or a platform
// without change times).
func (f *File) Stamp() (s Stamp, ok bool) {
	if f.f == nil {
		return Stamp{}, false
	}
	info, err := f.f.Stat()
	if err != nil {
		return Stamp{}, false
	}
	return stampOf(info)
}

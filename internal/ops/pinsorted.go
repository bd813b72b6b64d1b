package ops

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// toolRef is where one tool's text lies in the surface file, with its
// name (the lock's sort key) and a checksum of the text as first read.
type toolRef struct {
	name string
	off  int64
	n    int
	sum  uint64
}

// readSurfaceSorted is readSurface for a pin from a surface file (not
// standard input): it reads the file in two passes so that the lock is
// written once, in its own order, whatever the file's. The first pass
// reads the whole document — header, resources, prompts, every refusal
// Decode makes — and cuts each tool out unparsed only to note its name,
// place and checksum. The tools are then sorted by name (the lock's
// order) and read again from their places, one at a time, to be parsed
// and built on workers goroutines and written straight into place in the
// lock (see lockSink). Memory holds the index and the few tools being
// built, never the file or the lock.
//
// Every tool text read again must match its checksum and give the name
// it was sorted by, so the lock is the file's as first read; anything
// else (a tool without a plain string name, a repeated name, a tool that
// fails to build, a file changed in between, any refusal) fails with
// errRefused, for the caller to read the file the plain way and report
// what a read one entry at a time reports.
func readSurfaceSorted(ctx context.Context, path string, maxItems, workers int, sink *lockSink) (*built, error) {
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	f, maxItems, err := openSurface(ctx, path, nil, maxItems)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The first pass leaves a core idle: the old lock's pages are dropped
	// meanwhile.
	sink.w.Prepare()
	b := lock.NewBuilder()
	var sc findings.Scanner
	dec := jsonv.NewDecoder(f, jsonv.Options{})
	seed := maphash.MakeSeed()
	var refs []toolRef
	h := entryHandler(b, &sc, sink, maxItems)
	h.RawTool = func(text []byte) ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name, ok := rawToolName(text)
		if !ok {
			return nil, errRefused
		}
		refs = append(refs, toolRef{name: name, off: dec.Offset() - int64(len(text)), n: len(text), sum: maphash.Bytes(seed, text)})
		return text, nil // the next tool is cut into the same buffer
	}
	hdr, err := surface.Decode(dec, h)
	if cerr := Cancelled(ctx); cerr != nil {
		return nil, cerr
	}
	if err != nil || (hdr.Server.Command == "" && hdr.Server.URL == "") {
		return nil, errRefused
	}
	// Not a stable sort: a repeated name is refused below whatever the
	// order of its tools.
	slices.SortFunc(refs, func(a, b toolRef) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(refs); i++ {
		if refs[i].name == refs[i-1].name {
			return nil, errRefused
		}
	}
	// The launch identity is final now: the head is written before the
	// first tool and every tool goes straight into its place.
	sink.provisional(hdr.Server)
	if err := buildSorted(ctx, path, refs, seed, b, &sc, workers, sink); err != nil {
		return nil, err
	}
	if err := b.SetServer(hdr.Server); err != nil {
		return nil, errRefused
	}
	sink.server = hdr.Server
	sc.Launch(hdr.Server)
	l, err := b.Finish()
	if err != nil {
		return nil, errRefused
	}
	return &built{lock: l, findings: sc.Findings(), protocol: hdr.ProtocolVersion}, nil
}

// errChanged is the failure of a tool text that no longer matches what
// the first pass read.
var errChanged = errors.New("the surface file changed while it was being read")

// buildSorted reads each tool's text again from the file at path in refs'
// order and builds it into b through a toolPool of workers goroutines
// writing to sink. Its failures are errRefused, or the cancellation.
func buildSorted(ctx context.Context, path string, refs []toolRef, seed maphash.Seed, b *lock.Builder, sc *findings.Scanner, workers int, sink *lockSink) error {
	rf, err := reopenSurface(path)
	if err != nil {
		return errRefused
	}
	defer rf.Close()
	tools := newToolPool(b, sc, workers, sink)
	var buf []byte
	for _, r := range refs {
		if ctx.Err() != nil {
			break
		}
		buf = slices.Grow(buf[:0], r.n)[:r.n]
		if _, err = rf.ReadAt(buf, r.off); err == nil && maphash.Bytes(seed, buf) != r.sum {
			err = errChanged
		}
		if err == nil {
			buf, err = tools.queueRaw(buf, r.name)
		}
		if err != nil {
			break
		}
	}
	toolErr, writeErr := tools.wait()
	if cerr := Cancelled(ctx); cerr != nil {
		return cerr
	}
	if err != nil || toolErr != nil || writeErr != nil {
		return errRefused
	}
	return nil
}

// reopenSurface opens the surface file at path again for reading tools
// at their places: a regular file, opened without blocking on anything
// else swapped in meanwhile. What it reads is checked against the first
// pass's checksums, so it need not be the very file first read.
func reopenSurface(path string) (*os.File, error) {
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("reopen surface file %s: not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("reopen surface file %s: %w", path, err)
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("reopen surface file %s: not a regular file", path)
	}
	return f, nil
}

// rawToolName returns the name of the tools item whose text is text (an
// object, as Decode cut it out): the value of its "name" member when that
// is a string. ok is false when the text has no such member where a plain
// scan finds it, or when the key or the name holds an escape or is not
// valid UTF-8: such a tool is read the plain way. The name is a sort key
// only; the tool's parse must give the same.
func rawToolName(text []byte) (name string, ok bool) {
	i := skipBlank(text, 0)
	if i >= len(text) || text[i] != '{' {
		return "", false
	}
	i++
	for {
		i = skipBlank(text, i)
		key, end, ok := plainString(text, i)
		if !ok {
			return "", false
		}
		i = skipBlank(text, end)
		if i >= len(text) || text[i] != ':' {
			return "", false
		}
		i = skipBlank(text, i+1)
		if string(key) == "name" {
			v, _, ok := plainString(text, i)
			if !ok {
				return "", false
			}
			return string(v), true
		}
		if i, ok = skipRawValue(text, i); !ok {
			return "", false
		}
		i = skipBlank(text, i)
		if i >= len(text) || text[i] != ',' {
			return "", false // the end of the object: no name
		}
		i++
	}
}

// skipBlank returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipBlank(text []byte, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t') {
		i++
	}
	return i
}

// plainString returns the contents of the JSON string starting at i and
// the index after it, when it has no escape and is valid UTF-8.
func plainString(text []byte, i int) (s []byte, end int, ok bool) {
	if i >= len(text) || text[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(text); j++ {
		switch c := text[j]; {
		case c == '"':
			s = text[i+1 : j]
			return s, j + 1, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipRawValue returns the index after the JSON value starting at i,
// skipping strings (escapes included) and nested containers; ok is false
// when the text ends first.
func skipRawValue(text []byte, i int) (end int, ok bool) {
	depth := 0
	for ; i < len(text); i++ {
		switch text[i] {
		case '"':
			j := i + 1
			for ; j < len(text) && text[j] != '"'; j++ {
				if text[j] == '\\' {
					j++
				}
			}
			if j >= len(text) {
				return 0, false
			}
			i = j
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i, true // the end of the enclosing object
			}
			depth--
		case ',':
			if depth == 0 {
				return i, true
			}
		}
		if depth == 0 && (text[i] == '"' || text[i] == '}' || text[i] == ']') {
			return i + 1, true
		}
	}
	return 0, false
}

package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"slices"
	"strings"
	"sync/atomic"
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
	// idx is the tool's place among the file's tools.
	idx int
}

// readSurfaceSorted is readSurface for a pin from a surface file (not
// standard input): it reads the file in two passes so that the lock is
// written once, in its own order, whatever the file's. The first pass
// reads the whole document — header, resources, prompts, every refusal
// Decode makes — and cuts each tool out unparsed only to note its name,
// place and checksum. The tools are then sorted by name (the lock's
// order) and read again from their places, one at a time, to be parsed
// and built on workers goroutines and written straight into place in the
// lock (see lockSink). With more than one worker, the tools the first
// pass cuts out while budget bytes of their text last are copied and
// built meanwhile on the core it leaves idle (see prebuilder). Memory
// holds the index, those tools and the few being built, never the file
// or the lock.
//
// Every tool text read again must match its checksum and give the name
// it was sorted by, so the lock is the file's as first read; anything
// else (a tool without a plain string name, a repeated name, a tool that
// fails to build, a file changed in between, any refusal) fails with
// errRefused, for the caller to read the file the plain way and report
// what a read one entry at a time reports.
func readSurfaceSorted(ctx context.Context, path string, maxItems, workers, budget int, sink *lockSink) (*built, error) {
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	f, maxItems, err := openSurface(ctx, path, nil, maxItems)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The first pass runs on one core: the old lock's pages are dropped
	// meanwhile, and the first tools read are built on the other.
	sink.w.Prepare()
	b := lock.NewBuilder()
	var sc findings.Scanner
	var pre *prebuilder
	if workers > 1 && budget > 0 {
		pre = startPrebuilder(sink, budget)
	}
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
		r := toolRef{name: name, off: dec.Offset() - int64(len(text)), n: len(text), idx: len(refs)}
		if !pre.offer(r, text) {
			r.sum = maphash.Bytes(seed, text)
		}
		refs = append(refs, r)
		return text, nil // the next tool is cut into the same buffer
	}
	hdr, err := surface.Decode(dec, h)
	prebuilt := pre.wait(&sc)
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
	if err := buildSorted(ctx, path, refs, seed, prebuilt, b, &sc, workers, sink); err != nil {
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
// writing to sink; a tool pre holds (by its place in the file), built or
// as the text the first pass read, is not read again. Its failures are
// errRefused, or the cancellation.
func buildSorted(ctx context.Context, path string, refs []toolRef, seed maphash.Seed, pre prebuilt, b *lock.Builder, sc *findings.Scanner, workers int, sink *lockSink) error {
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
		if d, ok := pre.built[r.idx]; ok {
			delete(pre.built, r.idx) // held no longer than needed
			if err = tools.queueBuilt(d); err != nil {
				break
			}
			continue
		}
		if j, ok := pre.texts[r.idx]; ok {
			delete(pre.texts, r.idx)
			if _, err = tools.queueRaw(j.text, r.name); err != nil {
				break
			}
			continue
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

// prebuildBudget bounds the bytes of tool text the first pass copies for
// the prebuilder: some 880 tools of the realistic surface, about as many
// as the other core builds while the first pass reads its 48 MB. Their
// lock texts, a third larger, are held until their turn in the lock's
// order (see pinMemoryLimit).
const prebuildBudget = 4 << 20

// prebuilder builds tools on a goroutine of its own while the first pass
// of readSurfaceSorted reads the file on another, so the core that pass
// leaves idle does a share of the second pass's work ahead of it. The
// first pass copies the text of each tool it cuts out, while the budget
// lasts, and queues it; the prebuilder builds them in turn, each from the
// very text the first pass cut out (as the second pass would after
// reading that text again and finding it unchanged), until the first
// pass is done. The copies it did not get to are handed to the second
// pass, which then need not read them again, as is the text of a tool
// that failed to build, for the second pass to fail on the same way.
type prebuilder struct {
	// pool renders as the second pass's does (the sink's texts and
	// snapshot texts) but runs nothing of its own.
	pool *toolPool
	jobs chan prebuildJob
	stop atomic.Bool
	// finished is closed when the goroutine is done with jobs.
	finished chan struct{}
	// left is the budget not yet spent (the first pass's).
	left int
	// built, failed and found are the goroutine's until finished is
	// closed.
	built  map[int]toolDone
	failed map[int]prebuildJob
	found  *findings.Scanner
}

type prebuildJob struct {
	idx  int
	name string
	text []byte
}

// prebuilt is what a prebuilder leaves for the second pass, by each
// tool's place among the file's tools: the tools it built, and the texts
// of those it did not.
type prebuilt struct {
	built map[int]toolDone
	texts map[int]prebuildJob
}

// startPrebuilder starts a prebuilder for tools whose lock texts go to
// sink, to be handed at most budget bytes of tool text.
func startPrebuilder(sink *lockSink, budget int) *prebuilder {
	pb := &prebuilder{
		pool:     newToolPool(nil, nil, 1, sink),
		jobs:     make(chan prebuildJob, 1<<14),
		finished: make(chan struct{}),
		left:     budget,
		built:    map[int]toolDone{},
		failed:   map[int]prebuildJob{},
		found:    &findings.Scanner{},
	}
	go func() {
		defer close(pb.finished)
		b := lock.NewBuilder()
		var tp surface.ToolParser
		for !pb.stop.Load() {
			j, ok := <-pb.jobs
			if !ok {
				return
			}
			d := pb.pool.build(b, pb.found, &tp, toolJob{raw: j.text, want: j.name})
			if d.err != nil {
				pb.failed[j.idx] = j
				continue
			}
			// Held until its turn: at its size, its buffer reused.
			text := bytes.Clone(*d.text)
			pb.pool.texts.Put(d.text)
			d.text = &text
			pb.built[j.idx] = d
		}
	}()
	return pb
}

// offer queues a copy of text, the tool r, to be built, and reports
// whether it did: not once the budget is spent (the first pass never
// waits for the prebuilder).
func (pb *prebuilder) offer(r toolRef, text []byte) bool {
	if pb == nil || len(text) > pb.left || len(pb.jobs) == cap(pb.jobs) {
		return false
	}
	pb.left -= len(text)
	pb.jobs <- prebuildJob{idx: r.idx, name: r.name, text: bytes.Clone(text)}
	return true
}

// wait stops the prebuilder once the tool it is building is built, and
// returns what it leaves, moving the findings of the tools it built into
// sc.
func (pb *prebuilder) wait(sc *findings.Scanner) prebuilt {
	if pb == nil {
		return prebuilt{}
	}
	pb.stop.Store(true)
	close(pb.jobs)
	<-pb.finished
	sc.Join(pb.found)
	out := prebuilt{built: pb.built, texts: pb.failed}
	for j := range pb.jobs {
		out.texts[j.idx] = j
	}
	return out
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

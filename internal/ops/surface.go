package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/capture"
	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/snapshot"
	"github.com/wardenlock/warden/internal/surface"
)

// built is a surface turned into what pin and check need: the lock built
// from it, its static findings and the MCP revision it was captured in.
type built struct {
	lock     *lock.Lock
	findings []lock.Finding
	protocol string
}

// buildCaptured builds the lock and findings of a captured surface, as
// lock.Build and findings.Scan do but with one capability analysis per
// tool for both; a build failure is wrapped with what.
func buildCaptured(s *surface.Surface, what string) (*built, error) {
	b := lock.NewBuilder()
	var sc findings.Scanner
	err := b.SetServer(s.Server)
	for _, t := range s.Tools {
		if err != nil {
			break
		}
		a := caps.Analyze(t.Name, t.InputSchema)
		if err = b.AddAnalyzedTool(t, a); err == nil {
			sc.AnalyzedTool(t, a)
		}
	}
	for _, r := range s.Resources {
		if err != nil {
			break
		}
		if err = b.AddResource(r); err == nil {
			sc.Resource(r)
		}
	}
	for _, p := range s.Prompts {
		if err != nil {
			break
		}
		if err = b.AddPrompt(p); err == nil {
			sc.Prompt(p)
		}
	}
	var l *lock.Lock
	if err == nil {
		l, err = b.Finish()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	sc.Launch(s.Server)
	return &built{lock: l, findings: sc.Findings(), protocol: s.ProtocolVersion}, nil
}

// validateSurface refuses a surface file given together with a server.
func validateSurface(t Target) error {
	if len(t.Argv) > 0 || t.URL != "" {
		return errors.New("give either --surface FILE or a server (-- CMD ARGS... or --url URL), not both: pinning or checking from a surface file launches nothing")
	}
	return nil
}

// readSurface reads the surface file at path ("-": stdin) — the
// conformance corpus's surface shape, naming its server by command and args
// or by url — and builds its lock and findings, launching nothing. The
// file is bounded like a lock (surface.Open) and read one entry at a time;
// each tool's tree is dropped once it is hashed, and a repeated entry
// identity is refused, as in a capture. Cancelling ctx stops the reading.
//
// Tools, which cost nearly all the work (hashing, skeleton, capabilities,
// findings), are built on as many goroutines as the process may run at
// once while the file is still being read; the result and the error
// reported, if any, are those of building them one by one in file order.
// With a sink, each tool's lock text is rendered where it is built and
// written to the sink in file order as soon as the tools before it are.
//
// Tools are decoded on those goroutines too: the file is read once with
// each tool cut out unparsed (surface.Handler.RawTool), and only when that
// meets any refusal is it read again the plain way, for the refusal, and
// its place, exactly as a read one entry at a time gives them. A pin (with
// a sink) writes its lock once, on one core too: in one pass while the
// file's tools come in the lock's order after its launch identity
// (readSurfaceInOrder), else in two, reading the tools again in that
// order (readSurfaceSorted). Standard
// input cannot be read twice and is always read the plain way: a pin from
// it whose tools are not in the lock's order writes their text a second
// time at the end (lock.StreamWriter).
//
// A tools, resources or prompts list of more than maxItems items (zero:
// capture.DefaultMaxItems) is refused, as a capture refuses it.
func readSurface(ctx context.Context, path string, stdin io.Reader, maxItems int, sink *lockSink) (*built, error) {
	return readSurfaceKnown(ctx, path, stdin, maxItems, sink, nil)
}

// readSurfaceKnown is readSurface for a check against known, its lock
// read but for the tool entries (nil: none): each tool built is also
// rendered as a lock holds it, and taken for the entry of known of that
// text (lock.Deferred).
func readSurfaceKnown(ctx context.Context, path string, stdin io.Reader, maxItems int, sink *lockSink, known *against) (*built, error) {
	workers := runtime.GOMAXPROCS(0)
	if path != "-" && (workers > 1 || sink != nil) {
		var b *built
		var err error
		if sink != nil {
			b, err = readSurfaceInOrder(ctx, path, maxItems, workers, sink)
			if errors.Is(err, errUnsorted) {
				sink.restart()
				b, err = readSurfaceSorted(ctx, path, maxItems, workers, prebuildBudget, sink)
			}
		} else {
			b, err = readSurfaceOn(ctx, path, stdin, maxItems, workers, nil, known, true)
		}
		if !errors.Is(err, errRefused) {
			return b, err
		}
		if sink != nil {
			sink.restart()
		}
	}
	return readSurfaceOn(ctx, path, stdin, maxItems, workers, sink, known, false)
}

// against is the lock a check of a surface file reads the surface
// against (see lock.Deferred), and what to do once the entries it takes
// are all taken.
type against struct {
	d *lock.Deferred
	// final, when set, is called (once) when the tools built are final,
	// before the read builds the rest of its lock.
	final func()
	once  sync.Once
}

// deferred is the lock read deferred, or nil.
func (a *against) deferred() *lock.Deferred {
	if a == nil {
		return nil
	}
	return a.d
}

// tookAll says that every entry to be taken is taken.
func (a *against) tookAll() {
	if a != nil && a.final != nil {
		a.once.Do(a.final)
	}
}

// errRefused is the failure of a read that cut tools out unparsed: the
// file is to be read again the plain way for the refusal to report.
var errRefused = errors.New("surface refused; read it again one entry at a time")

// lockSink is where a pin writes its lock while the surface is read.
type lockSink struct {
	w    *lock.StreamWriter
	path string // the lock's
	// version is warden's, written into the lock's head.
	version string
	// suspects names the tools whose text may hold a stored secret,
	// screened where they were built: the stored-secret check walks only
	// these (kept whole).
	suspects map[string]bool
	// snapshot is set when the pin writes a surface snapshot: each tool's
	// snapshot text is rendered where it is built and kept (in file
	// order) with the resources, prompts and launch identity, until the
	// lock is written. A pin without one renders and keeps none of it.
	snapshot bool
	// head is set once the provisional head is announced; inOrder, when
	// set, is called with the cause that stops a read whose tools leave
	// the lock's order (see readSurfaceInOrder), and last is the name of
	// the tool before.
	head      bool
	inOrder   context.CancelCauseFunc
	last      *string
	snapTools []snapshot.ToolText
	resources []surface.Resource
	prompts   []surface.Prompt
	server    surface.Server
}

// snapshotParts is the snapshot of the surface read through the sink.
func (s *lockSink) snapshotParts(protocol string) *snapshot.Parts {
	p := &snapshot.Parts{Server: s.server, Protocol: protocol, Tools: s.snapTools, Resources: s.resources, Prompts: s.prompts}
	p.Sort()
	s.snapTools, s.resources, s.prompts = nil, nil, nil
	return p
}

// newLockSink returns a sink writing the lock at path.
func newLockSink(path, version string) *lockSink {
	return &lockSink{w: lock.NewStreamWriter(path), path: path, version: version}
}

// restart drops what was written, for the surface to be read again.
func (s *lockSink) restart() {
	s.w.Abort()
	s.w = lock.NewStreamWriter(s.path)
	s.head, s.inOrder, s.last = false, nil, nil
	s.suspects = nil
	s.snapTools, s.resources, s.prompts = nil, nil, nil
}

// storedSecrets is the stored-secret check of the lock written through
// the sink.
func (s *lockSink) storedSecrets(l *lock.Lock) error {
	return storedSecretsScreened(l, func(t lock.Tool) bool { return s.suspects[t.Name] })
}

// provisional announces the lock's head from the launch identity the
// surface has given before its tools.
func (s *lockSink) provisional(srv surface.Server) {
	server, err := lock.BuildServer(srv)
	if err != nil {
		return // the head is written at the end instead
	}
	s.w.Provisional(&lock.Lock{SchemaVersion: lock.CurrentSchemaVersion, WardenVersion: s.version, Server: server})
	// A launch not given yet is the one thing the document is sure to
	// give after the tools: their text then cannot go straight into place.
	s.head = srv.Command != "" || srv.URL != ""
}

// errUnsorted stops a read in one pass whose tools do not come in the
// lock's order after its head: the file is read in two instead.
var errUnsorted = errors.New("the surface's tools are not in the lock's order")

// readSurfaceInOrder is readSurfaceOn cutting tools out unparsed and
// writing each straight into place in the lock, for as long as the tools
// come after the launch identity (the head) and by name in the lock's
// order, as a server listing them sorted gives them: such a file is read
// once. At the first tool out of place (or without a plain name) it stops
// reading at once and fails with errUnsorted, for the caller to start
// again with readSurfaceSorted; any other failure is readSurfaceOn's.
func readSurfaceInOrder(ctx context.Context, path string, maxItems, workers int, sink *lockSink) (*built, error) {
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sink.inOrder = cancel
	b, err := readSurfaceOn(sctx, path, nil, maxItems, workers, sink, nil, true)
	if ctx.Err() == nil && errors.Is(context.Cause(sctx), errUnsorted) {
		return nil, errUnsorted
	}
	return b, err
}

// stillInOrder reports whether the tool whose text is text keeps the
// tools read through the sink in the lock's order after its head; when
// it does not, the read is stopped (see readSurfaceInOrder).
func (s *lockSink) stillInOrder(text []byte) bool {
	name, ok := rawToolName(text)
	if ok && s.head && (s.last == nil || *s.last < name) {
		s.last = &name
		return true
	}
	s.inOrder(errUnsorted)
	return false
}

// streamMemoryLimit is the memory a streamed pin lets grow before it
// collects (see paceGC): its live heap is a few megabytes, and a lower
// limit collects often enough to cost CPU (32 MiB: four collections on the
// realistic 10,000-tool surface, 1% of the pin's CPU; 64 MiB held 30 MiB
// more at the same CPU).
const streamMemoryLimit = 32 << 20

// pinMemoryLimit is the memory limit of a streamed pin on workers cores:
// streamMemoryLimit, and room for what a prebuilder holds (twice its
// budget) when there is a core for one (see readSurfaceSorted).
func pinMemoryLimit(workers int) int64 {
	if workers > 1 {
		return streamMemoryLimit + 2*prebuildBudget
	}
	return streamMemoryLimit
}

// minPacedMemoryLimit is the least memory a lazy diff or a check from a
// surface file lets grow before it collects (see pacedMemoryLimit).
const minPacedMemoryLimit = 64 << 20

// pacedMemoryLimit is the memory limit that paces collection (see paceGC)
// for a command reading the files at paths whose live heap stays under
// share of their bytes: twice that, and no less than minPacedMemoryLimit.
// A live heap past the limit would be collected over and over: share must
// bound it.
func pacedMemoryLimit(share float64, paths ...string) int64 {
	var size int64
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil {
			size += info.Size()
		}
	}
	return max(minPacedMemoryLimit, int64(2*share*float64(size)))
}

// paceGC sets the collector for a command whose live heap is small beside
// what it allocates, and returns what puts the settings back (calling it
// again does nothing more). A streamed pin keeps only the few entries
// being built (each tool is written and cut down to its name and digest),
// a lazy diff only each entry's name and hashes, and a check from a
// surface file, while it reads it, the entries built and where the lock's
// are, so a heap goal of twice the live heap would collect every few
// megabytes of a large input: collection is paced by a memory limit
// instead. Past the limit (a live heap larger than it) the runtime
// still collects, spending at most half the CPU on it. Settings made by
// the user (GOGC, GOMEMLIMIT) are left alone. The settings are the
// process's: a concurrent command could put back the other's, which
// changes only when memory is collected.
func paceGC(limit int64) (restore func()) {
	pct := debug.SetGCPercent(-1)
	if pct != 100 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		debug.SetGCPercent(pct)
		return func() {}
	}
	debug.SetMemoryLimit(limit)
	restored := false
	return func() {
		if restored {
			return
		}
		restored = true
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(pct)
	}
}

// openSurface opens a surface file ("-": stdin) for reading under ctx (a
// signal stops the reading within a chunk of the file, however long the
// member being read) and settles the per-list item bound: maxItems, or
// capture.DefaultMaxItems when it is not positive.
func openSurface(ctx context.Context, path string, stdin io.Reader, maxItems int) (*infile.File, int, error) {
	f, err := surface.Open(path, stdin)
	if err != nil {
		return nil, 0, err
	}
	f.WithContext(ctx)
	if maxItems <= 0 {
		maxItems = capture.DefaultMaxItems
	}
	return f, maxItems, nil
}

// readSurfaceOn is readSurface building tools on the given number of
// goroutines; with raw, decoding them there too, and failing with
// errRefused (unless cancelled) whatever the refusal.
func readSurfaceOn(ctx context.Context, path string, stdin io.Reader, maxItems, workers int, sink *lockSink, known *against, raw bool) (*built, error) {
	if err := Cancelled(ctx); err != nil {
		return nil, err
	}
	f, maxItems, err := openSurface(ctx, path, stdin, maxItems)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := lock.NewBuilder()
	var sc findings.Scanner
	tools := newToolPool(b, &sc, workers, sink)
	tools.known = known.deferred()
	h := entryHandler(b, &sc, sink, maxItems)
	h.Tool = func(t surface.Tool) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return tools.add(t)
	}
	if sink != nil {
		h.BeforeTools = sink.provisional
	}
	if raw {
		tools.names = map[string]struct{}{}
		h.RawTool = func(text []byte) ([]byte, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if sink != nil && sink.inOrder != nil && !sink.stillInOrder(text) {
				return nil, errUnsorted
			}
			return tools.addRaw(text)
		}
	}
	hdr, err := surface.Decode(jsonv.NewDecoder(f, jsonv.Options{}), h)
	toolErr, writeErr := tools.wait()
	if cerr := Cancelled(ctx); cerr != nil {
		return nil, cerr
	}
	if raw && (err != nil || toolErr != nil || writeErr != nil) {
		return nil, errRefused
	}
	// No tool is read again: every entry the check takes is taken.
	known.tookAll()
	var pe *jsonv.ParseError
	var le *jsonv.ValueLimitError
	switch {
	case err != nil && (infile.IsInputError(err) || errors.As(err, &pe) || errors.As(err, &le)):
		// Reading failed, or the document is not JSON: that comes first.
	case toolErr != nil:
		// A tool that failed to build was read before anything Decode
		// refused after it (tools are handed out in file order).
		err = toolErr
	}
	if err != nil {
		if infile.IsInputError(err) {
			return nil, err
		}
		return nil, fmt.Errorf("surface file %s: %w", f.Name(), err)
	}
	if writeErr != nil {
		return nil, writeErr
	}
	if hdr.Server.Command == "" && hdr.Server.URL == "" {
		return nil, fmt.Errorf("surface file %s names no server: give its launch as command (and args) or as url, which the lock records and check compares", f.Name())
	}
	if err := b.SetServer(hdr.Server); err != nil {
		return nil, fmt.Errorf("surface file %s: %w", f.Name(), err)
	}
	if sink != nil {
		sink.server = hdr.Server
	}
	sc.Launch(hdr.Server)
	l, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("surface file %s: %w", f.Name(), err)
	}
	return &built{lock: l, findings: sc.Findings(), protocol: hdr.ProtocolVersion}, nil
}

// entryHandler is a surface.Handler (without its tool callbacks) adding
// resources and prompts to b and scanning them with sc, keeping them for
// the snapshot when the sink writes one, and bounding each list to
// maxItems.
func entryHandler(b *lock.Builder, sc *findings.Scanner, sink *lockSink, maxItems int) surface.Handler {
	return surface.Handler{
		MaxItems: maxItems,
		Resource: func(r surface.Resource) error {
			sc.Resource(r)
			if sink != nil && sink.snapshot {
				// The values point into the decoder's blocks.
				r.Name, r.Description, r.MimeType = r.Name.Clone(), r.Description.Clone(), r.MimeType.Clone()
				sink.resources = append(sink.resources, r)
			}
			return b.AddResource(r)
		},
		Prompt: func(p surface.Prompt) error {
			sc.Prompt(p)
			if sink != nil && sink.snapshot {
				p.Description, p.Arguments = p.Description.Clone(), p.Arguments.Clone()
				sink.prompts = append(sink.prompts, p)
			}
			return b.AddPrompt(p)
		},
	}
}

// errStopped tells Decode to hand out no more tools: one already failed.
var errStopped = errors.New("stopped after an earlier tool failed")

// toolPool builds tools handed to it in file order on n goroutines, each
// with its own Builder (a Fork, for its buffers) and Scanner, and adds
// them to the main Builder in file order; the Scanners' findings are
// joined at the end. With a sink, each tool's lock text is rendered on
// the goroutine that built it and written in file order. With n == 1 it
// does all of it at once, on the caller's goroutine.
type toolPool struct {
	b    *lock.Builder
	sc   *findings.Scanner
	sink *lockSink
	jobs chan toolJob
	done chan toolDone
	wg   sync.WaitGroup
	// collected is closed when the collector has taken the last result.
	collected chan struct{}
	seq       int
	// failedAt is the file position of the earliest tool known to have
	// failed (math.MaxInt64 while none has): tools after it are not built.
	failedAt atomic.Int64
	scans    []*findings.Scanner
	// Owned by the collector (or, with n == 1, the caller's goroutine).
	next     int
	pending  map[int]toolDone
	firstSeq int
	firstErr error
	writeErr error
	// names are the names collected so far, when the pool checks them.
	names map[string]struct{}
	// known, when not nil, is the lock a check reads against (without a
	// sink): a built tool whose text is one of its entries' is taken
	// for that entry. later are the tools built before it was read, with
	// their texts, and again the collector's scratch to look them up.
	known *lock.Deferred
	later []toolDone
	again []byte
	texts sync.Pool
	// snapBufs are scratch buffers for tools' snapshot texts.
	snapBufs sync.Pool
	// raws holds the buffers of tools' texts already parsed, for the
	// reader to cut more into.
	raws   chan []byte
	parser surface.ToolParser // with n == 1
}

type toolJob struct {
	seq int
	t   surface.Tool
	// raw, when not nil, is the tool's text, to be parsed into t.
	raw []byte
	// want, when not empty, is the name the parsed tool must have.
	want string
}

// toolDone is a built tool (or its failure) and its rendered lock text.
type toolDone struct {
	seq  int
	e    lock.Tool
	text *[]byte
	// suspect is set, with a sink, when e's text may hold a stored
	// secret; e is then whole.
	suspect bool
	// snap is the tool's snapshot text, when the sink keeps a snapshot.
	snap []byte
	// slot is the slot of the known lock's tool entry whose text is
	// e's (-1: none; see lock.Deferred); later is e's text when the lock
	// was not read yet, to be looked up when it is.
	slot  int
	later []byte
	err   error
}

func newToolPool(b *lock.Builder, sc *findings.Scanner, n int, sink *lockSink) *toolPool {
	p := &toolPool{b: b, sc: sc, sink: sink, pending: map[int]toolDone{}}
	p.failedAt.Store(math.MaxInt64)
	p.texts.New = func() any { return new([]byte) }
	p.snapBufs.New = func() any { return new([]byte) }
	if n <= 1 {
		return p
	}
	p.jobs = make(chan toolJob, 8*n)
	// As many as can be in flight: queued, being parsed, being cut.
	p.raws = make(chan []byte, 9*n+1)
	p.done = make(chan toolDone, 8*n)
	p.collected = make(chan struct{})
	for i := 0; i < n; i++ {
		fb, fs, tp := b.Fork(), &findings.Scanner{}, &surface.ToolParser{}
		p.scans = append(p.scans, fs)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				if int64(j.seq) > p.failedAt.Load() {
					continue // drain: an earlier tool failed
				}
				p.done <- p.build(fb, fs, tp, j)
			}
		}()
	}
	go func() {
		defer close(p.collected)
		for d := range p.done {
			p.collect(d)
		}
	}()
	return p
}

// add builds t, or queues it for a worker.
func (p *toolPool) add(t surface.Tool) error { return p.queue(toolJob{t: t}) }

// addRaw parses and builds the tool whose text is raw (which it keeps),
// or queues it for a worker, and returns a buffer to cut the next tool
// into: one a worker is done with, when there is one.
func (p *toolPool) addRaw(raw []byte) ([]byte, error) { return p.queueRaw(raw, "") }

// queueRaw is addRaw for a tool that must be named want (any name when
// want is empty).
func (p *toolPool) queueRaw(raw []byte, want string) ([]byte, error) {
	if err := p.queue(toolJob{raw: raw, want: want}); err != nil {
		return nil, err
	}
	if p.raws == nil {
		return raw, nil // built already, on this goroutine
	}
	select {
	case buf := <-p.raws:
		return buf, nil
	default:
		return nil, nil
	}
}

// queueBuilt numbers d, a tool built already (by a prebuilder), and hands
// it to the collector as if a worker had just built it.
func (p *toolPool) queueBuilt(d toolDone) error {
	if p.failedAt.Load() != math.MaxInt64 {
		return errStopped
	}
	d.seq = p.seq
	p.seq++
	if p.jobs == nil {
		return p.collectNow(d)
	}
	p.done <- d
	return nil
}

// collectNow collects d on the caller's goroutine (a pool without
// workers), and reports errStopped once a tool has failed.
func (p *toolPool) collectNow(d toolDone) error {
	p.collect(d)
	if p.failedAt.Load() != math.MaxInt64 {
		return errStopped
	}
	return nil
}

// queue numbers j and builds it, or queues it for a worker.
func (p *toolPool) queue(j toolJob) error {
	if p.failedAt.Load() != math.MaxInt64 {
		return errStopped
	}
	j.seq = p.seq
	p.seq++
	if p.jobs == nil {
		return p.collectNow(p.build(p.b, p.sc, &p.parser, j))
	}
	p.jobs <- j
	return nil
}

// build builds one tool with b's buffers (parsing it first with tp when
// it comes as text), scans it with sc and renders its lock text when there
// is a sink.
func (p *toolPool) build(b *lock.Builder, sc *findings.Scanner, tp *surface.ToolParser, j toolJob) toolDone {
	d := toolDone{seq: j.seq}
	var err error
	if j.raw != nil {
		j.t, err = tp.Parse(j.raw)
		if p.raws != nil {
			select {
			case p.raws <- j.raw:
			default:
			}
		}
		if err == nil && j.want != "" && j.t.Name != j.want {
			err = fmt.Errorf("tool %q was read as %q", j.t.Name, j.want)
		}
		if err != nil {
			p.fail(j.seq)
			d.err = err
			return d
		}
	}
	// The capabilities and their findings come from one analysis.
	a := caps.Analyze(j.t.Name, j.t.InputSchema)
	d.slot = -1
	switch {
	case p.sink == nil && p.known.MayFind():
		// Rendered too: the lock entry of that text, if any, is this
		// one, and need not be read (lock.Deferred). While the lock is
		// still being read, the text is kept to be looked up once it is.
		text, again := p.texts.Get().(*[]byte), p.texts.Get().(*[]byte)
		find := func(text []byte) int {
			if !p.known.Ready() {
				d.later = bytes.Clone(text)
				return -1
			}
			return p.known.Find(text, again)
		}
		if p.known.Unloaded() {
			// The entry taken is the lock's, byte for byte: its
			// skeletons are read again from there if ever needed.
			d.e, *text, d.slot, err = b.BuildToolFound(j.t, a, (*text)[:0], p.known, find)
		} else {
			d.e, *text, err = b.BuildToolText(j.t, a, (*text)[:0], func(text []byte) bool {
				d.slot = find(text)
				return true
			})
		}
		p.texts.Put(text)
		p.texts.Put(again)
	case p.sink == nil:
		d.e, err = b.BuildAnalyzedTool(j.t, a)
	default:
		// The entry is rendered as it is built and kept whole only when
		// its text may hold a secret: the text holds every string the
		// entry stores verbatim with its printable characters as they
		// are, so no string in an entry whose text has no vendor prefix
		// can match (findings.MayHoldVendorSecret).
		d.text = p.texts.Get().(*[]byte)
		d.e, *d.text, err = b.BuildToolText(j.t, a, (*d.text)[:0], func(text []byte) bool {
			d.suspect = findings.MayHoldVendorSecretBytes(text)
			return d.suspect
		})
	}
	if err != nil {
		p.fail(j.seq)
		d.err = err
		return d
	}
	if p.sink != nil && p.sink.snapshot {
		// Rendered now: the tool's tree is the parser's, reused for the
		// next one. Into a scratch buffer, then copied out at its size.
		buf := p.snapBufs.Get().(*[]byte)
		*buf = snapshot.AppendTool((*buf)[:0], j.t)
		d.snap = bytes.Clone(*buf)
		p.snapBufs.Put(buf)
	}
	sc.AnalyzedTool(j.t, a)
	return d
}

// fail records that the tool at seq failed: no tool after it is built.
func (p *toolPool) fail(seq int) {
	for {
		at := p.failedAt.Load()
		if int64(seq) >= at || p.failedAt.CompareAndSwap(at, int64(seq)) {
			return
		}
	}
}

// collect takes results in any order and, in file order, adds each tool
// to the main Builder and writes its text, up to the first failure.
func (p *toolPool) collect(d toolDone) {
	p.pending[d.seq] = d
	for {
		d, ok := p.pending[p.next]
		if !ok {
			return
		}
		delete(p.pending, p.next)
		p.next++
		switch {
		case p.firstErr != nil:
			// Everything after the first failure is dropped.
		case d.err != nil:
			p.firstSeq, p.firstErr = d.seq, d.err
		case p.repeated(d.e.Name):
			// Decode checks names only for tools it parses.
			p.firstSeq, p.firstErr = d.seq, fmt.Errorf("tool %q appears more than once", d.e.Name)
			p.fail(d.seq)
		case p.sink == nil:
			p.b.AddBuilt(d.e)
			switch {
			case d.slot >= 0:
				p.known.Take(d.slot, d.e)
			case d.later != nil:
				p.later = append(p.later, toolDone{e: d.e, later: d.later})
			}
			if len(p.later) > 0 && p.known.Ready() {
				p.findLater()
			}
		default:
			if p.writeErr == nil {
				p.writeErr = p.sink.w.Add(d.e.Name, *d.text)
			}
			if d.snap != nil {
				p.sink.snapTools = append(p.sink.snapTools, snapshot.ToolText{Name: d.e.Name, Text: d.snap})
			}
			if d.suspect {
				if p.sink.suspects == nil {
					p.sink.suspects = map[string]bool{}
				}
				p.sink.suspects[d.e.Name] = true
			}
			// Whole for a suspect (walked by the stored-secret check), else
			// cut down to name and digest, so memory does not grow with
			// the tools.
			p.b.AddBuilt(d.e)
		}
		if d.text != nil {
			p.texts.Put(d.text)
		}
	}
}

// findLater looks up in the known lock, now read, the tools built before
// it was, and takes each one found for its entry.
func (p *toolPool) findLater() {
	for _, d := range p.later {
		if slot := p.known.Find(d.later, &p.again); slot >= 0 {
			p.known.Take(slot, d.e)
		}
	}
	p.later = nil
}

// repeated reports whether a tool named name was collected before, when
// the pool checks names (tools cut out unparsed).
func (p *toolPool) repeated(name string) bool {
	if p.names == nil {
		return false
	}
	if _, ok := p.names[name]; ok {
		return true
	}
	p.names[name] = struct{}{}
	return false
}

// wait finishes the queued tools and joins the workers' findings. It
// returns the failure of the earliest tool that failed, placed as Decode
// places its refusals, and apart from it the sink's write error.
func (p *toolPool) wait() (toolErr, writeErr error) {
	if p.jobs != nil {
		close(p.jobs)
		p.wg.Wait()
		close(p.done)
		<-p.collected
		for _, fs := range p.scans {
			p.sc.Join(fs)
		}
	}
	if p.firstErr != nil {
		return fmt.Errorf("surface: tools[%d]: %w", p.firstSeq, p.firstErr), nil
	}
	if len(p.later) > 0 {
		p.findLater()
	}
	return nil, p.writeErr
}

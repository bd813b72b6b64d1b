package lock

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"io"
	"runtime"
	"sync"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
)

// Deferred is a lock read but for its tool entries, which are cut out
// and noted (where each stands in the file, and a key of its text, see
// entryKey, seeded for this read alone) instead of read: check --surface
// reads its lock this way first, then builds the surface's tools,
// rendering each one's text as a lock holds it, and every entry whose
// text is one of them is that built entry (Find, Take): the same bytes at
// the same schema level are read into the same entry, with the same
// digest, and the built one was made from the surface by warden itself.
// Finish reads the entries no built tool took, and returns the lock as
// ReadFileContext would. So an unchanged lock costs little more than
// cutting its entries out.
//
// A lock the deferred read cannot read exactly as ReadFileContext does,
// or that it refuses, is read the plain way at once instead (Find then
// finds nothing, and Finish returns that lock).
type Deferred struct {
	// ready is closed once the lock is read (see StartReadDeferred);
	// err is then the read's refusal, and plain, when set, the lock
	// read the plain way.
	ready chan struct{}
	err   error
	plain *Lock

	l     *Lock
	path  string
	file  *infile.File
	stamp infile.Stamp
	seed  maphash.Seed
	// slots are the tool entries in file order, byKey their slots by
	// their texts' keys (entryKey).
	slots []deferredEntry
	byKey map[uint64]int
	// refs are the slots as places to read an entry again from (see
	// Builder.BuildToolFound), once the lock is read.
	refs []entryRef
	// unloaded is set when the entries taken are to be left without
	// their skeletons' compact text (LeaveUnloaded).
	unloaded bool
	mu       sync.Mutex
}

// deferredEntry is one tool entry of a Deferred lock: where its text
// stands in the file, and the built entry taken for it (nil: none yet).
type deferredEntry struct {
	off int64
	n   int
	t   *Tool
}

// ReadFileDeferred reads the lock at path but for its tool entries (see
// Deferred). Its refusals are ReadFileContext's, word for word; the
// tool entries' own are found by Finish.
func ReadFileDeferred(ctx context.Context, path string) (*Deferred, error) {
	d := StartReadDeferred(ctx, path)
	d.Wait()
	if d.err != nil {
		return nil, d.err
	}
	return d, nil
}

// StartReadDeferred is ReadFileDeferred on its own goroutine, for a
// caller that builds its tools meanwhile: Find may be called once Ready
// reports true (Wait waits for it), and Finish returns the lock or the
// read's refusal.
func StartReadDeferred(ctx context.Context, path string) *Deferred {
	d := &Deferred{ready: make(chan struct{})}
	go func() {
		defer close(d.ready)
		if err := d.read(ctx, path); err == nil {
			return
		}
		d.plain, d.err = ReadFileContext(ctx, path)
	}()
	return d
}

// Ready reports whether the lock has been read: Find and Finds may be
// called.
func (d *Deferred) Ready() bool {
	select {
	case <-d.ready:
		return true
	default:
		return false
	}
}

// Wait waits until the lock has been read.
func (d *Deferred) Wait() { <-d.ready }

// read reads the lock at path into d, deferring its tools; on any
// failure d is left as it was, for the plain read.
func (d *Deferred) read(ctx context.Context, path string) (err error) {
	f, err := infile.Open(path, noun, MaxFileBytes)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			d.file, d.slots, d.byKey = nil, nil, nil
		}
	}()
	stamp, ok := f.Stamp()
	if !ok {
		return errPlain
	}
	f.WithContext(ctx)
	d.path, d.file, d.stamp, d.seed = path, f, stamp, maphash.MakeSeed()
	ld := &lockDecoder{d: jsonv.NewDecoder(f, jsonv.Options{MaxDepth: canon.MaxDepth}), l: &Lock{Findings: []Finding{}}, byText: true, deferred: d}
	ld.work = newToolWork(0)
	l, err := ld.run()
	if err != nil {
		return err
	}
	// An accepted list error is checked against the tools section, which
	// is not read yet.
	if ld.plain || len(l.Pin.AcceptedListErrors) > 0 {
		return errPlain
	}
	d.l = l
	src := &entrySource{path: path, stamp: stamp, at: make([]entryPlace, len(d.slots))}
	d.refs = make([]entryRef, len(d.slots))
	for i, e := range d.slots {
		src.at[i] = entryPlace{off: e.off, n: e.n}
		d.refs[i] = entryRef{src: src, i: i}
	}
	return nil
}

// note records the tool entry whose text raw ends where the decoder is.
func (d *Deferred) note(raw []byte, end int64) {
	if d.byKey == nil {
		d.byKey = map[uint64]int{}
	}
	k := entryKey(d.seed, raw)
	if _, seen := d.byKey[k]; !seen {
		d.byKey[k] = len(d.slots)
	}
	d.slots = append(d.slots, deferredEntry{off: end - int64(len(raw)), n: len(raw)})
}

// entryKeyEnds is how many bytes at each end of an entry text its key
// hashes.
const entryKeyEnds = 256

// entryKey is the key a tool entry's text is looked up by, in a Deferred
// and in a RawIndex: a hash of its length and of its first and last
// entryKeyEnds bytes, which in an entry as a lock lays it out hold its
// name, its description and input schema hashes and its entry digest, so
// that the rest of the text, mostly its skeleton, is not hashed on either
// side. Equal texts have equal keys; of two texts with one key only the
// first noted can be found, and the lookup tells them apart byte for
// byte, so the other is read as any entry not found is.
func entryKey(seed maphash.Seed, text []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	if len(text) <= 2*entryKeyEnds {
		h.Write(text)
	} else {
		h.Write(text[:entryKeyEnds])
		h.Write(text[len(text)-entryKeyEnds:])
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(text)))
	h.Write(n[:])
	return h.Sum64()
}

// Find returns the slot of the lock's tool entry whose text is text (as
// Builder.BuildToolText renders a tool), or -1 when there is none, or
// the lock is not at the current schema level, whose entries such texts
// are. The entry's text is read again from the file and compared byte
// for byte (into buf, the caller's scratch space). Safe for concurrent
// use.
func (d *Deferred) Find(text []byte, buf *[]byte) int {
	if d == nil {
		return -1
	}
	d.Wait()
	if d.plain != nil || d.l == nil || d.l.SchemaVersion != CurrentSchemaVersion {
		return -1
	}
	i, ok := d.byKey[entryKey(d.seed, text)]
	if !ok || d.slots[i].n != len(text) {
		return -1
	}
	e := d.slots[i]
	if cap(*buf) < e.n {
		*buf = make([]byte, e.n)
	}
	got := (*buf)[:e.n]
	if n, err := d.file.ReadAt(got, e.off); n != e.n || err != nil && !errors.Is(err, io.EOF) {
		return -1
	}
	if !bytes.Equal(got, text) {
		return -1
	}
	return i
}

// MayFind reports whether Find may find anything: the lock is not read
// yet, or it was read by deferring its tools, at the current schema
// level. A caller that would render texts only for Find need not when it
// is false.
func (d *Deferred) MayFind() bool {
	if d == nil {
		return false
	}
	if !d.Ready() {
		return true
	}
	return d.plain == nil && d.l != nil && d.l.SchemaVersion == CurrentSchemaVersion && len(d.slots) > 0
}

// LeaveUnloaded says that the caller builds the entries it takes with
// Builder.BuildToolFound, without their skeletons' compact text, and reads
// them again (Lock.Load) before it writes or hashes the lock, or the one
// it built, anew. Called before the first build; Unloaded reports it.
func (d *Deferred) LeaveUnloaded() { d.unloaded = true }

// Unloaded reports whether LeaveUnloaded was called.
func (d *Deferred) Unloaded() bool { return d != nil && d.unloaded }

// ref is the place of the entry at slot, found by Find, to read it again
// from.
func (d *Deferred) ref(slot int) *entryRef { return &d.refs[slot] }

// Take makes t the lock's tool entry at slot, which Find found for the
// text BuildToolText rendered for t (kept whole). Safe for concurrent
// use.
func (d *Deferred) Take(slot int, t Tool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.slots[slot].t == nil {
		d.slots[slot].t = &t
	}
}

// Finish reads the tool entries no built tool was taken for, on every
// core, and returns the lock, or the refusal ReadFileContext gives for
// it: any refusal, and a change to the file since it was first read,
// reads it again the plain way. The Deferred is done with after.
func (d *Deferred) Finish(ctx context.Context) (*Lock, error) {
	d.Wait()
	if d.err != nil {
		return nil, d.err
	}
	if d.plain != nil {
		return d.plain, nil
	}
	l, err := d.finish()
	d.file.Close()
	if err != nil {
		return ReadFileContext(ctx, d.path)
	}
	return l, nil
}

func (d *Deferred) finish() (*Lock, error) {
	if d.allTaken() {
		// Nothing to read: the entries are the built ones, copied once.
		tools := make([]Tool, len(d.slots))
		for i, e := range d.slots {
			tools[i] = *e.t
		}
		return d.finished(tools)
	}
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 {
		workers = 0
	}
	w := newToolWork(workers)
	defer w.stop()
	p := jsonv.Path{}.Key("tools")
	for i, e := range d.slots {
		if e.t != nil {
			w.slots = append(w.slots, &toolSlot{t: *e.t, seq: i + 1})
			continue
		}
		if w.failed.Load() {
			break
		}
		raw := w.rawBuffer()
		if cap(raw) < e.n {
			raw = make([]byte, e.n)
		}
		raw = raw[:e.n]
		if n, err := d.file.ReadAt(raw, e.off); n != e.n || err != nil && !errors.Is(err, io.EOF) {
			return nil, errPlain
		}
		w.add(toolJob{p: p.Index(i), sv: d.l.SchemaVersion, seq: i + 1, raw: raw})
	}
	tools, err, _ := w.wait()
	if err != nil {
		return nil, err
	}
	return d.finished(tools)
}

// allTaken reports whether a built entry was taken for every tool entry.
func (d *Deferred) allTaken() bool {
	for _, e := range d.slots {
		if e.t == nil {
			return false
		}
	}
	return true
}

// finished is the lock with its tool entries, once the file is seen to be
// the one first read.
func (d *Deferred) finished(tools []Tool) (*Lock, error) {
	if now, ok := d.file.Stamp(); !ok || now != d.stamp {
		return nil, errPlain
	}
	l := d.l
	l.Tools = tools
	if l.Tools == nil {
		l.Tools = []Tool{}
	}
	return l, nil
}

package lock

import (
	"bytes"
	"context"
	"errors"
	"hash/maphash"
	"io"
	"runtime"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
)

// RawIndex locates each tool entry's text, as it stands in a lock file,
// and the entry read from it, so that reading a second lock (diff's B)
// need not check again an entry whose text is one the first lock holds:
// the same bytes at the same place in a lock at the same schema level
// are read into the same entry, with the same digest. An entry of the
// second lock is looked up by its text's key (entryKey, seeded for this
// index alone), and then compared byte for byte with the text
// read again from the first lock's file, which the index keeps open: a
// collision, chosen or by chance, costs a comparison and nothing else.
// Close releases the file.
type RawIndex struct {
	schemaVersion int
	seed          maphash.Seed
	file          *infile.File
	// stamp is the file's as it was opened: an entry is taken from the
	// file only while it is unchanged (see infile.File.Stamp).
	stamp   infile.Stamp
	entries map[uint64]rawEntry
}

// rawEntry is one tool entry of an indexed lock: where its text stands
// in the file, and the entry read from it.
type rawEntry struct {
	off int64
	n   int
	t   *Tool
}

// Close closes the indexed lock's file; the index then matches nothing.
// A nil index is closed already.
func (x *RawIndex) Close() error {
	if x == nil || x.file == nil {
		return nil
	}
	err := x.file.Close()
	x.file = nil
	return err
}

// match returns the entry whose text is raw in a lock at schema level
// sv, or nil; buf is scratch space for the text read again.
func (x *RawIndex) match(raw []byte, sv int, buf *[]byte) *Tool {
	if x == nil || x.file == nil || x.schemaVersion != sv {
		return nil
	}
	e, ok := x.entries[entryKey(x.seed, raw)]
	if !ok || e.n != len(raw) {
		return nil
	}
	if cap(*buf) < e.n {
		*buf = make([]byte, e.n)
	}
	text := (*buf)[:e.n]
	if n, err := x.file.ReadAt(text, e.off); n != e.n || err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	if !bytes.Equal(text, raw) {
		return nil
	}
	return e.t
}

// unchanged reports whether the indexed lock's file is as it was when it
// was read: what match read again is then what was checked.
func (x *RawIndex) unchanged() bool {
	if x == nil || x.file == nil {
		return true
	}
	now, ok := x.file.Stamp()
	return ok && now == x.stamp
}

// errPlain stops a read by entry texts (see ReadFileIndexed) where only
// the plain read is sure to give what it gives.
var errPlain = errors.New("read the plain way")

// ReadFileIndexed reads the lock at path as ReadFileContext does and
// returns with it, when prior is nil, the index of its tool entries'
// texts (nil when it could not be made; Close it when done). With prior,
// the index of a lock the caller has verified (Verify), an entry whose
// text prior holds, in a lock at the same schema level, is prior's
// entry, and is neither transcoded nor hashed again; Verify still checks
// the lock's order and overall digest over it.
//
// Each tool entry is cut out as text (jsonv.Decoder.RawContainer) by
// the reading goroutine and read, checked and hashed on its own by a
// worker, one each core, unless prior holds it. Any refusal, and any
// lock this cannot read exactly as ReadFileContext does (tools before
// schema_version, an inspection block, whose bound depends on the place
// in the file), sends it to ReadFileContext, whose result or refusal is
// the one returned: the refusals are the plain read's, word for word. So
// does a change to prior's file while this one is read.
func ReadFileIndexed(ctx context.Context, path string, prior *RawIndex) (*Lock, *RawIndex, error) {
	return readFileIndexed(ctx, path, prior, false)
}

// ReadFileLazy is ReadFileIndexed leaving out the compact text of the
// tool entries' skeletons, which a lock that is only compared holds for
// the few entries whose schemas differ: each entry is still read, checked
// and hashed whole, but its SchemaSkeleton and OutputSchemaSkeleton stand
// empty until LoadDiffering reads them again from the file. Such a lock
// is for comparing alone: it must never be written. A lock read the
// plain way (see ReadFileIndexed) comes back whole.
func ReadFileLazy(ctx context.Context, path string, prior *RawIndex) (*Lock, *RawIndex, error) {
	return readFileIndexed(ctx, path, prior, true)
}

func readFileIndexed(ctx context.Context, path string, prior *RawIndex, lazy bool) (*Lock, *RawIndex, error) {
	if l, x, err := readIndexed(ctx, path, prior, lazy); err == nil {
		return l, x, nil
	}
	l, err := ReadFileContext(ctx, path)
	return l, nil, err
}

func readIndexed(ctx context.Context, path string, prior *RawIndex, lazy bool) (_ *Lock, _ *RawIndex, err error) {
	f, err := infile.Open(path, noun, MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	var x *RawIndex
	if prior == nil {
		if stamp, ok := f.Stamp(); ok {
			x = &RawIndex{seed: maphash.MakeSeed(), file: f, stamp: stamp}
		}
	}
	defer func() {
		if x == nil || err != nil {
			f.Close()
		}
	}()
	f.WithContext(ctx)
	// The reading goroutine only cuts the tool entries out; the workers
	// read, check and hash them, one each core.
	ld := &lockDecoder{d: jsonv.NewDecoder(f, jsonv.Options{MaxDepth: canon.MaxDepth}), l: &Lock{Findings: []Finding{}}, byText: true}
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 {
		workers = 0
	}
	ld.work = newToolWork(workers)
	ld.work.prior, ld.work.index, ld.work.lazy = prior, x, lazy
	var stamp infile.Stamp
	if lazy {
		var ok bool
		if stamp, ok = f.Stamp(); !ok {
			return nil, nil, errPlain
		}
	}
	l, err := ld.run()
	ld.work.stop()
	if err != nil {
		return nil, nil, err
	}
	if ld.plain || !prior.unchanged() {
		return nil, nil, errPlain
	}
	if lazy && len(ld.work.slots) != len(l.Tools) {
		return nil, nil, errPlain
	}
	if lazy {
		// Each entry left without its skeletons is read again from its
		// own place in this file (an entry taken from the prior lock is
		// these same bytes).
		src := &entrySource{path: path, stamp: stamp, at: make([]entryPlace, len(ld.work.slots))}
		refs := make([]entryRef, len(ld.work.slots))
		for i, s := range ld.work.slots {
			src.at[i] = entryPlace{off: s.off, n: s.n}
			refs[i] = entryRef{src: src, i: i}
			if l.Tools[i].unloaded {
				l.Tools[i].ref = &refs[i]
			}
		}
	}
	if x == nil {
		return l, nil, nil
	}
	x.schemaVersion = l.SchemaVersion
	x.entries = make(map[uint64]rawEntry, len(l.Tools))
	for i, s := range ld.work.slots {
		if _, seen := x.entries[s.key]; !seen {
			x.entries[s.key] = rawEntry{off: s.off, n: s.n, t: &l.Tools[i]}
		}
	}
	return l, x, nil
}

// entryDepth is the depth of a tool entry in a lock document (root
// object, tools array): an entry read on its own is checked against the
// depth bound less that, as the document's reader checks it.
const entryDepth = 2

// textTool cuts out the tool entry at the current position, the item i
// of the tools array at p, as text, for a worker to read (see
// toolWorker.readText).
func (ld *lockDecoder) textTool(p jsonv.Path, i int) error {
	if !ld.svSeen {
		ld.plain = true
		return errPlain
	}
	// The entry is cut where its indentation says it ends: a guess that
	// holds exactly when the text is read whole, as every text cut here
	// is (here by a worker, for a Deferred by Finish unless a built
	// entry of the same bytes is taken for it), and any that is not
	// makes the lock be read the plain way.
	view, err := ld.d.LaidContainerView(MaxFileBytes)
	if err != nil {
		return err
	}
	if ld.deferred != nil {
		// Only noted: the text need not be copied out of the window.
		ld.deferred.note(view, ld.d.Offset())
		return nil
	}
	raw := append(ld.work.rawBuffer(), view...)
	j := toolJob{p: p.Index(i), sv: ld.l.SchemaVersion, raw: raw, off: ld.d.Offset() - int64(len(raw))}
	ld.unit(func(seq int) {
		j.seq = seq
		ld.work.add(j)
	})
	return nil
}

// readText reads the entry of a job cut out as text: it is the prior
// index's entry when the index holds its text (done is then set, and
// the slot holds it), or else it is read on its own, leaving the job as
// toolItems leaves it for do. Any refusal, and an inspection block, is
// errPlain: the lock is then read the plain way.
func (tw *toolWorker) readText(j *toolJob, w *toolWork) (done bool, err error) {
	j.slot.off, j.slot.n = j.off, len(j.raw)
	if w.index != nil {
		j.slot.key = entryKey(w.index.seed, j.raw)
	}
	if t := w.prior.match(j.raw, j.sv, &tw.again); t != nil {
		j.slot.t = *t
		return true, nil
	}
	tw.text.Options = jsonv.Options{MaxDepth: canon.MaxDepth - entryDepth}
	// The entry's values are dropped once do has checked it (a tool
	// keeps strings only: an inspection block is read the plain way), so
	// the next entry's are carved from the same blocks.
	sub := tw.text.DecoderOver(j.raw)
	ld := &tw.member
	ld.d, ld.work = sub, w
	v, err := ld.entry(toolKeys, func(obj *jsonv.Value, key string) (bool, error) {
		if key == "inspection" {
			return true, errPlain
		}
		return ld.toolMember(j, obj, key)
	})
	if err == nil {
		err = sub.Finish()
	}
	ld.d = nil
	if err != nil {
		return false, errPlain
	}
	j.v = v
	return false, nil
}

package lock

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
)

// RawIndex maps the SHA-256 of each tool entry's text, as it stands in a
// lock file, to the entry read from it, so that reading a second lock
// (diff's B) need not check again an entry whose text is one the first
// lock holds: the same bytes at the same place in a lock at the same
// schema level are read into the same entry, with the same digest.
type RawIndex struct {
	schemaVersion int
	tools         map[[sha256.Size]byte]*Tool
}

// lookup returns the entry whose text hashes to sum in a lock at schema
// level sv, or nil.
func (x *RawIndex) lookup(sum [sha256.Size]byte, sv int) *Tool {
	if x == nil || x.schemaVersion != sv {
		return nil
	}
	return x.tools[sum]
}

// errPlain stops a read by entry texts (see ReadFileIndexed) where only
// the plain read is sure to give what it gives.
var errPlain = errors.New("read the plain way")

// ReadFileIndexed reads the lock at path as ReadFileContext does and
// returns with it the index of its tool entries' texts (nil when it could
// not be made). With prior, the index of a lock the caller has verified
// (Verify), an entry whose text prior holds, in a lock at the same schema
// level, is prior's entry, and is neither transcoded nor hashed again but
// for its text's SHA-256; Verify still checks the lock's order and
// overall digest over it.
//
// Without prior the lock is read the plain way, each tool entry's text
// held (jsonv.Decoder.Hold) to be hashed. With prior, each entry is cut
// out as text (jsonv.Decoder.RawContainer) and, unless prior holds it,
// read on its own. Any refusal, and any lock this cannot read exactly as
// ReadFileContext does (tools before schema_version, an inspection block,
// whose bound depends on the place in the file), sends it to
// ReadFileContext, whose result or refusal is the one returned: the
// refusals are the plain read's, word for word.
func ReadFileIndexed(ctx context.Context, path string, prior *RawIndex) (*Lock, *RawIndex, error) {
	if l, x, err := readIndexed(ctx, path, prior); err == nil {
		return l, x, nil
	}
	l, err := ReadFileContext(ctx, path)
	return l, nil, err
}

func readIndexed(ctx context.Context, path string, prior *RawIndex) (*Lock, *RawIndex, error) {
	f, err := infile.Open(path, noun, MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	f.WithContext(ctx)
	// Without a prior the lock is read the plain way, holding each tool
	// entry's text to hash it; with one, by entry texts.
	ld := &lockDecoder{d: jsonv.NewDecoder(f, jsonv.Options{MaxDepth: canon.MaxDepth}), l: &Lock{Findings: []Finding{}}, prior: prior, index: true, byText: prior != nil}
	ld.work = newToolWork(defaultWorkers())
	l, err := ld.run()
	ld.work.stop()
	if err != nil {
		return nil, nil, err
	}
	if ld.plain {
		return nil, nil, errPlain
	}
	if len(ld.pending) > 0 || len(ld.sums) != len(l.Tools) {
		// Read the plain way, but its entries are not in file order.
		return l, nil, nil
	}
	x := &RawIndex{schemaVersion: l.SchemaVersion, tools: make(map[[sha256.Size]byte]*Tool, len(l.Tools))}
	for i, s := range ld.sums {
		// An entry with an inspection block is refused past a bound
		// that depends on its place in the file: it is read again.
		if l.Tools[i].Inspection == nil {
			x.tools[s] = &l.Tools[i]
		}
	}
	return l, x, nil
}

// entryDepth is the depth of a tool entry in a lock document (root
// object, tools array): an entry read on its own is checked against the
// depth bound less that, as the document's reader checks it.
const entryDepth = 2

// textTool reads the tool entry at the current position, the item i of
// the tools array at p, by its text (see ReadFileIndexed).
func (ld *lockDecoder) textTool(p jsonv.Path, i int) error {
	if !ld.svSeen {
		ld.plain = true
		return errPlain
	}
	buf, err := ld.d.RawContainer(ld.raw[:0], MaxFileBytes)
	ld.raw = buf
	if err != nil {
		return err
	}
	sum := sha256.Sum256(buf)
	ld.sums = append(ld.sums, sum)
	if t := ld.prior.lookup(sum, ld.l.SchemaVersion); t != nil {
		ld.unit(func(seq int) { ld.work.done(*t, seq) })
		return nil
	}
	// The entry's own decoder: its values are the job's, so it reads a
	// copy of the text, not the buffer the next entry is cut into.
	raw := bytes.Clone(buf)
	sub := jsonv.NewBytesDecoder(raw, jsonv.Options{MaxDepth: canon.MaxDepth - entryDepth})
	doc := ld.d
	ld.d = sub
	j := toolJob{p: p.Index(i), sv: ld.l.SchemaVersion}
	v, err := ld.entry(toolKeys, func(obj *jsonv.Value, key string) (bool, error) {
		if key == "inspection" {
			ld.plain = true
			return true, errPlain
		}
		return ld.toolMember(&j, obj, key)
	})
	if err == nil {
		err = sub.Finish()
	}
	ld.d = doc
	if err != nil {
		return err
	}
	j.v = v
	ld.unit(func(seq int) {
		j.seq = seq
		ld.work.add(j)
	})
	return nil
}

// done adds an entry already read, as add adds one checked.
func (w *toolWork) done(t Tool, seq int) {
	w.slots = append(w.slots, &toolSlot{t: t, seq: seq})
}

package lock

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
)

// entrySource is where the tool entries of a lock read lazily stand in
// its file: their skeletons are read from there again when a comparison
// needs them.
type entrySource struct {
	path string
	// stamp is the file's as it was read: it is read again only while
	// unchanged (see infile.File.Stamp).
	stamp infile.Stamp
	// at is each tool entry's place, in the order of the lock's Tools.
	at []entryPlace
}

// entryRef is one tool entry of an entrySource: the place at index i.
type entryRef struct {
	src *entrySource
	i   int
}

// entryPlace is where one entry's text stands in a file.
type entryPlace struct {
	off int64
	n   int
}

// LoadDiffering reads, in two locks read lazily (ReadFileLazy), the
// skeletons of the tools that drift.Compare will look at: those named in
// both whose input schema hashes, or output schema hashes, differ. Each
// entry read again must be the one that was checked (the same digest of
// its body); a lock whose file changed since, or that is not read lazily
// (whole already), is left as it is when nothing of it is needed, and
// otherwise refused.
func LoadDiffering(ctx context.Context, a, b *Lock) error {
	var needA, needB []int
	if !anyUnloaded(a.Tools) && !anyUnloaded(b.Tools) {
		return nil
	}
	if sortedByName(a.Tools) && sortedByName(b.Tools) {
		// The common case (both locks in the order warden writes): one
		// walk over the two lists, name group by name group.
		needA, needB = differingSorted(a.Tools, b.Tools)
	} else {
		needA, needB = differingIndexed(a.Tools, b.Tools)
	}
	if err := a.load(ctx, needA); err != nil {
		return err
	}
	return b.load(ctx, needB)
}

// differingIndexed is differingSorted for tools in any order, through an
// index of each list by name.
func differingIndexed(a, b []Tool) (needA, needB []int) {
	am, bm := indexByName(a), indexByName(b)
	for i := range a {
		if t := &a[i]; t.unloaded && bm.differs(t, b) {
			needA = append(needA, i)
		}
	}
	for i := range b {
		if t := &b[i]; t.unloaded && am.differs(t, a) {
			needB = append(needB, i)
		}
	}
	return needA, needB
}

// anyUnloaded reports whether any of tools stands without its skeletons.
func anyUnloaded(tools []Tool) bool {
	for i := range tools {
		if tools[i].unloaded {
			return true
		}
	}
	return false
}

// sortedByName reports whether tools are in name order (byte order, as
// Builder.Finish sorts them; repeated names next to each other).
func sortedByName(tools []Tool) bool {
	for i := 1; i < len(tools); i++ {
		if tools[i].Name < tools[i-1].Name {
			return false
		}
	}
	return true
}

// differingSorted is what LoadDiffering loads of a and b, both in name
// order: the unloaded entries of each whose schema hashes differ from
// those of an entry of the same name in the other.
func differingSorted(a, b []Tool) (needA, needB []int) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].Name < b[j].Name:
			i++
		case a[i].Name > b[j].Name:
			j++
		default:
			name := a[i].Name
			ai, bj := i, j
			for i < len(a) && a[i].Name == name {
				i++
			}
			for j < len(b) && b[j].Name == name {
				j++
			}
			needA = appendDiffering(needA, a, ai, i, b[bj:j])
			needB = appendDiffering(needB, b, bj, j, a[ai:i])
		}
	}
	return needA, needB
}

// appendDiffering appends to need the indexes from lo to hi of the
// unloaded entries of tools whose schemas differ from any of others.
func appendDiffering(need []int, tools []Tool, lo, hi int, others []Tool) []int {
	for k := lo; k < hi; k++ {
		t := &tools[k]
		if !t.unloaded {
			continue
		}
		for o := range others {
			if others[o].InputSchemaHash != t.InputSchemaHash || others[o].OutputSchemaHash != t.OutputSchemaHash {
				need = append(need, k)
				break
			}
		}
	}
	return need
}

// toolsByName indexes a lock's tools by name without an allocation per
// tool (a check calls LoadDiffering on two locks of thousands each): first
// is the first entry of each name, next the entry after each one with its
// name (-1: none).
type toolsByName struct {
	first map[string]int
	next  []int
}

func indexByName(tools []Tool) toolsByName {
	x := toolsByName{first: make(map[string]int, len(tools)), next: make([]int, len(tools))}
	last := make(map[string]int)
	for i := range tools {
		x.next[i] = -1
		name := tools[i].Name
		if _, ok := x.first[name]; !ok {
			x.first[name] = i
			continue
		}
		// A repeated name (rare): chained from the last one seen.
		j, ok := last[name]
		if !ok {
			j = x.first[name]
		}
		x.next[j] = i
		last[name] = i
	}
	return x
}

// differs reports whether t's schemas differ from those of any entry of
// the same name among tools, which x indexes.
func (x toolsByName) differs(t *Tool, tools []Tool) bool {
	i, ok := x.first[t.Name]
	if !ok {
		return false
	}
	for ; i >= 0; i = x.next[i] {
		if o := &tools[i]; o.InputSchemaHash != t.InputSchemaHash || o.OutputSchemaHash != t.OutputSchemaHash {
			return true
		}
	}
	return false
}

// Load reads again, whole, every tool entry of l that was read or built
// without its skeletons' compact text (see ReadFileLazy and
// Builder.BuildToolFound): a lock must be whole before it is written,
// hashed anew or compared beyond its hashes. Each entry read again must be
// the one that was checked (the same digest of its body), from a file
// unchanged since; nothing is read for a lock that is whole.
func (l *Lock) Load(ctx context.Context) error {
	var need []int
	for i := range l.Tools {
		if l.Tools[i].unloaded {
			need = append(need, i)
		}
	}
	return l.load(ctx, need)
}

// Whole reports whether the entry holds its skeletons' text: it was not
// left without it (see Lock.Load).
func (t *Tool) Whole() bool { return !t.unloaded }

// placeOf is where the unloaded entry at index i is read again from: its
// own reference, else the lock's source.
func (l *Lock) placeOf(i int) (*entrySource, int, error) {
	if r := l.Tools[i].ref; r != nil {
		return r.src, r.i, nil
	}
	if l.src == nil {
		return nil, 0, errors.New("lock read lazily without its source")
	}
	return l.src, i, nil
}

// load reads the entries at the indexes need again, whole.
func (l *Lock) load(ctx context.Context, need []int) error {
	if len(need) == 0 {
		return nil
	}
	// Most often one file: the lock's, or the one its entries were taken
	// from.
	files := map[*entrySource]*infile.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	changed := func(src *entrySource) error {
		return fmt.Errorf("read lock %s: the file changed while it was being read", src.path)
	}
	w := newToolWork(0)
	p := jsonv.Path{}.Key("tools")
	for _, i := range need {
		src, at, err := l.placeOf(i)
		if err != nil {
			return err
		}
		f := files[src]
		if f == nil {
			if f, err = infile.Open(src.path, noun, MaxFileBytes); err != nil {
				return err
			}
			files[src] = f
			f.WithContext(ctx)
			if now, ok := f.Stamp(); !ok || now != src.stamp {
				return changed(src)
			}
		}
		place := src.at[at]
		raw := make([]byte, place.n)
		if n, err := f.ReadAt(raw, place.off); n != place.n || err != nil && !errors.Is(err, io.EOF) {
			return changed(src)
		}
		w.add(toolJob{p: p.Index(at), sv: l.SchemaVersion, seq: len(w.slots) + 1, raw: raw})
		s := w.slots[len(w.slots)-1]
		t, old := s.t, &l.Tools[i]
		// The entry read again is the one checked: the same body digest.
		if s.err != nil || t.unloaded || t.memo == nil || old.memo == nil || t.memo.digest != old.memo.digest || t.EntryDigest != old.EntryDigest {
			return changed(src)
		}
		*old = t
	}
	for src, f := range files {
		if now, ok := f.Stamp(); !ok || now != src.stamp {
			return changed(src)
		}
	}
	return nil
}

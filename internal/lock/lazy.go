package lock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
)

// entrySource is where the tool entries of a lock file stand, for those
// read or taken without their skeletons (ReadFileLazy, a Deferred's
// entries taken by Builder.BuildToolFound): their skeletons are read from
// there again when they are needed (Lock.Load, LoadDiffering).
type entrySource struct {
	path string
	// stamp is the file's as it was read: it is read again only while
	// unchanged (see infile.File.Stamp).
	stamp infile.Stamp
	// at is each tool entry's place, in file order.
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

// LoadDiffering reads, in two locks some of whose entries stand without
// their skeletons (ReadFileLazy, Builder.BuildToolFound), the skeletons of
// the tools that drift.Compare will look at: those named in
// both whose input schema hashes, or output schema hashes, differ. Each
// entry read again must be the one that was checked (the same digest of
// its body); a lock whose file changed since, or that is not read lazily
// (whole already), is left as it is when nothing of it is needed, and
// otherwise refused.
func LoadDiffering(ctx context.Context, a, b *Lock) error {
	if !anyUnloaded(a.Tools) && !anyUnloaded(b.Tools) {
		return nil
	}
	needA, needB := differing(a.Tools, b.Tools)
	if err := a.load(ctx, needA); err != nil {
		return err
	}
	return b.load(ctx, needB)
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

// differing returns the indexes, in a and in b, of the unloaded entries
// whose schema hashes differ from those of an entry of the same name in
// the other list. The two are walked in name order, name group by name
// group, with no index of names: as they stand when in that order (as
// warden writes them), else through an order sorted for the walk.
func differing(a, b []Tool) (needA, needB []int) {
	oa, ob := nameOrder(a), nameOrder(b)
	i, j := 0, 0
	for i < len(oa) && j < len(ob) {
		x, y := a[oa[i]].Name, b[ob[j]].Name
		switch {
		case x < y:
			i++
		case x > y:
			j++
		default:
			ai, bj := i, j
			for i < len(oa) && a[oa[i]].Name == x {
				i++
			}
			for j < len(ob) && b[ob[j]].Name == x {
				j++
			}
			needA = appendDiffering(needA, a, oa[ai:i], b, ob[bj:j])
			needB = appendDiffering(needB, b, ob[bj:j], a, oa[ai:i])
		}
	}
	slices.Sort(needA)
	slices.Sort(needB)
	return needA, needB
}

// nameOrder is the indexes of tools in name order (byte order, as
// Builder.Finish sorts them).
func nameOrder(tools []Tool) []int {
	order := make([]int, len(tools))
	sorted := true
	for i := range order {
		order[i] = i
		if i > 0 && tools[i].Name < tools[i-1].Name {
			sorted = false
		}
	}
	if !sorted {
		slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(tools[x].Name, tools[y].Name) })
	}
	return order
}

// appendDiffering appends to need those of the entries of tools at idx
// that are unloaded and whose schemas differ from any of the entries of
// others at oidx.
func appendDiffering(need []int, tools []Tool, idx []int, others []Tool, oidx []int) []int {
	for _, k := range idx {
		t := &tools[k]
		if !t.unloaded {
			continue
		}
		for _, o := range oidx {
			if others[o].InputSchemaHash != t.InputSchemaHash || others[o].OutputSchemaHash != t.OutputSchemaHash {
				need = append(need, k)
				break
			}
		}
	}
	return need
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

// placeOf is where the unloaded entry at index i is read again from.
func (l *Lock) placeOf(i int) (*entrySource, int, error) {
	r := l.Tools[i].ref
	if r == nil {
		return nil, 0, errors.New("lock entry left without its skeletons and without its source")
	}
	return r.src, r.i, nil
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

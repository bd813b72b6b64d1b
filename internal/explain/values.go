package explain

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/jsonv"
)

// Bounds of a value diff. A schema can hold hundreds of thousands of
// values, so the walk stops after maxDiffNodes nodes (the result then says
// it is incomplete), and only the first maxCollected differing paths are
// kept to be chosen from; the rest are counted.
const (
	maxDiffNodes = 1 << 20
	maxCollected = 4096
)

// valueChange is one differing path, before it is rendered: the values
// stay pointers until a change is chosen for display.
type valueChange struct {
	path     string
	old, new *jsonv.Value
}

// valueDiff is the differing paths of two JSON values.
type valueDiff struct {
	changes []valueChange
	// total counts every differing path found, kept or not.
	total int
	// incomplete is set when the walk stopped at maxDiffNodes.
	incomplete bool
	nodes      int
	stack      []string
	// byPath indexes changes in path order (see under), made on first use.
	byPath []int
	// own, when set, keeps the walk out of the "properties" and "items"
	// of the node it starts at: only that node's own keywords count.
	own bool
	top int
}

// diffValues lists the paths whose values differ between a and b, nil
// standing for an absent value. Objects are compared member by member
// (order ignored, as the canonical form ignores it), arrays of containers
// index by index, and arrays of scalars (an enum, a required list, a type
// list) as one value. A container present on one side only is listed
// leaf by leaf, so each of its values shows on its own path.
func diffValues(a, b *jsonv.Value) *valueDiff {
	return diffUnder(nil, a, b)
}

// diffUnder is diffValues of two values found at the path segs.
func diffUnder(segs []string, a, b *jsonv.Value) *valueDiff {
	d := &valueDiff{stack: append([]string(nil), segs...)}
	d.walk(a, b)
	return d
}

// diffOwn is diffUnder of two schema nodes' own keywords: not their
// child properties or items, which have paths (and items) of their own.
func diffOwn(segs []string, a, b *jsonv.Value) *valueDiff {
	d := &valueDiff{stack: append([]string(nil), segs...), own: true, top: len(segs)}
	d.walk(a, b)
	return d
}

// skip reports whether a member is a child schema diffOwn leaves out.
func (d *valueDiff) skip(key string) bool {
	return d.own && len(d.stack) == d.top && (key == "properties" || key == "items")
}

// MaxPathBytes bounds a PathChange's path (its keys are server text);
// a longer path is cut and its change marked Clipped.
const MaxPathBytes = 1024

// pathText renders the current path: JSON Pointer segments (with ~0 and
// ~1 escapes) joined by "/", without the leading "/"; "" is the root. It
// writes at most about MaxPathBytes, so a deep path costs no more.
func (d *valueDiff) pathText() string {
	return joinPath(d.stack)
}

// joinPath joins raw segments as pathText does.
func joinPath(segs []string) string {
	var b strings.Builder
	for i, s := range segs {
		if b.Len() > MaxPathBytes {
			break
		}
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(escapeSegment(s))
	}
	return b.String()
}

func escapeSegment(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func (d *valueDiff) add(a, b *jsonv.Value) {
	d.total++
	if len(d.changes) < maxCollected {
		d.changes = append(d.changes, valueChange{d.pathText(), a, b})
	}
}

func (d *valueDiff) walk(a, b *jsonv.Value) {
	d.nodes++
	if d.nodes > maxDiffNodes {
		d.incomplete = true
		return
	}
	switch {
	case a == nil && b == nil:
		return
	case a == nil || b == nil:
		if x := nonNil(a, b); isContainer(x) && !isScalarArray(x) && size(x) > 0 {
			d.walkChildren(a, b)
			return
		}
		d.add(a, b)
	case a.Kind == jsonv.Object && b.Kind == jsonv.Object:
		d.walkChildren(a, b)
	case a.Kind == jsonv.Array && b.Kind == jsonv.Array && !(isScalarArray(a) && isScalarArray(b)):
		d.walkChildren(a, b)
	default:
		if !d.equal(a, b) {
			d.add(a, b)
		}
	}
}

// walkChildren walks the members or items of a and b (either may be nil,
// not both; when both are set they are of one container kind).
func (d *valueDiff) walkChildren(a, b *jsonv.Value) {
	x := nonNil(a, b)
	if x.Kind == jsonv.Array {
		n := max(size(a), size(b))
		for i := 0; i < n && !d.incomplete; i++ {
			d.stack = append(d.stack, strconv.Itoa(i))
			d.walk(item(a, i), item(b, i))
			d.stack = d.stack[:len(d.stack)-1]
		}
		return
	}
	bm := members(b)
	for _, m := range membersOf(a) {
		if d.incomplete {
			return
		}
		if d.skip(m.Key) {
			continue
		}
		d.stack = append(d.stack, m.Key)
		d.walk(m.Value, bm.get(m.Key))
		d.stack = d.stack[:len(d.stack)-1]
	}
	am := members(a)
	for _, m := range membersOf(b) {
		if d.incomplete {
			return
		}
		if am.has(m.Key) || d.skip(m.Key) {
			continue
		}
		d.stack = append(d.stack, m.Key)
		d.walk(nil, m.Value)
		d.stack = d.stack[:len(d.stack)-1]
	}
}

// equal is equality of the canonical forms: members in any order, numbers
// by value. It counts its nodes against the walk's budget.
func (d *valueDiff) equal(a, b *jsonv.Value) bool {
	d.nodes++
	if d.nodes > maxDiffNodes {
		d.incomplete = true
		return false
	}
	if a.IsNumber() && b.IsNumber() {
		if a.Text == b.Text {
			return true
		}
		x, xok := a.Float64()
		y, yok := b.Float64()
		return xok && yok && x == y
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case jsonv.Null:
		return true
	case jsonv.Bool:
		return a.Bool == b.Bool
	case jsonv.String:
		return a.Text == b.Text
	case jsonv.Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !d.equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Members) != len(b.Members) {
		return false
	}
	bm := members(b)
	for _, m := range a.Members {
		o := bm.get(m.Key)
		if o == nil || !d.equal(m.Value, o) {
			return false
		}
	}
	return true
}

// memberIndex looks up an object's members: linearly when it is small,
// through a map when it is wide, so a wide object is not quadratic.
type memberIndex struct {
	obj *jsonv.Value
	m   map[string]*jsonv.Value
}

func members(v *jsonv.Value) memberIndex {
	if v == nil || v.Kind != jsonv.Object {
		return memberIndex{}
	}
	if len(v.Members) <= 16 {
		return memberIndex{obj: v}
	}
	m := make(map[string]*jsonv.Value, len(v.Members))
	for _, x := range v.Members {
		m[x.Key] = x.Value
	}
	return memberIndex{obj: v, m: m}
}

func (x memberIndex) get(k string) *jsonv.Value {
	if x.m != nil {
		return x.m[k]
	}
	if x.obj == nil {
		return nil
	}
	return x.obj.Get(k)
}

func (x memberIndex) has(k string) bool { return x.get(k) != nil }

func membersOf(v *jsonv.Value) []jsonv.Member {
	if v == nil || v.Kind != jsonv.Object {
		return nil
	}
	return v.Members
}

func nonNil(a, b *jsonv.Value) *jsonv.Value {
	if a != nil {
		return a
	}
	return b
}

func isContainer(v *jsonv.Value) bool {
	return v != nil && (v.Kind == jsonv.Array || v.Kind == jsonv.Object)
}

func isScalarArray(v *jsonv.Value) bool {
	if v == nil || v.Kind != jsonv.Array {
		return false
	}
	for _, it := range v.Items {
		if isContainer(it) {
			return false
		}
	}
	return true
}

func size(v *jsonv.Value) int {
	switch {
	case v == nil:
		return 0
	case v.Kind == jsonv.Array:
		return len(v.Items)
	case v.Kind == jsonv.Object:
		return len(v.Members)
	}
	return 0
}

func item(v *jsonv.Value, i int) *jsonv.Value {
	if v == nil || v.Kind != jsonv.Array || i >= len(v.Items) {
		return nil
	}
	return v.Items[i]
}

// render turns chosen changes into PathChanges, their values clipped; a
// long string changed into another long string also gets a word diff,
// spending budget (see words).
func render(cs []valueChange, budget *int) []PathChange {
	out := make([]PathChange, 0, len(cs))
	for _, c := range cs {
		pc := pathChange(c.path, c.old, c.new)
		if pc.Clipped && c.old != nil && c.new != nil && c.old.Kind == jsonv.String && c.new.Kind == jsonv.String {
			pc.Words = present(words(c.old.Text, c.new.Text, budget))
		}
		out = append(out, pc)
	}
	return out
}

func pathChange(path string, old, new *jsonv.Value) PathChange {
	p, cut := clipString(path, MaxPathBytes)
	pc := PathChange{Path: p}
	if old != nil {
		s, c := jsonText(old)
		pc.Old, pc.Clipped = &s, c
	}
	if new != nil {
		s, c := jsonText(new)
		pc.New, pc.Clipped = &s, pc.Clipped || c
	}
	pc.Clipped = pc.Clipped || cut
	return pc
}

// under returns the kept changes at or under one of locs, in walk order,
// leaving out those inside a child's "properties" or "items"; a loc
// starting with "=" matches only itself. The changes under one loc are
// found by binary search, so each call costs about what it returns.
func (d *valueDiff) under(locs []string) []valueChange {
	if d.byPath == nil {
		d.byPath = make([]int, len(d.changes))
		for i := range d.byPath {
			d.byPath[i] = i
		}
		sort.SliceStable(d.byPath, func(i, j int) bool { return d.changes[d.byPath[i]].path < d.changes[d.byPath[j]].path })
	}
	var hits []int
	from := func(p string) int {
		return sort.Search(len(d.byPath), func(i int) bool { return d.changes[d.byPath[i]].path >= p })
	}
	for _, loc := range locs {
		exact, only := strings.CutPrefix(loc, "=")
		for i := from(exact); i < len(d.byPath) && d.changes[d.byPath[i]].path == exact; i++ {
			hits = append(hits, d.byPath[i])
		}
		if only {
			continue
		}
		prefix := loc + "/"
		if loc == "" {
			prefix = ""
		}
		for i := from(prefix); i < len(d.byPath); i++ {
			p := d.changes[d.byPath[i]].path
			rest, ok := strings.CutPrefix(p, prefix)
			if !ok {
				break
			}
			if rest == "" {
				continue // the root itself, counted above
			}
			if first, _, _ := strings.Cut(rest, "/"); first != "properties" && first != "items" {
				hits = append(hits, d.byPath[i])
			}
		}
	}
	slices.Sort(hits)
	hits = slices.Compact(hits)
	out := make([]valueChange, len(hits))
	for i, h := range hits {
		out[i] = d.changes[h]
	}
	return out
}

package skeleton

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// stepCost is what one walk step costs against MaxWork on top of the path it
// writes: roughly the memory of one record and its map slot, so the budget
// bounds record count as well as path bytes.
const stepCost = 64

// Extract returns the skeleton of schema (reference-behaviour §3.3): the
// root object is "$root", properties are dotted paths, single-schema items
// append "[]", same-document $refs are followed, and records are written in
// depth-first order so a later path overwrites an earlier one with the same
// text. A nil, null or otherwise non-object schema gives an empty skeleton.
//
// Extract never fails: the reference keeps whatever it gathered when its walk
// breaks, and this walk has no failure modes except the MaxWork bound, which
// stops it the same way (see MaxWork). The schema is not modified, but the
// records' Enum and Constraints values share nodes with it. The skeleton
// is read-only: Value, AppendCompact and WriteCanonical write the records
// as Extract made them, in an order worked out once.
func Extract(schema *jsonv.Value) *Skeleton {
	var x Extractor
	sk := x.Extract(schema)
	// Templates pay off over many skeletons, not one.
	sk.tm = nil
	return sk
}

// Extractor extracts skeletons as Extract does, keeping its buffers (the
// record map, path list and walk state) from one call to the next: a lock
// builder extracts thousands, each written out before the next. It also
// keeps the written texts of the commonest records for its skeletons'
// writers (see templates). A skeleton it returns is valid only until its
// next call. The zero Extractor is ready to use; it is not safe for
// concurrent use.
type Extractor struct {
	w  walker
	sk Skeleton
	tm templates
}

// Extract returns the skeleton of schema (see the package's Extract),
// valid until the next call.
func (x *Extractor) Extract(schema *jsonv.Value) *Skeleton {
	w := &x.w
	w.reset()
	if schema != nil && schema.Kind == jsonv.Object {
		w.root = schema
		// About one record per property and a few more: sized once, the
		// map does not grow record by record.
		if props := w.root.Get("properties"); props != nil && w.records == nil {
			w.records = make(map[string]Record, 2*len(props.Members)+4)
			w.order = make([]string, 0, 2*len(props.Members)+4)
		}
	}
	if w.records == nil {
		w.records = map[string]Record{}
	}
	if w.infos == nil {
		w.infos = map[*jsonv.Value]*nodeInfo{}
	}
	w.walk(schema, "", false, 0)
	// The walk visits properties in sorted order, depth first, so the
	// paths usually come out sorted already. Byte order of UTF-8 strings is
	// code-point order, Python's str order.
	paths := w.order
	if !w.inOrder && !sort.StringsAreSorted(paths) {
		sort.Strings(paths)
	}
	if paths == nil {
		paths = []string{}
	}
	// The records in path order, for the writers: as put kept them, or
	// else looked up in the buffer put used. A huge skeleton (a schema
	// that ran into MaxWork) is written from the map instead, rather than
	// held twice.
	var ordered []Record
	if len(paths) <= maxKept {
		ordered = w.recs
		if !w.inOrder {
			ordered = ordered[:0]
			for _, p := range paths {
				ordered = append(ordered, w.records[p])
			}
			w.recs = ordered
		}
	}
	// A slot's texts are good for this skeleton only: reset them all.
	x.tm.open = w.open
	var slots []int32
	if w.inOrder && ordered != nil && len(w.slotUses) > 0 {
		slots = w.slots
		for len(x.tm.slots) < len(w.slotUses) {
			x.tm.slots = append(x.tm.slots, texts{})
		}
	}
	for i := range x.tm.slots {
		n := 0
		if slots != nil && i < len(w.slotUses) {
			n = int(w.slotUses[i])
		}
		x.tm.slots[i].reset(n)
	}
	var keys []uint8
	if w.inOrder && ordered != nil && len(w.keys) == len(ordered) {
		keys = w.keys
	}
	x.sk = Skeleton{Paths: paths, Records: w.records, Incomplete: w.stopped, ordered: ordered, tm: &x.tm, slots: slots, keys: keys, plain: w.plainPaths}
	return &x.sk
}

// plainPath reports whether p is printable ASCII without a quote or
// backslash: its JSON string is p in quotes, and its UTF-16 order is its
// byte order. It looks at eight bytes at a time.
func plainPath(p string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(p); i += 8 {
		w := uint64(p[i]) | uint64(p[i+1])<<8 | uint64(p[i+2])<<16 | uint64(p[i+3])<<24 |
			uint64(p[i+4])<<32 | uint64(p[i+5])<<40 | uint64(p[i+6])<<48 | uint64(p[i+7])<<56
		// With no byte from 0x80 up, (x-n*ones)&^x has a high bit set
		// if and only if a byte of x is below n: a byte below 0x20, or
		// a zero byte of w xor a quote or backslash in every byte.
		q, b := w^('"'*ones), w^('\\'*ones)
		if w&highs != 0 || ((w-0x20*ones)&^w|(q-ones)&^q|(b-ones)&^b)&highs != 0 {
			return false
		}
	}
	for ; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// maxKept is the most records or node facts whose map a walk keeps for the
// next.
const maxKept = 1024

// reset clears the walk state for another schema, keeping the buffers.
func (w *walker) reset() {
	w.root = nil
	// Clearing a map costs its capacity: after a big schema start afresh.
	if len(w.records) > maxKept {
		w.records, w.order = nil, nil
	}
	if len(w.infos) > maxKept {
		w.infos = nil
	}
	clear(w.records)
	w.order = w.order[:0]
	clear(w.recs) // the records keep no schema nodes alive
	w.recs = w.recs[:0]
	w.slots = w.slots[:0]
	w.keys = w.keys[:0]
	w.slotUses = w.slotUses[:0]
	if cap(w.slotUses) > maxKept {
		w.slotUses = nil
	}
	w.inOrder = true
	w.plainPaths = true
	w.ancestors = w.ancestors[:0]
	clear(w.refs)
	clear(w.infos)
	clear(w.targets)
	clear(w.index)
	w.work = 0
	w.stopped = false
	w.vals.reset()
	w.members.reset()
	w.items.reset()
	w.strs.reset()
	w.infoSlab.reset()
	w.childSlab.reset()
	if cap(w.enumKeys) > maxKept {
		w.enumKeys = nil
	}
	if cap(w.childOrder) > maxKept {
		w.childOrder = nil
	}
	if cap(w.enumText) > 64*maxKept {
		w.enumText = nil
	}
	// One-type lists are shared across walks; a build of many odd type
	// names starts the table afresh now and then.
	if len(w.types) > maxKept {
		w.types = nil
	}
}

// put records rec at path; a path written again keeps its first place in
// the order and its last record, as the reference's dict does.
//
// While each path comes after the one before (the common case: the walk
// visits properties in sorted order, depth first), every path is new and
// the records are kept in order too, in recs, so that Extract need not
// sort the paths or look their records up again.
//
// keys gives the retained keys of rec's constraints (see Skeleton.keys).
func (w *walker) put(path string, rec Record, slot int32, keys uint8) {
	if w.plainPaths && !plainPath(path) {
		w.plainPaths = false
	}
	if w.inOrder {
		if n := len(w.order); n == 0 || w.order[n-1] < path {
			w.records[path] = rec
			w.order = append(w.order, path)
			if len(w.recs) < maxKept {
				w.recs = append(w.recs, rec)
				w.slots = append(w.slots, slot)
				w.keys = append(w.keys, keys)
			}
			return
		}
		w.inOrder = false
	}
	n := len(w.records)
	w.records[path] = rec
	if len(w.records) > n {
		w.order = append(w.order, path)
	}
}

// walker is the state of one Extract call.
type walker struct {
	// root is the schema when it is an object; $refs resolve against it. Nil
	// makes every $ref opaque.
	root    *jsonv.Value
	records map[string]Record
	// order lists the record paths in the order they were first written.
	order []string
	// inOrder says that every path put so far came after the one before;
	// recs then holds their records in the same order, up to maxKept of
	// them (see put).
	inOrder bool
	recs    []Record
	// slots are the slots of recs (0 for none), and slotUses the number
	// of records of each slot (see walker.slot).
	slots    []int32
	slotUses []int32
	// keys are the retained keys of recs' constraints (see
	// Skeleton.keys).
	keys []uint8
	// plainPaths says every path put so far is plain (see plainPath).
	plainPaths bool
	// ancestors are the object nodes on the current walk path, compared by
	// identity; at most MaxDepth+1 long, so a linear scan is cheap.
	ancestors []*jsonv.Value
	// refs are the ref strings followed on the current walk path.
	refs map[string]struct{}
	// infos caches each object node's facts. A node reached through many
	// refs is then analysed once, so repeated visits cost only their path.
	infos map[*jsonv.Value]*nodeInfo
	// targets caches pointer evaluation per raw ref string (nil: opaque).
	targets map[string]*jsonv.Value
	// index maps the keys of large objects that pointers step through, so a
	// pointer into a huge $defs is not a linear scan per ref.
	index   map[*jsonv.Value]map[string]*jsonv.Value
	work    int
	stopped bool
	// open is {"additionalProperties": true}, shared by every record that
	// says nothing more (nothing mutates a skeleton once built).
	open *jsonv.Value
	// frames are the nodeInfos of the nodes being walked, by depth (see
	// info); types shares one-element type lists.
	frames []*nodeInfo
	types  map[string][]string
	// jsonTypes are the one-element lists of jsonTypeNames.
	jsonTypes [len(jsonTypeNames)][]string
	// enumText holds the json.dumps texts normEnum sorts by; openLen is
	// the written size of open.
	enumText []byte
	enumKeys []enumKey
	openLen  int
	// childOrder is children's sorting scratch.
	childOrder []childOrder
	// The enum arrays, constraints objects and type lists of the records,
	// reused by the next walk (see slab).
	vals    slab[jsonv.Value]
	members slab[jsonv.Member]
	items   slab[*jsonv.Value]
	strs    slab[string]
	// The facts of the nodes kept in infos, and their children lists.
	infoSlab  slab[nodeInfo]
	childSlab slab[child]
}

// charge spends n units of MaxWork and reports whether the walk may go on.
func (w *walker) charge(n int) bool {
	if w.stopped {
		return false
	}
	w.work += n
	if w.work > MaxWork {
		w.stopped = true
		return false
	}
	return true
}

// walk is the reference's walk(node, path, required, ancestors, depth, refs);
// ancestors and refs live in w and are restored on return.
func (w *walker) walk(node *jsonv.Value, path string, required bool, depth int) {
	if !w.charge(stepCost + len(path)) {
		return
	}
	key := path
	if path == "" {
		key = "$root"
	}
	if node == nil || node.Kind != jsonv.Object {
		// Boolean schemas and other non-objects under a parent get an open,
		// untyped record; the parent's required flag is deliberately dropped,
		// as the reference does.
		if path != "" {
			w.put(path, Record{Constraints: w.openConstraints()}, 0, 1)
		}
		return
	}
	info := w.info(node, depth)
	// $ref is handled before the depth test, so a ref hop past MaxDepth still
	// resolves and it is the target that is truncated.
	if info.hasRef {
		r, isString := info.ref.Str()
		if info.refSibling || !isString {
			if !w.charge(len(info.literal)) {
				return
			}
			w.put(key, opaque(required, "$ref", jsonv.NewString(info.literal)), 0, 0)
			return
		}
		if !w.charge(len(r)) {
			return
		}
		t, res := w.resolve(r)
		switch res {
		case refOpaque:
			w.put(key, opaque(required, "$ref", jsonv.NewString(r)), 0, 0)
			return
		case refCycle:
			w.put(key, opaque(required, "_truncated", jsonv.NewBool(true)), 0, 0)
			return
		}
		if w.refs == nil {
			w.refs = map[string]struct{}{}
		}
		w.refs[r] = struct{}{}
		w.walk(t, path, required, depth+1)
		delete(w.refs, r)
		return
	}
	if depth > MaxDepth || w.isAncestor(node) {
		w.put(key, opaque(required, "_truncated", jsonv.NewBool(true)), 0, 0)
		return
	}
	// The enum and constraints are shared between visits but written out
	// once per record, so each record pays for their size.
	if !w.charge(info.weight) {
		return
	}
	w.ancestors = append(w.ancestors, node)
	w.put(key, Record{Type: info.typ, Required: required, Enum: info.enum, Constraints: info.cons}, w.slot(info, required), info.keys)
	// The children's paths are cut from one string, one allocation for
	// them all, unless together they are long: then each is made when
	// its walk comes, so that a walk stopped at MaxWork has not made the
	// rest.
	var paths string
	if path != "" {
		paths = w.childPaths(path, info)
	}
	for _, c := range info.props {
		if w.stopped {
			break
		}
		child := c.key
		if path != "" {
			n := len(path) + 1 + len(c.key)
			if len(paths) >= n {
				child, paths = paths[:n], paths[n:]
			} else {
				child = path + "." + c.key
			}
		}
		w.walk(c.node, child, c.required, depth+1)
	}
	if info.items != nil && !w.stopped {
		// All the properties were walked, so what is left of paths is
		// the items' path, when paths was made.
		child := paths
		if len(child) != len(path)+2 {
			child = path + "[]"
		}
		w.walk(info.items, child, false, depth+1)
	}
	w.ancestors = w.ancestors[:len(w.ancestors)-1]
}

// maxChildPaths is the longest text childPaths makes.
const maxChildPaths = 4 << 10

// childPaths returns the paths of info's children under path, each
// property's and then the items', one after the other in one string, or
// "" when that would be longer than maxChildPaths. The walk cuts each
// child's path from it: one allocation rather than one per child.
func (w *walker) childPaths(path string, info *nodeInfo) string {
	n := 0
	for _, c := range info.props {
		n += len(path) + 1 + len(c.key)
	}
	if info.items != nil {
		n += len(path) + 2
	}
	if n == 0 || n > maxChildPaths {
		return ""
	}
	var b strings.Builder
	b.Grow(n)
	for _, c := range info.props {
		b.WriteString(path)
		b.WriteByte('.')
		b.WriteString(c.key)
	}
	if info.items != nil {
		b.WriteString(path)
		b.WriteString("[]")
	}
	return b.String()
}

// slot returns the slot of the records made from info with the given
// required flag, counting this one, or 0 when info is not kept in infos
// (see templates): only a node reached through $refs can make records
// that share their texts.
func (w *walker) slot(info *nodeInfo, required bool) int32 {
	if !info.kept {
		return 0
	}
	b := 0
	if required {
		b = 1
	}
	if info.slot[b] == 0 {
		w.slotUses = append(w.slotUses, 0)
		info.slot[b] = int32(len(w.slotUses))
	}
	n := info.slot[b]
	w.slotUses[n-1]++
	return n
}

func (w *walker) isAncestor(node *jsonv.Value) bool {
	for _, a := range w.ancestors {
		if a == node {
			return true
		}
	}
	return false
}

// opaque is a leaf whose only constraint is a marker ($ref or _truncated);
// it deliberately has no additionalProperties key.
func opaque(required bool, marker string, v *jsonv.Value) Record {
	return Record{Required: required, Constraints: jsonv.NewObject(jsonv.M(marker, v))}
}

// openConstraints is the constraints of a node that says nothing.
func (w *walker) openConstraints() *jsonv.Value {
	if w.open == nil {
		w.open = jsonv.NewObject(jsonv.M("additionalProperties", jsonv.NewBool(true)))
	}
	return w.open
}

// nodeInfo is what the walk needs from one object node; it depends only on
// the node, never on the path it was reached by.
type nodeInfo struct {
	// kept says the info is in walker.infos, for a node reached through
	// $refs; slot is then the slot of its records, by required flag (see
	// walker.slot).
	kept       bool
	slot       [2]int32
	hasRef     bool
	refSibling bool         // the node has a key besides "$ref"
	ref        *jsonv.Value // the "$ref" value
	// literal is Python's str() of ref, recorded when the ref is not
	// followed (sibling keys or a non-string value).
	literal string
	// weight is the written size of enum and constraints, charged per record.
	weight int
	// keys are the retained keys of cons, as bits (see Skeleton.keys).
	keys  uint8
	typ   []string
	enum  *jsonv.Value
	cons  *jsonv.Value
	props []child
	items *jsonv.Value // the "items" object, nil unless it is an object
}

// child is one member of "properties", with its required flag.
type child struct {
	key      string
	node     *jsonv.Value
	required bool
}

// retained lists the constraint keys a record keeps, in code-point order.
var retained = [...]string{"additionalProperties", "format", "maxLength", "maximum", "minLength", "minimum", "pattern"}

// retainedIndex is the index of key in retained, or -1. The key's length
// and a byte or two pick the one candidate, which one comparison confirms:
// cheaper than a switch's search among the seven strings.
func retainedIndex(key string) int {
	var i int
	switch len(key) {
	case 20:
		i = 0
	case 6:
		i = 1
	case 9:
		if i = 2; key[1] == 'i' {
			i = 4
		}
	case 7:
		switch {
		case key[0] == 'p':
			i = 6
		case key[1] == 'i':
			i = 5
		default:
			i = 3
		}
	default:
		return -1
	}
	if key != retained[i] {
		return -1
	}
	return i
}

// info returns node's facts, computing them on the first visit. Members are
// read last-wins, the way Python's json.loads builds a dict from repeated
// keys; a parsed document never repeats keys, so this only matters for
// hand-built values.
func (w *walker) info(node *jsonv.Value, depth int) *nodeInfo {
	if in, ok := w.infos[node]; ok {
		return in
	}
	// Only nodes reached through a $ref can be visited again (refs are the
	// only aliasing), so only they are worth remembering; caching every
	// node of a plain tree cost a map entry per node for nothing. Any other
	// node's facts are needed only while it is walked, at its depth, so
	// they live in that depth's frame, reused by its next sibling.
	var in *nodeInfo
	if len(w.refs) > 0 {
		in = &w.infoSlab.take(1)[0]
		in.kept = true
		w.infos[node] = in
	} else {
		in = w.frame(depth)
	}
	var typ, enum, props, req, items *jsonv.Value
	var cons [len(retained)]*jsonv.Value
	var present uint8 // bit i: cons[i] is set
	for _, m := range node.Members {
		switch m.Key {
		case "$ref":
			in.hasRef = true
			in.ref = m.Value
			continue
		case "type":
			typ = m.Value
		case "enum":
			enum = m.Value
		case "properties":
			props = m.Value
		case "required":
			req = m.Value
		case "items":
			items = m.Value
		default:
			if i := retainedIndex(m.Key); i >= 0 {
				cons[i] = m.Value
				if m.Value != nil {
					present |= 1 << i
				} else {
					present &^= 1 << i
				}
			}
		}
		in.refSibling = true
	}
	if in.hasRef {
		if in.ref == nil {
			in.ref = jsonv.NewNull()
		}
		if _, isString := in.ref.Str(); in.refSibling || !isString {
			in.literal = pyfmt.Str(in.ref)
		}
		return in
	}
	in.typ = w.normType(typ)
	in.enum = w.normEnum(enum)
	in.cons, in.weight = w.constraints(&cons, present)
	in.keys = present | 1 // additionalProperties is always there
	if in.enum != nil {
		in.weight += in.enum.CompactLen()
	}
	if props != nil && props.Kind == jsonv.Object {
		if in.kept {
			in.props = w.childSlab.take(len(props.Members))[:0]
		}
		in.props, w.childOrder = children(in.props, w.childOrder, props, requiredSet(req))
	}
	if items != nil && items.Kind == jsonv.Object {
		in.items = items
	}
	return in
}

// frame returns the reusable nodeInfo of a walk depth, cleared (the
// capacity of its child list kept). Each frame is allocated once, and
// never moves while deeper frames are in use.
func (w *walker) frame(depth int) *nodeInfo {
	for len(w.frames) <= depth {
		w.frames = append(w.frames, new(nodeInfo))
	}
	f := w.frames[depth]
	*f = nodeInfo{props: f.props[:0]}
	return f
}

// normType is the package's normType, sharing the one-element list of each
// type name within the walk (records treat their slices as read-only).
func (w *walker) normType(v *jsonv.Value) []string {
	if v == nil || v.Kind != jsonv.String {
		if v == nil || v.Kind != jsonv.Array {
			return normType(v)
		}
		n := 0
		for _, it := range v.Items {
			if it != nil && it.Kind == jsonv.String {
				n++
			}
		}
		if n == 0 {
			return nil
		}
		out := w.strs.take(n)[:0]
		for _, it := range v.Items {
			if s, ok := it.Str(); ok {
				out = append(out, s)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	// The JSON Schema type names, nearly every type a schema names, skip
	// the map; their lists are kept for the Extractor's life.
	if i := jsonTypeIndex(v.Text); i >= 0 {
		if w.jsonTypes[i] == nil {
			w.jsonTypes[i] = []string{v.Text}
		}
		return w.jsonTypes[i]
	}
	if t, ok := w.types[v.Text]; ok {
		return t
	}
	if w.types == nil {
		w.types = map[string][]string{}
	}
	t := []string{v.Text}
	w.types[v.Text] = t
	return t
}

// jsonTypeNames are the seven JSON Schema type names, nearly every type a
// schema names.
var jsonTypeNames = [...]string{"string", "integer", "number", "boolean", "object", "array", "null"}

// jsonTypeIndex is the index of name in jsonTypeNames, or -1.
func jsonTypeIndex(name string) int {
	switch name {
	case "string":
		return 0
	case "integer":
		return 1
	case "number":
		return 2
	case "boolean":
		return 3
	case "object":
		return 4
	case "array":
		return 5
	case "null":
		return 6
	}
	return -1
}

// required is the set of string members of a "required" array; anything
// else requires nothing. A short list is scanned, a long one hashed.
type required struct {
	list []*jsonv.Value
	set  map[string]bool
}

func requiredSet(req *jsonv.Value) required {
	if req == nil || req.Kind != jsonv.Array || len(req.Items) == 0 {
		return required{}
	}
	if len(req.Items) <= 16 {
		return required{list: req.Items}
	}
	set := make(map[string]bool, len(req.Items))
	for _, it := range req.Items {
		if s, ok := it.Str(); ok {
			set[s] = true
		}
	}
	return required{set: set}
}

func (r required) has(key string) bool {
	if r.set != nil {
		return r.set[key]
	}
	for _, it := range r.list {
		if s, ok := it.Str(); ok && s == key {
			return true
		}
	}
	return false
}

// children returns, in dst's storage, the members of a "properties"
// object sorted by key in code-point order, one per distinct key (the last
// one). An object out of order is sorted as a list of member indices keyed
// by their keys' first eight bytes, in ord's storage, which it returns.
func children(dst []child, ord []childOrder, props *jsonv.Value, req required) ([]child, []childOrder) {
	ms := props.Members
	cs := dst[:0]
	sorted := true
	for i := 1; i < len(ms); i++ {
		if ms[i-1].Key > ms[i].Key {
			sorted = false
			break
		}
	}
	if sorted {
		for i, m := range ms {
			if i+1 < len(ms) && ms[i+1].Key == m.Key {
				continue // a later duplicate wins
			}
			cs = append(cs, child{key: m.Key, node: m.Value, required: req.has(m.Key)})
		}
		return cs, ord
	}
	ord = ord[:0]
	for i, m := range ms {
		ord = append(ord, childOrder{pfx: keyPrefix(m.Key), idx: i})
	}
	cmp := func(a, b childOrder) int {
		if a.pfx != b.pfx {
			if a.pfx < b.pfx {
				return -1
			}
			return 1
		}
		if c := strings.Compare(ms[a.idx].Key, ms[b.idx].Key); c != 0 {
			return c
		}
		return a.idx - b.idx
	}
	if len(ord) <= 32 {
		// Most properties objects are this small: an insertion sort,
		// mostly comparing prefixes inline, beats the general sort's
		// calls through cmp.
		for i := 1; i < len(ord); i++ {
			o := ord[i]
			j := i
			for j > 0 && (o.pfx < ord[j-1].pfx || o.pfx == ord[j-1].pfx && cmp(o, ord[j-1]) < 0) {
				ord[j] = ord[j-1]
				j--
			}
			ord[j] = o
		}
	} else {
		slices.SortFunc(ord, cmp)
	}
	for j, o := range ord {
		m := ms[o.idx]
		if j+1 < len(ord) && ms[ord[j+1].idx].Key == m.Key {
			continue // a later duplicate wins: equal keys keep document order
		}
		cs = append(cs, child{key: m.Key, node: m.Value, required: req.has(m.Key)})
	}
	return cs, ord
}

// childOrder is a member's place in the code-point order of a properties
// object's keys: idx is its index, pfx the first eight bytes of its key,
// big-endian and zero past the key's end, so that two different prefixes
// compare as their keys do (a key's end sorting like a zero byte, which
// only a longer key's bytes past it can exceed).
type childOrder struct {
	pfx uint64
	idx int
}

// keyPrefix is the first eight bytes of k, big-endian, zero-padded.
func keyPrefix(k string) uint64 {
	if len(k) >= 8 {
		return uint64(k[0])<<56 | uint64(k[1])<<48 | uint64(k[2])<<40 | uint64(k[3])<<32 |
			uint64(k[4])<<24 | uint64(k[5])<<16 | uint64(k[6])<<8 | uint64(k[7])
	}
	var p uint64
	for i := 0; i < len(k); i++ {
		p |= uint64(k[i]) << (56 - 8*i)
	}
	return p
}

// normType is the reference's norm_type: a string becomes a one-element
// list, an array keeps its string members de-duplicated in code-point order,
// and anything else, or an array without strings, is null ("any").
func normType(v *jsonv.Value) []string {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case jsonv.String:
		return []string{v.Text}
	case jsonv.Array:
		var out []string
		for _, it := range v.Items {
			if s, ok := it.Str(); ok {
				out = append(out, s)
			}
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	return nil
}

// normEnum is the reference's norm_enum: every member kept (duplicates
// included), stably sorted by the pair (Python type name, json.dumps text
// with sorted keys). That key is why floats sort as text ("10.5" < "9.5") and
// why 1.0 (float) sorts before 1 (int). Members keep their original literals.
func normEnum(v *jsonv.Value) *jsonv.Value {
	var w walker
	return w.normEnum(v)
}

// normEnum is the package's normEnum, computing the sort keys in the
// walker's buffers: the json.dumps texts side by side in one byte slice.
func (w *walker) normEnum(v *jsonv.Value) *jsonv.Value {
	if v == nil || v.Kind != jsonv.Array {
		return nil
	}
	if len(v.Items) <= 1 {
		items := w.items.take(len(v.Items))
		for i, it := range v.Items {
			if it == nil {
				it = jsonv.NewNull()
			}
			items[i] = it
		}
		return w.array(items)
	}
	ks := w.enumKeys[:0]
	w.enumText = w.enumText[:0]
	// A member alone of its type never has its text compared, and a
	// plain string (see plainDumps) is compared as it stands: only the
	// others need their json.dumps texts.
	var perRank [typeRanks]int
	for _, it := range v.Items {
		if it == nil {
			it = jsonv.NewNull()
		}
		r := typeRank(it)
		perRank[r]++
		ks = append(ks, enumKey{rank: r, v: it})
	}
	for i := range ks {
		k := &ks[i]
		if perRank[k.rank] == 1 || k.v.Kind == jsonv.String && plainDumps(k.v.Text) {
			continue
		}
		k.start = len(w.enumText)
		w.enumText = pyfmt.AppendDumps(w.enumText, k.v, true)
		k.end = len(w.enumText)
		k.pfx = textPrefix(w.enumText[k.start:k.end])
		k.text = true
	}
	w.enumKeys = ks
	// Insertion sort is stable, and an enum is short: a few members,
	// usually compared on their type rank or text prefix alone.
	if len(ks) <= 16 {
		for i := 1; i < len(ks); i++ {
			k := ks[i]
			j := i
			for j > 0 && w.enumCompare(k, ks[j-1]) < 0 {
				ks[j] = ks[j-1]
				j--
			}
			ks[j] = k
		}
	} else {
		if !slices.IsSortedFunc(ks, w.enumCompare) {
			slices.SortStableFunc(ks, w.enumCompare)
		}
	}
	items := w.items.take(len(ks))
	for i, k := range ks {
		items[i] = k.v
	}
	clear(ks) // the scratch keeps no schema nodes alive
	return w.array(items)
}

// array returns an array of items, in the walk's memory.
func (w *walker) array(items []*jsonv.Value) *jsonv.Value {
	a := &w.vals.take(1)[0]
	*a = jsonv.Value{Kind: jsonv.Array, Items: items}
	return a
}

// enumKey is an enum member with its sort key: the Python type name, as
// its rank among the type names, and the json.dumps text. When text is
// set, the text sits in walker.enumText from start to end and pfx is its
// first eight bytes (see textPrefix); otherwise the member is alone of its
// type, or a string whose text is its own quoted (see plainDumps).
type enumKey struct {
	rank       int
	text       bool
	pfx        uint64
	start, end int
	v          *jsonv.Value
}

// enumCompare compares a's key with b's: by type name, then by text
// (code-point order, which is byte order).
func (w *walker) enumCompare(a, b enumKey) int {
	if a.rank != b.rank {
		return a.rank - b.rank
	}
	// Two members of one type without texts are plain strings.
	switch {
	case a.text && b.text:
		if a.pfx != b.pfx {
			if a.pfx < b.pfx {
				return -1
			}
			return 1
		}
		return bytes.Compare(w.enumText[a.start:a.end], w.enumText[b.start:b.end])
	case a.text:
		return -comparePlainDumps(b.v.Text, w.enumText[a.start:a.end])
	case b.text:
		return comparePlainDumps(a.v.Text, w.enumText[b.start:b.end])
	}
	return strings.Compare(a.v.Text, b.v.Text)
}

// plainDumps reports whether json.dumps(s) is s quoted and s holds only
// bytes above the quote, so that such strings compare as their texts do:
// where one is a prefix of another, its closing quote is less than any
// byte of the other's. That is printable ASCII from '#' up, but for the
// backslash.
func plainDumps(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= '"' || c == '\\' || c > '~' {
			return false
		}
	}
	return true
}

// comparePlainDumps compares json.dumps(s), for s plain (see plainDumps),
// with text.
func comparePlainDumps(s string, text []byte) int {
	n := len(s) + 2
	for i := 0; i < n && i < len(text); i++ {
		c := byte('"')
		if i > 0 && i < n-1 {
			c = s[i-1]
		}
		if c != text[i] {
			if c < text[i] {
				return -1
			}
			return 1
		}
	}
	return n - len(text)
}

// typeRanks is the number of Python type names an enum member can have.
const typeRanks = 7

// typeRank is the place of pyfmt.TypeName(v) in the code-point order of
// the type names: NoneType, bool, dict, float, int, list, str.
func typeRank(v *jsonv.Value) int {
	switch v.Kind {
	case jsonv.Null:
		return 0
	case jsonv.Bool:
		return 1
	case jsonv.Float:
		return 3
	case jsonv.Int:
		return 4
	case jsonv.Array:
		return 5
	case jsonv.String:
		return 6
	}
	return 2 // dict
}

// textPrefix is the first eight bytes of b, big-endian, zero-padded: two
// texts whose prefixes differ compare as their prefixes do (see
// childOrder).
func textPrefix(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.BigEndian.Uint64(b)
	}
	var p uint64
	for i := 0; i < len(b); i++ {
		p |= uint64(b[i]) << (56 - 8*i)
	}
	return p
}

// constraints builds the constraints object from the retained keys present
// (raw values, null included), with additionalProperties defaulting to true,
// and returns it with its written size (its CompactLen, worked out as it
// is built). Bit i of present says vals[i] is set. A node with none of
// them shares the walker's open constraints.
func (w *walker) constraints(vals *[len(retained)]*jsonv.Value, present uint8) (*jsonv.Value, int) {
	open := w.openConstraints()
	if present == 0 {
		if w.openLen == 0 {
			w.openLen = open.CompactLen()
		}
		return open, w.openLen
	}
	if present&1 == 0 {
		vals[0] = open.Members[0].Value
		present |= 1
	}
	n := bits.OnesCount8(present)
	out := &w.vals.take(1)[0]
	*out = jsonv.Value{Kind: jsonv.Object, Members: w.members.take(n)[:0]}
	// {, }, the commas, and per member its quoted key (the retained keys
	// need no escapes), the colon and its value.
	size := 2 + n - 1
	for ; present != 0; present &= present - 1 {
		i := bits.TrailingZeros8(present)
		k, v := retained[i], vals[i]
		out.Members = append(out.Members, jsonv.M(k, v))
		size += len(k) + 3 + v.CompactLen()
	}
	return out, size
}

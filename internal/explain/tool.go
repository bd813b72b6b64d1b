package explain

import (
	"slices"
	"strings"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/skeleton"
	"github.com/wardenlock/warden/internal/surface"
)

// toolCtx is one tool's two sides and what is worked out from them once
// for all of the tool's items.
type toolCtx struct {
	name     string
	b, a     *surface.Tool
	snapshot bool
	diffs    map[bool]*valueDiff            // by output: the schema diff
	skels    map[[2]bool]*skeleton.Skeleton // by (output, after)
	loc      *locator
	words    *int // the word-diff work left for the Items call
}

// schema returns one side's input (output false) or output schema as the
// lock hashes it: a non-object input schema is {}, an absent or null
// output schema nil.
func (c *toolCtx) schema(output, after bool) *jsonv.Value {
	t := c.b
	if after {
		t = c.a
	}
	if t == nil {
		return nil
	}
	if output {
		return objectOrNil(t.OutputSchema)
	}
	if s := objectOrNil(t.InputSchema); s != nil {
		return s
	}
	return &jsonv.Value{Kind: jsonv.Object}
}

func (c *toolCtx) diff(output bool) *valueDiff {
	if d, ok := c.diffs[output]; ok {
		return d
	}
	d := diffValues(c.schema(output, false), c.schema(output, true))
	c.diffs[output] = d
	return d
}

func (c *toolCtx) skeleton(output, after bool) *skeleton.Skeleton {
	k := [2]bool{output, after}
	if s, ok := c.skels[k]; ok {
		return s
	}
	s := skeleton.Extract(c.schema(output, after))
	c.skels[k] = s
	return s
}

// tool explains the items of one tool (idx indexes items and out).
func (x *explainer) tool(name string, items []drift.Item, idx []int, out []Explanation) {
	c := &toolCtx{name: name, a: x.aTools[name], snapshot: x.snapshot, loc: &x.loc, words: &x.words,
		diffs: map[bool]*valueDiff{}, skels: map[[2]bool]*skeleton.Skeleton{}}
	if x.snapshot {
		c.b = x.bTools[name]
	}
	both := c.snapshot && c.a != nil && c.b != nil
	hasDescItem := false
	for _, i := range idx {
		hasDescItem = hasDescItem || items[i].Class == drift.ClassDescriptionModified
	}
	p := primary(items, idx)
	for j, i := range idx {
		e := Explanation{Source: x.source}
		c.explain(&e, items[i], both)
		if j == p {
			if both && !hasDescItem && e.Description == nil {
				e.Description = descriptionChange(c.b.Description, c.a.Description, c.words)
			}
			if !c.snapshot && e.Current == nil {
				e.Current = view(c.a)
			}
		}
		out[i] = e
	}
	if both && p >= 0 {
		c.unshownText(out, idx, idx[p], items)
	}
}

// unshownText adds to the tool's most severe item every changed text of
// its schemas that none of its items shows: a property's description,
// title, default or example is read by the model like the tool's own
// description, so a poisoned one must never hide behind a structural item
// that shows only its own keyword. Each is prefixed with its schema
// ("inputSchema/properties/path/description"). A schema one of whose items
// lists every change (a cosmetic item, one with no path) is left as it is:
// its texts are shown or counted there already.
func (c *toolCtx) unshownText(out []Explanation, idx []int, primary int, items []drift.Item) {
	shown := map[bool]map[string]bool{false: {}, true: {}}
	whole := map[bool]bool{}
	for _, i := range idx {
		it := items[i]
		if !strings.HasPrefix(it.Class, "schema-") || it.Class == drift.ClassSchemaVersionMigrated {
			continue
		}
		output := strings.HasPrefix(it.Class, "schema-out-")
		if itemPath(it, c.name, output) == "" {
			whole[output] = true
		}
		for _, pc := range out[i].Paths {
			shown[output][pc.Path] = true
		}
	}
	e := &out[primary]
	for _, output := range []bool{false, true} {
		if whole[output] {
			continue
		}
		var extra []valueChange
		for _, ch := range c.diff(output).changes {
			if !readText(ch) {
				continue
			}
			if p, _ := clipString(ch.path, MaxPathBytes); shown[output][p] {
				continue
			}
			extra = append(extra, valueChange{schemaField(output) + "/" + ch.path, ch.old, ch.new})
		}
		if len(extra) == 0 {
			continue
		}
		room := max(MaxPaths-len(e.Paths), 0)
		if len(extra) > room {
			e.PathsOmitted += len(extra) - room
			extra = extra[:room]
		}
		if cl := items[primary].Class; strings.HasPrefix(cl, "schema-") && strings.HasPrefix(cl, "schema-out-") == output {
			// The item counted these among its paths not shown.
			e.PathsOmitted = max(e.PathsOmitted-len(extra), 0)
		}
		more, _ := capChanges(extra, len(extra), c.words)
		e.Paths = append(e.Paths, more...)
	}
}

// textKeywords are the schema keywords whose strings the model reads.
var textKeywords = map[string]bool{"description": true, "title": true, "default": true, "examples": true, "$comment": true}

// readText reports whether a change is of text the model reads: a string
// under one of textKeywords.
func readText(ch valueChange) bool {
	if !isTextValue(ch.old) && !isTextValue(ch.new) {
		return false
	}
	segs := strings.Split(ch.path, "/")
	for k := len(segs) - 1; k >= 0 && k >= len(segs)-2; k-- {
		if textKeywords[segs[k]] {
			return true
		}
	}
	return false
}

// schemaField names the schema a path is in.
func schemaField(output bool) string {
	if output {
		return "outputSchema"
	}
	return "inputSchema"
}

// isTextValue reports whether v is a JSON string: text the model reads.
func isTextValue(v *jsonv.Value) bool { return v != nil && v.Kind == jsonv.String }

// explain fills e for one item of the tool.
func (c *toolCtx) explain(e *Explanation, it drift.Item, both bool) {
	switch cl := it.Class; {
	case cl == drift.ClassToolAdded:
		e.Current = view(c.a)
	case cl == drift.ClassToolRemoved:
		e.Old = view(c.b)
	case cl == drift.ClassCapabilityAdded || cl == drift.ClassCapabilityRemoved:
		e.Current = view(c.a)
		e.Old = view(c.b)
	case cl == drift.ClassDescriptionModified:
		if both {
			e.Description = descriptionChange(c.b.Description, c.a.Description, c.words)
		} else if c.a != nil {
			e.Description = currentText(c.a.Description)
		}
	case cl == drift.ClassToolAnnotationsModified:
		c.hints(e, both)
	case strings.HasPrefix(cl, "schema-out-"):
		c.schemaItem(e, it, true, both)
	case strings.HasPrefix(cl, "schema-") && cl != drift.ClassSchemaVersionMigrated:
		c.schemaItem(e, it, false, both)
	}
}

// hints lists the annotation keys that changed, or with SourceCurrent the
// keys there are now.
func (c *toolCtx) hints(e *Explanation, both bool) {
	var old, cur *jsonv.Value
	if c.a != nil {
		cur = objectOrNil(c.a.Annotations)
	}
	if both {
		old = objectOrNil(c.b.Annotations)
	} else if c.snapshot || cur == nil {
		return
	}
	d := &valueDiff{}
	var cs []valueChange
	total := 0
	check := func(k string, o, n *jsonv.Value) {
		if o != nil && n != nil && d.equal(o, n) {
			return
		}
		total++
		if len(cs) < MaxPaths {
			cs = append(cs, valueChange{escapeSegment(k), o, n})
		}
	}
	om, cm := members(old), members(cur)
	for _, m := range membersOf(old) {
		check(m.Key, m.Value, cm.get(m.Key))
	}
	for _, m := range membersOf(cur) {
		if !om.has(m.Key) || !both {
			check(m.Key, nil, m.Value)
		}
	}
	e.Hints, e.HintsOmitted = capChanges(cs, total, c.words)
}

// itemPath returns the skeleton path a structural schema item names in its
// message, "" when it names none.
func itemPath(it drift.Item, name string, output bool) string {
	field := " schema "
	class := it.Class
	if output {
		field = " outputSchema "
	}
	prefix := "Tool '" + name + "'" + field + class + " at '"
	if !strings.HasPrefix(it.Message, prefix) || !strings.HasSuffix(it.Message, "'") || len(it.Message) < len(prefix)+1 {
		return ""
	}
	return it.Message[len(prefix) : len(it.Message)-1]
}

// schemaItem explains a schema-* (output false) or schema-out-* item.
func (c *toolCtx) schemaItem(e *Explanation, it drift.Item, output, both bool) {
	path := itemPath(it, c.name, output)
	if !both {
		c.currentSchema(e, it, path, output)
		return
	}
	d := c.diff(output)
	cs := d.changes
	if path != "" {
		if rel := c.own(it, path, output); len(rel) > 0 {
			cs = rel
		} else if rel := c.relevant(d, it, path, output); len(rel) > 0 {
			cs = rel
		}
	}
	e.Paths, e.PathsOmitted = capChanges(cs, d.total, c.words)
	if e.PathsOmitted < 0 {
		e.PathsOmitted = 0
	}
	e.PathsIncomplete = d.incomplete
	if isEnumClass(it.Class) && path != "" {
		e.Enum = enumChange(path, c.enumOf(output, false, path), c.enumOf(output, true, path))
	}
}

// own returns the changes of the node a skeleton path names, found at the
// same raw path on both sides (or on one side only): its own keywords,
// and for a change of the required flag its parent's "required". It is
// nil when the two sides place the node differently (a $ref moved), for
// relevant to sort out from the whole diff.
func (c *toolCtx) own(it drift.Item, path string, output bool) []valueChange {
	bs, bn := c.loc.locate(c.schema(output, false), path)
	as, an := c.loc.locate(c.schema(output, true), path)
	segs := as
	switch {
	case bn == nil && an == nil:
		return nil
	case an == nil:
		segs = bs
	case bn != nil && !slices.Equal(bs, as):
		return nil
	}
	out := diffOwn(segs, bn, an).changes
	if kw := keyword(it); kw != "" && bn != nil && an != nil {
		// The item is about one keyword of a node on both sides: show that
		// one, unless it is not where the item says (it came through
		// another route, say), when the node's other keywords are shown.
		at := joinPath(extend(segs, kw))
		var hit []valueChange
		for _, ch := range out {
			if ch.path == at || strings.HasPrefix(ch.path, at+"/") {
				hit = append(hit, ch)
			}
		}
		if len(hit) > 0 || kw == "required" {
			out = hit
		}
	}
	if requiredClass(it) && len(segs) >= 2 && segs[len(segs)-2] == "properties" {
		parent := append(append([]string(nil), segs[:len(segs)-2]...), "required")
		get := func(after bool) *jsonv.Value {
			return c.loc.member(c.loc.nodeAt(c.schema(output, after), segs[:len(segs)-2]), "required")
		}
		if d := diffUnder(parent, get(false), get(true)); len(d.changes) > 0 {
			out = append(d.changes, out...)
		}
	}
	return out
}

// keyword returns the one schema keyword a structural item of a node on
// both sides is about, from its class and detail, or "" when it is about
// the whole node. "required" stands for the parent's required list, shown
// on its own.
func keyword(it drift.Item) string {
	class := strings.Replace(it.Class, "schema-out-", "schema-", 1)
	detail := ""
	if it.Detail != nil {
		detail = *it.Detail
	}
	switch {
	case strings.HasPrefix(class, "schema-type-"):
		return "type"
	case strings.HasPrefix(class, "schema-enum-"):
		return "enum"
	case class == drift.ClassSchemaAdditionalPropsOpened:
		return "additionalProperties"
	case strings.HasPrefix(detail, "optional"+drift.Arrow) || strings.HasPrefix(detail, "required"+drift.Arrow):
		return "required"
	}
	for _, k := range []string{"additionalProperties", "maxLength", "maximum", "minLength", "minimum", "pattern", "format", "$ref"} {
		if strings.HasPrefix(detail, k+" ") {
			return k
		}
	}
	return ""
}

func isEnumClass(class string) bool {
	return strings.Contains(class, "-enum-")
}

// enumOf is the enum of one side's record at a skeleton path, nil when
// there is none.
func (c *toolCtx) enumOf(output, after bool, path string) *jsonv.Value {
	if (after && c.a == nil) || (!after && c.b == nil) {
		return nil
	}
	r, ok := c.skeleton(output, after).Records[path]
	if !ok || r.Enum.IsNull() {
		return nil
	}
	return r.Enum
}

// enumChange lists the members added and removed, compared as drift
// compares them (sorted-key JSON text).
func enumChange(path string, old, new *jsonv.Value) *EnumChange {
	p, _ := clipString(path, MaxPathBytes)
	ec := &EnumChange{Property: p}
	in := func(v *jsonv.Value) map[string]bool {
		s := map[string]bool{}
		for _, it := range enumMembers(v) {
			s[pyfmt.Dumps(it, true)] = true
		}
		return s
	}
	os, ns := in(old), in(new)
	seen := map[string]bool{}
	for _, it := range enumMembers(new) {
		k := pyfmt.Dumps(it, true)
		if !os[k] && !seen[k] {
			seen[k] = true
			ec.Added, ec.Omitted = appendValue(ec.Added, ec.Omitted, it)
		}
	}
	for _, it := range enumMembers(old) {
		k := pyfmt.Dumps(it, true)
		if !ns[k] && !seen[k] {
			seen[k] = true
			ec.Removed, ec.Omitted = appendValue(ec.Removed, ec.Omitted, it)
		}
	}
	return ec
}

func enumMembers(v *jsonv.Value) []*jsonv.Value {
	switch {
	case v == nil:
		return nil
	case v.Kind == jsonv.Array:
		return v.Items
	}
	return []*jsonv.Value{v}
}

// appendValue appends v's clipped JSON text, or counts it when the list is
// full.
func appendValue(list []string, omitted int, v *jsonv.Value) ([]string, int) {
	if len(list) >= MaxEnumValues {
		return list, omitted + 1
	}
	s, _ := jsonText(v)
	return append(list, s), omitted
}

// currentSchema explains a schema item from the current side alone: the
// current values under the item's path (the whole schema when it names
// none), and an enum's current values.
func (c *toolCtx) currentSchema(e *Explanation, it drift.Item, path string, output bool) {
	if c.a == nil || c.snapshot {
		// With a snapshot that lacks the tool, nothing is known for sure.
		return
	}
	root := c.schema(output, true)
	if root == nil {
		return
	}
	var segs []string
	node := root
	if path != "" {
		segs, node = c.loc.locate(root, path)
		if node == nil {
			return
		}
	}
	d := diffUnder(segs, nil, node)
	if path != "" {
		// The node's own keywords: its children have items of their own.
		d = diffOwn(segs, nil, node)
	}
	e.Paths, e.PathsOmitted = capChanges(d.changes, d.total, c.words)
	e.PathsIncomplete = d.incomplete
	if isEnumClass(it.Class) && path != "" {
		if v := c.enumOf(output, true, path); v != nil {
			p, _ := clipString(path, MaxPathBytes)
			ec := &EnumChange{Property: p}
			for _, m := range enumMembers(v) {
				ec.Values, ec.Omitted = appendValue(ec.Values, ec.Omitted, m)
			}
			e.Enum = ec
		}
	}
}

// relevant returns the changes about the item's skeleton path: at or below
// its raw location in either schema (not in its child properties or
// items), and for a change of the required flag the parent's "required".
func (c *toolCtx) relevant(d *valueDiff, it drift.Item, path string, output bool) []valueChange {
	var locs []string
	for _, after := range []bool{false, true} {
		root := c.schema(output, after)
		if root == nil {
			continue
		}
		segs, node := c.loc.locate(root, path)
		if node == nil {
			continue
		}
		locs = append(locs, joinPath(segs))
		if requiredClass(it) && len(segs) >= 2 && segs[len(segs)-2] == "properties" {
			parent := append(append([]string(nil), segs[:len(segs)-2]...), "required")
			locs = append(locs, "="+joinPath(parent))
		}
	}
	return d.under(locs)
}

func requiredClass(it drift.Item) bool {
	switch strings.Replace(it.Class, "schema-out-", "schema-", 1) {
	case drift.ClassSchemaRequiredAdded, drift.ClassSchemaRequiredUnconstrainedAdded, drift.ClassSchemaRequiredRemoved:
		return true
	case drift.ClassSchemaConstraintRelaxed:
		return it.Detail != nil && strings.HasPrefix(*it.Detail, "required")
	}
	return false
}

// maxLocateWork bounds all the locate calls of one Items call: a property
// key may contain dots, so a skeleton path can split more than one way,
// and each way tried costs a map lookup of its key. Past the bound locate
// finds nothing, and the items show every differing path instead of
// their own.
const maxLocateWork = 1 << 24

// locator finds skeleton paths in schemas, sharing its work budget and
// the indexes of wide objects across calls.
type locator struct {
	work  int
	index map[*jsonv.Value]map[string]*jsonv.Value
}

// locate finds the node a skeleton path ("$root", "a.b", "a[]") names in
// a schema, following same-document $refs as the skeleton walk does, and
// returns its raw path segments (those of the $ref target when it went
// through one) and the node; node is nil when the path is not found.
func (l *locator) locate(root *jsonv.Value, path string) ([]string, *jsonv.Value) {
	if path == "$root" {
		path = ""
	}
	return l.find(root, root, nil, path, 0)
}

func (l *locator) charge(n int) bool {
	l.work += n
	return l.work <= maxLocateWork
}

func (l *locator) find(root, node *jsonv.Value, at []string, rest string, hops int) ([]string, *jsonv.Value) {
	if !l.charge(1) || node == nil || node.Kind != jsonv.Object {
		return nil, nil
	}
	if len(node.Members) == 1 && node.Members[0].Key == "$ref" && hops < skeleton.MaxRefs {
		if ref, ok := node.Members[0].Value.Str(); ok && l.charge(len(ref)) {
			if segs, t := l.pointer(root, ref); t != nil {
				return l.find(root, t, segs, rest, hops+1)
			}
		}
	}
	if rest == "" {
		return at, node
	}
	if r, ok := strings.CutPrefix(rest, "[]"); ok {
		return l.find(root, l.member(node, "items"), extend(at, "items"), strings.TrimPrefix(r, "."), hops)
	}
	props := l.member(node, "properties")
	if props == nil || props.Kind != jsonv.Object {
		return nil, nil
	}
	// The key is rest up to a ".", a "[]" or the end: try each.
	for i := 0; i <= len(rest); i++ {
		if i < len(rest) && rest[i] != '.' && !strings.HasPrefix(rest[i:], "[]") {
			continue
		}
		if !l.charge(1 + i/64) {
			return nil, nil
		}
		v := l.member(props, rest[:i])
		if v == nil {
			continue
		}
		if segs, n := l.find(root, v, extend(at, "properties", rest[:i]), strings.TrimPrefix(rest[i:], "."), hops); n != nil {
			return segs, n
		}
	}
	return nil, nil
}

// member is obj.Get(key), through an index for a wide object.
func (l *locator) member(obj *jsonv.Value, key string) *jsonv.Value {
	if obj == nil || obj.Kind != jsonv.Object {
		return nil
	}
	if len(obj.Members) <= 16 {
		return obj.Get(key)
	}
	idx, ok := l.index[obj]
	if !ok {
		l.charge(len(obj.Members))
		idx = make(map[string]*jsonv.Value, len(obj.Members))
		for _, m := range obj.Members {
			idx[m.Key] = m.Value
		}
		if l.index == nil {
			l.index = map[*jsonv.Value]map[string]*jsonv.Value{}
		}
		l.index[obj] = idx
	}
	return idx[key]
}

func extend(at []string, segs ...string) []string {
	return append(append(make([]string, 0, len(at)+len(segs)), at...), segs...)
}

// pointer resolves a same-document "#/a/b" ref against root as the
// skeleton walk does (percent-decoded, then ~1 and ~0), returning the
// target's segments and the target object.
func (l *locator) pointer(root *jsonv.Value, ref string) ([]string, *jsonv.Value) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, nil
	}
	rest, ok := strings.CutPrefix(pyfmt.Unquote(frag), "/")
	if !ok {
		return nil, nil
	}
	cur := root
	var segs []string
	for more := true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, "/")
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch cur.Kind {
		case jsonv.Object:
			cur = l.member(cur, seg)
		case jsonv.Array:
			cur = indexItem(cur, seg)
		default:
			return nil, nil
		}
		if cur == nil {
			return nil, nil
		}
		segs = append(segs, seg)
	}
	if cur.Kind != jsonv.Object {
		return nil, nil
	}
	return segs, cur
}

// nodeAt returns the node at raw path segments from root, or nil.
func (l *locator) nodeAt(root *jsonv.Value, segs []string) *jsonv.Value {
	cur := root
	for _, seg := range segs {
		if cur == nil || !l.charge(1) {
			return nil
		}
		switch cur.Kind {
		case jsonv.Object:
			cur = l.member(cur, seg)
		case jsonv.Array:
			cur = indexItem(cur, seg)
		default:
			return nil
		}
	}
	return cur
}

func indexItem(arr *jsonv.Value, seg string) *jsonv.Value {
	if seg == "" || (len(seg) > 1 && seg[0] == '0') || len(seg) > 9 {
		return nil
	}
	n := 0
	for i := 0; i < len(seg); i++ {
		if seg[i] < '0' || seg[i] > '9' {
			return nil
		}
		n = n*10 + int(seg[i]-'0')
	}
	return item(arr, n)
}

package explain

import (
	"strings"

	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// Items explains each item (the result is parallel to items). before is
// the baseline surface (from a verified snapshot) or nil; after is the
// current surface or nil. Items that nothing can be said about get the
// zero Explanation, and so does everything when after is nil.
//
// What each item gets:
//   - description-modified: Description (with SourceCurrent, New only). A
//     description that changed beside a schema or capability change (which
//     suppress description-modified) goes on the tool's most severe item.
//   - schema-* and schema-out-*: Paths, the raw schema paths that differ,
//     those under the item's skeleton path only when there are any; enum
//     classes also Enum. With SourceCurrent: the current values under the
//     item's path, and the enum's current Values.
//   - tool-annotations-modified: Hints (with SourceCurrent, the keys now).
//   - tool-added, capability-*: Current (and Old with a snapshot);
//     tool-removed: Old. With SourceCurrent the tool's most severe item
//     also gets Current.
//   - resources and prompts: their fields (Paths, Description, Arguments).
//   - server-identity, inspection and the approval and digest items:
//     nothing (the launch change is reported on its own).
//
// Tools, resources and prompts are looked up as drift indexes them: by
// name (uri), the last of a repeated name winning.
func Items(items []drift.Item, before, after *surface.Surface) []Explanation {
	out := make([]Explanation, len(items))
	if after == nil || len(items) == 0 {
		return out
	}
	x := newExplainer(before, after)
	var targets []string
	groups := map[string][]int{}
	for i, it := range items {
		if _, ok := groups[it.Target]; !ok {
			targets = append(targets, it.Target)
		}
		groups[it.Target] = append(groups[it.Target], i)
	}
	for _, t := range targets {
		idx := groups[t]
		switch {
		case strings.HasPrefix(t, drift.ToolPrefix):
			x.tool(strings.TrimPrefix(t, drift.ToolPrefix), items, idx, out)
		case strings.HasPrefix(t, drift.ResourcePrefix):
			for _, i := range idx {
				out[i] = x.resource(strings.TrimPrefix(t, drift.ResourcePrefix), items[i].Class)
			}
		case strings.HasPrefix(t, drift.PromptPrefix):
			for _, i := range idx {
				out[i] = x.prompt(strings.TrimPrefix(t, drift.PromptPrefix), items[i].Class)
			}
		}
	}
	for i := range out {
		if out[i].Empty() {
			out[i] = Explanation{}
		}
	}
	return out
}

// explainer holds both surfaces indexed as drift indexes the locks.
type explainer struct {
	snapshot   bool
	source     string
	bTools     map[string]*surface.Tool
	aTools     map[string]*surface.Tool
	bRes, aRes map[string]*surface.Resource
	bPr, aPr   map[string]*surface.Prompt
	loc        locator
	// words is the word-diff work left for the whole call (see
	// maxItemsWordWork).
	words int
}

func newExplainer(before, after *surface.Surface) *explainer {
	x := &explainer{source: SourceCurrent, snapshot: before != nil, words: maxItemsWordWork}
	if x.snapshot {
		x.source = SourceSnapshot
		x.bTools, x.bRes, x.bPr = indexSurface(before)
	}
	x.aTools, x.aRes, x.aPr = indexSurface(after)
	return x
}

func indexSurface(s *surface.Surface) (map[string]*surface.Tool, map[string]*surface.Resource, map[string]*surface.Prompt) {
	tools := make(map[string]*surface.Tool, len(s.Tools))
	for i := range s.Tools {
		tools[s.Tools[i].Name] = &s.Tools[i]
	}
	res := make(map[string]*surface.Resource, len(s.Resources))
	for i := range s.Resources {
		res[s.Resources[i].URI] = &s.Resources[i]
	}
	pr := make(map[string]*surface.Prompt, len(s.Prompts))
	for i := range s.Prompts {
		pr[s.Prompts[i].Name] = &s.Prompts[i]
	}
	return tools, res, pr
}

// severityRank orders severities, most severe first.
func severityRank(s string) int {
	switch s {
	case drift.Critical:
		return 0
	case drift.High:
		return 1
	case drift.Medium:
		return 2
	case drift.Low:
		return 3
	}
	return 4
}

// primary returns the index (into idx) of the group's most severe item,
// the first of equals.
func primary(items []drift.Item, idx []int) int {
	best := 0
	for j, i := range idx {
		if severityRank(items[i].Severity) < severityRank(items[idx[best]].Severity) {
			best = j
		}
	}
	return best
}

// textOf is a tool description as the lock hashes it: absent and null are
// "", and ok is false for a value that is not a string.
func textOf(v *jsonv.Value) (s string, ok bool) {
	if v.IsNull() {
		return "", true
	}
	return v.Str()
}

// descriptionChange is the change between two descriptions, or nil when
// they are equal or either is not text.
func descriptionChange(old, new *jsonv.Value, budget *int) *TextChange {
	o, ok1 := textOf(old)
	n, ok2 := textOf(new)
	if !ok1 || !ok2 || o == n {
		return nil
	}
	tc := &TextChange{Words: present(words(o, n, budget))}
	var c1, c2 bool
	tc.Old, c1 = clipText(o)
	tc.New, c2 = clipText(n)
	tc.Clipped = c1 || c2
	return tc
}

// currentText is the current side of a description alone, or nil when
// there is none.
func currentText(v *jsonv.Value) *TextChange {
	s, ok := v.Str()
	if !ok {
		return nil
	}
	tc := &TextChange{}
	tc.New, tc.Clipped = clipText(s)
	return tc
}

// view is one side of a tool.
func view(t *surface.Tool) *ToolView {
	if t == nil {
		return nil
	}
	v := &ToolView{}
	if s, ok := t.Description.Str(); ok {
		v.Description, v.Clipped = clipText(s)
	}
	schema := objectOrNil(t.InputSchema)
	// The lock derives capabilities from the schema only when it is an
	// object (a non-object hashes as {}).
	v.Capabilities = caps.Derive(t.Name, schema)
	var req []string
	if r := schema.Get("required"); r != nil && r.Kind == jsonv.Array {
		for _, it := range r.Items {
			if s, ok := it.Str(); ok {
				req = append(req, s)
			}
		}
	}
	var cut bool
	v.Required, cut = names(req)
	v.Clipped = v.Clipped || cut
	v.Properties, cut = names(caps.PropertyNames(schema))
	v.Clipped = v.Clipped || cut
	if a := t.Annotations; !a.IsNull() {
		s := string(appendPrefix(nil, a, MaxTextBytes))
		v.Annotations = &s
		v.Clipped = v.Clipped || a.CompactLen() > MaxTextBytes
	}
	return v
}

// names bounds a list of server-given names.
func names(ns []string) ([]string, bool) {
	cut := len(ns) > MaxPaths
	if cut {
		ns = ns[:MaxPaths]
	}
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		s, c := clipString(n, MaxValueBytes)
		cut = cut || c
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, cut
	}
	return out, cut
}

func objectOrNil(v *jsonv.Value) *jsonv.Value {
	if v != nil && v.Kind == jsonv.Object {
		return v
	}
	return nil
}

// resource explains one resource item.
func (x *explainer) resource(uri, class string) Explanation {
	e := Explanation{Source: x.source}
	a := x.aRes[uri]
	var b *surface.Resource
	if x.snapshot {
		b = x.bRes[uri]
	}
	fields := func(r *surface.Resource) (name, desc, mime *jsonv.Value) {
		if r == nil {
			return nil, nil, nil
		}
		return r.Name, r.Description, r.MimeType
	}
	switch class {
	case drift.ClassResourceAdded:
		if a == nil {
			return Explanation{}
		}
		b = nil
	case drift.ClassResourceRemoved:
		if b == nil {
			return Explanation{}
		}
		a = nil
	case drift.ClassResourceModified:
		if !x.snapshot {
			b = nil
		}
	default:
		return Explanation{}
	}
	bn, bd, bm := fields(b)
	an, ad, am := fields(a)
	var cs []PathChange
	diff := &valueDiff{}
	one := func(path string, o, n *jsonv.Value) {
		o, n = nullToNil(o), nullToNil(n)
		if o == nil && n == nil {
			return
		}
		if o != nil && n != nil && diff.equal(o, n) {
			return
		}
		cs = append(cs, pathChange(path, o, n))
	}
	one("name", bn, an)
	if tc := x.text(class == drift.ClassResourceModified, b != nil, bd, ad); tc != nil {
		e.Description = tc
	} else if !isText(bd) || !isText(ad) {
		one("description", bd, ad)
	}
	one("mimeType", bm, am)
	e.Paths = cs
	return e
}

// text is the description change of an entry item: both sides for a
// modified entry with a snapshot, else the one side there is.
func (x *explainer) text(modified, haveOld bool, old, new *jsonv.Value) *TextChange {
	switch {
	case modified && haveOld:
		return descriptionChange(old, new, &x.words)
	case new != nil:
		return currentText(new)
	case old != nil:
		s, ok := old.Str()
		if !ok {
			return nil
		}
		tc := &TextChange{}
		tc.Old, tc.Clipped = clipText(s)
		return tc
	}
	return nil
}

func isText(v *jsonv.Value) bool { return v.IsNull() || v.Kind == jsonv.String }

func nullToNil(v *jsonv.Value) *jsonv.Value {
	if v.IsNull() {
		return nil
	}
	return v
}

// prompt explains one prompt item.
func (x *explainer) prompt(name, class string) Explanation {
	e := Explanation{Source: x.source}
	a := x.aPr[name]
	var b *surface.Prompt
	if x.snapshot {
		b = x.bPr[name]
	}
	switch class {
	case drift.ClassPromptAdded:
		b = nil
	case drift.ClassPromptRemoved:
		a = nil
	case drift.ClassPromptModified:
		if !x.snapshot {
			b = nil
		}
	default:
		return Explanation{}
	}
	if a == nil && b == nil {
		return Explanation{}
	}
	var bd, ad, ba, aa *jsonv.Value
	if b != nil {
		bd, ba = b.Description, nullToNil(b.Arguments)
	}
	if a != nil {
		ad, aa = a.Description, nullToNil(a.Arguments)
	}
	e.Description = x.text(class == drift.ClassPromptModified, b != nil, bd, ad)
	if e.Description == nil && (!isText(bd) || !isText(ad)) {
		if d := diffValues(nullToNil(bd), nullToNil(ad)); d.total > 0 {
			e.Paths, e.PathsOmitted = capChanges(d.changes, d.total, &x.words)
		}
	}
	d := argumentDiff(ba, aa)
	e.Arguments, e.ArgumentsOmitted = capChanges(d.changes, d.total, &x.words)
	return e
}

// argumentDiff compares two prompts' argument arrays by argument name
// ("city/description"), or by index when the names do not identify the
// arguments (one is missing, not a string, or repeated).
func argumentDiff(old, new *jsonv.Value) *valueDiff {
	bo, ok1 := byName(old)
	bn, ok2 := byName(new)
	if !ok1 || !ok2 {
		return diffValues(old, new)
	}
	return diffValues(bo, bn)
}

// byName turns an arguments array into an object keyed by argument name.
func byName(args *jsonv.Value) (*jsonv.Value, bool) {
	if args == nil {
		return nil, true
	}
	if args.Kind != jsonv.Array {
		return nil, false
	}
	obj := &jsonv.Value{Kind: jsonv.Object}
	seen := make(map[string]bool, len(args.Items))
	for _, it := range args.Items {
		n, ok := it.Get("name").Str()
		if it.Kind != jsonv.Object || !ok || seen[n] {
			return nil, false
		}
		seen[n] = true
		obj.Members = append(obj.Members, jsonv.M(n, it))
	}
	return obj, true
}

// capChanges renders at most MaxPaths changes and counts the rest of
// total.
func capChanges(cs []valueChange, total int, budget *int) ([]PathChange, int) {
	if len(cs) > MaxPaths {
		cs = cs[:MaxPaths]
	}
	if len(cs) == 0 {
		return nil, 0
	}
	return render(cs, budget), total - len(cs)
}

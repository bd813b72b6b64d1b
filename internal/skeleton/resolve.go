package skeleton

import (
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// refResult is the outcome of resolving a $ref.
type refResult uint8

const (
	refFound  refResult = iota // followed into an object in the same document
	refOpaque                  // recorded as {"$ref": literal}
	refCycle                   // recorded as {"_truncated": true}
)

// indexThreshold is the member count above which pointer lookups build a key
// index for an object instead of scanning it.
const indexThreshold = 16

// resolve is the reference's resolve(r, root, refs) (reference-behaviour
// §3.5). The order of the tests matters: a remote or bare "#" ref is opaque
// even when it repeats, and a repeated ref string is a cycle even when the
// budget is spent.
func (w *walker) resolve(r string) (*jsonv.Value, refResult) {
	if w.root == nil {
		return nil, refOpaque
	}
	if !strings.HasPrefix(r, "#") || r == "#" {
		return nil, refOpaque
	}
	if _, seen := w.refs[r]; seen {
		return nil, refCycle
	}
	if len(w.refs) >= MaxRefs {
		return nil, refOpaque
	}
	if w.targets == nil {
		w.targets = map[string]*jsonv.Value{}
	}
	t, ok := w.targets[r]
	if !ok {
		t = w.pointer(r[1:])
		w.targets[r] = t
	}
	if t == nil {
		return nil, refOpaque
	}
	return t, refFound
}

// pointer evaluates the fragment of a same-document ref against the root and
// returns the object it names, or nil when the ref is to be opaque. The
// fragment is percent-decoded before it is split and before ~1/~0 are
// unescaped, so "%2F" separates segments and "%7E1" means "/": that is the
// reference's order, even where RFC 6901 would differ.
func (w *walker) pointer(frag string) *jsonv.Value {
	f := pyfmt.Unquote(frag)
	if f == "" {
		return nil
	}
	// The segments are read one by one rather than split into a list:
	// rest is what follows the first "/", and the loop cuts a segment
	// off it per step, the last one where no "/" is left.
	first, rest, _ := strings.Cut(f, "/")
	if first != "" {
		return nil // "#foo" is an anchor, not a pointer
	}
	cur := w.root
	for more := true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, "/")
		seg = strings.ReplaceAll(seg, "~1", "/")
		seg = strings.ReplaceAll(seg, "~0", "~")
		switch cur.Kind {
		case jsonv.Object:
			cur = w.member(cur, seg)
		case jsonv.Array:
			i, ok := arrayIndex(seg, len(cur.Items))
			if !ok {
				return nil
			}
			cur = cur.Items[i]
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
	}
	if cur.Kind != jsonv.Object {
		return nil
	}
	return cur
}

// member returns obj's member named key (the last one, as a Python dict
// would hold it), or nil when there is none.
func (w *walker) member(obj *jsonv.Value, key string) *jsonv.Value {
	if len(obj.Members) <= indexThreshold {
		for i := len(obj.Members) - 1; i >= 0; i-- {
			if obj.Members[i].Key == key {
				return obj.Members[i].Value
			}
		}
		return nil
	}
	if w.index == nil {
		w.index = map[*jsonv.Value]map[string]*jsonv.Value{}
	}
	idx, ok := w.index[obj]
	if !ok {
		idx = make(map[string]*jsonv.Value, len(obj.Members))
		for _, m := range obj.Members {
			idx[m.Key] = m.Value
		}
		w.index[obj] = idx
	}
	return idx[key]
}

// arrayIndex parses an RFC 6901 array index: ASCII digits only, no leading
// zero except "0" itself, and within the array.
func arrayIndex(seg string, n int) (int, bool) {
	if seg == "" || (len(seg) > 1 && seg[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(seg); i++ {
		if seg[i] < '0' || seg[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(seg)
	if err != nil || i >= n {
		// Atoi fails only on overflow, and such an index is out of range.
		return 0, false
	}
	return i, true
}

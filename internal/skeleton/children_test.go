package skeleton

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

// childrenBySort is children as first written: a stable sort of all the
// members by key, then the last of each run of equal keys.
func childrenBySort(props *jsonv.Value, req required) []child {
	var cs []child
	for _, m := range props.Members {
		cs = append(cs, child{key: m.Key, node: m.Value, required: req.has(m.Key)})
	}
	slices.SortStableFunc(cs, func(a, b child) int { return strings.Compare(a.key, b.key) })
	var out []child
	for i, c := range cs {
		if i+1 < len(cs) && cs[i+1].key == c.key {
			continue
		}
		out = append(out, c)
	}
	return out
}

// TestChildrenMatchSort holds children's prefix-keyed sort to the plain
// stable sort, on keys sharing long prefixes, holding NULs and non-ASCII
// bytes, repeated (as a hand-built value may), in order or not.
func TestChildrenMatchSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	stems := []string{"", "abcdefg", "abcdefgh", "path_1", "limit_12", "é\ue000ab", "a\x00", "\U0001F600xyzw"}
	alphabet := []string{"a", "b", "\x00", "é", "\ue000", "\U0001F600", "~", "0"}
	var dst []child
	var ord []childOrder
	for range 20000 {
		var ms []jsonv.Member
		for i := range r.IntN(40) {
			var k strings.Builder
			k.WriteString(stems[r.IntN(len(stems))])
			for range r.IntN(3) {
				k.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			ms = append(ms, jsonv.M(k.String(), jsonv.NewInt(int64(i))))
		}
		if r.IntN(3) == 0 {
			slices.SortStableFunc(ms, func(a, b jsonv.Member) int { return strings.Compare(a.Key, b.Key) })
		}
		var reqs []*jsonv.Value
		for _, m := range ms {
			if r.IntN(2) == 0 {
				reqs = append(reqs, jsonv.NewString(m.Key))
			}
		}
		props := jsonv.NewObject(ms...)
		req := requiredSet(jsonv.NewArray(reqs...))
		dst, ord = children(dst, ord, props, req)
		want := childrenBySort(props, req)
		if !slices.Equal(dst, want) {
			t.Fatalf("members %v:\ngot  %v\nwant %v", ms, dst, want)
		}
	}
}

package findings

// This file answers the entropy pass's one order-dependent question in
// O(n log n) time overall: is a candidate token a substring, or a superstring, of any
// text matched so far in the same value (a vendor match or an earlier
// entropy hit)? The reference asks it pairwise, `tok in s or s in tok` for
// every matched s, which is quadratic in the number of tokens.
//
// All the strings involved are known up front: the distinct candidate
// tokens (only their order of registration is dynamic) and the vendor
// matches. A generalized suffix automaton over them turns containment into
// ancestry in its suffix-link tree: x occurs in y exactly when the state of
// x is an ancestor (or the same state) of the state of some prefix of y.
// With the tree laid out in Euler-tour order, "some prefix of a registered y
// lies below x" is a range sum and "some registered x lies above a prefix of
// y" is a point query over range updates; two Fenwick trees do both in
// O(log n), and every state is marked at most once.
//
// Most strings are related to nothing, so a cheap prefilter keeps them out
// of the automaton altogether: if x occurs in y then the first minGram bytes
// of x occur in y, so strings none of whose minGram-byte windows is the
// opening window of another string are settled without it.

// minGram is the prefilter's window: no registered string is shorter (the
// shortest vendor match that can lie inside a token is a 15-byte Slack
// token; candidates have at least 24 bytes).
const minGram = 15

// containIndex tracks which of a fixed set of strings have been registered
// and answers whether a given string is related by containment to any of
// them.
type containIndex struct {
	strs []string
	// state is each string's automaton state, or -1 when the prefilter
	// showed the string is related to no other string.
	state []int32
	// registered marks strings registered so far. A string is related to
	// itself, and the prefilter does not see that.
	registered []bool

	// The suffix automaton. Transitions of the root are in rootNext; those
	// of other states are singly linked edge lists.
	length, link, head []int32
	eByte              []byte
	eTo, eNext         []int32
	rootNext           [256]int32

	tin, tout    []int32 // Euler-tour interval of each state
	containers   fenwick // +1 at each state holding a prefix of a registered container
	contained    fenwick // +1 over the subtree of each registered contained string
	markedPrefix []bool
	markedState  []bool
}

// newContainIndex prepares the index for the candidate tokens cands (which
// are distinct) and registers the vendor-matched texts. A matched text is a
// container for every maximal run of token bytes it holds, since a candidate
// has no other bytes; and it can be contained in a candidate only if it is
// made of token bytes itself.
func newContainIndex(cands, matched []string) *containIndex {
	x := &containIndex{}
	ids := map[string]int{}
	add := func(s string) int {
		if id, ok := ids[s]; ok {
			return id
		}
		ids[s] = len(x.strs)
		x.strs = append(x.strs, s)
		return len(x.strs) - 1
	}
	for _, c := range cands {
		add(c)
	}
	var containers, contained []int
	for _, t := range matched {
		whole := true
		for i := 0; i < len(t); {
			if !isCandidateByte(t[i]) {
				whole = false
				i++
				continue
			}
			j := runEnd(t, i, isCandidateByte)
			if j-i >= entropyMinLen {
				containers = append(containers, add(t[i:j]))
			}
			i = j
		}
		if whole && len(t) >= minGram {
			contained = append(contained, add(t))
		}
	}
	x.build(x.prefilter())
	for _, id := range containers {
		x.registerContainer(id)
	}
	for _, id := range contained {
		x.registerContained(id)
	}
	return x
}

// isCandidateByte is the alphabet of candidate tokens, [A-Za-z0-9+/_=-].
func isCandidateByte(c byte) bool { return c != '.' && isTokenByte(c) }

// related reports whether candidate i contains, or is contained in, a
// registered string.
func (x *containIndex) related(i int) bool {
	if x.registered[i] {
		return true
	}
	st := x.state[i]
	if st < 0 {
		return false
	}
	if x.containers.sum(x.tout[st])-x.containers.sum(x.tin[st]-1) > 0 {
		return true
	}
	related := false
	x.walk(x.strs[i], func(v int32) bool {
		related = x.contained.sum(x.tin[v]) > 0
		return !related
	})
	return related
}

// register records candidate i as matched text, both ways round.
func (x *containIndex) register(i int) {
	x.registerContainer(i)
	x.registerContained(i)
}

func (x *containIndex) registerContainer(id int) {
	x.registered[id] = true
	if x.state[id] < 0 {
		return
	}
	x.walk(x.strs[id], func(v int32) bool {
		if !x.markedPrefix[v] {
			x.markedPrefix[v] = true
			x.containers.add(x.tin[v], 1)
		}
		return true
	})
}

func (x *containIndex) registerContained(id int) {
	x.registered[id] = true
	st := x.state[id]
	if st < 0 || x.markedState[st] {
		return
	}
	x.markedState[st] = true
	x.contained.add(x.tin[st], 1)
	x.contained.add(x.tout[st]+1, -1)
}

// prefilter reports, per string, whether it may contain or be contained in
// another string of the set (see the file comment). Hash collisions only
// send more strings to the exact automaton. A bitmap of the opening windows
// answers most window lookups without touching the map.
func (x *containIndex) prefilter() []bool {
	involved := make([]bool, len(x.strs))
	const shared = -1
	owner := make(map[uint64]int, len(x.strs))
	bits := uint(10)
	for 1<<bits < 16*len(x.strs) {
		bits++
	}
	bitmap := make([]uint64, 1<<bits/64)
	slot := func(h uint64) uint64 { return (h * 0x9E3779B97F4A7C15) >> (64 - bits) }
	for id, s := range x.strs {
		h := gramHash(s[:minGram])
		k := slot(h)
		bitmap[k/64] |= 1 << (k % 64)
		switch o, ok := owner[h]; {
		case !ok:
			owner[h] = id
		case o == shared:
			involved[id] = true
		default:
			involved[o], involved[id] = true, true
			owner[h] = shared
		}
	}
	var pow uint64 = 1
	for i := 0; i < minGram; i++ {
		pow *= gramBase
	}
	for id, s := range x.strs {
		h := gramHash(s[:minGram])
		for o := minGram; ; o++ {
			if k := slot(h); bitmap[k/64]&(1<<(k%64)) != 0 {
				if w, ok := owner[h]; ok && w != id {
					involved[id] = true
					if w != shared {
						involved[w] = true
					}
				}
			}
			if o == len(s) {
				break
			}
			h = h*gramBase + uint64(s[o]) - pow*uint64(s[o-minGram])
		}
	}
	return involved
}

const gramBase = 1099511628211

func gramHash(s string) uint64 {
	var h uint64
	for i := 0; i < len(s); i++ {
		h = h*gramBase + uint64(s[i])
	}
	return h
}

// build makes the automaton over the involved strings and lays out its
// suffix-link tree.
func (x *containIndex) build(involved []bool) {
	x.state = make([]int32, len(x.strs))
	x.registered = make([]bool, len(x.strs))
	for i := range x.rootNext {
		x.rootNext[i] = -1
	}
	// A suffix automaton over n bytes has at most 2n states and 3n
	// transitions, usually nearer n and 1.5n; reserve that much up front
	// and let the rare larger automaton grow.
	total := 0
	for id, s := range x.strs {
		if involved[id] {
			total += len(s)
		}
	}
	x.length = make([]int32, 0, total+1)
	x.link = make([]int32, 0, total+1)
	x.head = make([]int32, 0, total+1)
	x.eByte = make([]byte, 0, total+total/2)
	x.eTo = make([]int32, 0, total+total/2)
	x.eNext = make([]int32, 0, total+total/2)
	x.newState(0, -1)
	for id, s := range x.strs {
		x.state[id] = -1
		if !involved[id] {
			continue
		}
		last := int32(0)
		for i := 0; i < len(s); i++ {
			last = x.extend(last, s[i])
		}
	}
	// A state found by walking, not the one extend returned: later
	// insertions may have split the latter.
	for id, s := range x.strs {
		if involved[id] {
			v := int32(0)
			for i := 0; i < len(s); i++ {
				v = x.next(v, s[i])
			}
			x.state[id] = v
		}
	}
	x.layout()
}

func (x *containIndex) newState(length, link int32) int32 {
	x.length = append(x.length, length)
	x.link = append(x.link, link)
	x.head = append(x.head, -1)
	return int32(len(x.length) - 1)
}

func (x *containIndex) next(v int32, c byte) int32 {
	if v == 0 {
		return x.rootNext[c]
	}
	for e := x.head[v]; e >= 0; e = x.eNext[e] {
		if x.eByte[e] == c {
			return x.eTo[e]
		}
	}
	return -1
}

func (x *containIndex) setNext(v int32, c byte, to int32) {
	if v == 0 {
		x.rootNext[c] = to
		return
	}
	for e := x.head[v]; e >= 0; e = x.eNext[e] {
		if x.eByte[e] == c {
			x.eTo[e] = to
			return
		}
	}
	x.eByte = append(x.eByte, c)
	x.eTo = append(x.eTo, to)
	x.eNext = append(x.eNext, x.head[v])
	x.head[v] = int32(len(x.eTo) - 1)
}

// clone copies state q (its transitions and suffix link) into a new state
// of the given length.
func (x *containIndex) clone(q, length int32) int32 {
	cl := x.newState(length, x.link[q])
	for e := x.head[q]; e >= 0; e = x.eNext[e] {
		x.setNext(cl, x.eByte[e], x.eTo[e])
	}
	return cl
}

// extend appends byte c to the string whose longest prefix so far is in
// state last, and returns the state of the extended prefix. It is the
// online construction generalized to several strings: when the transition
// already exists the string is a repeat of an earlier one up to here.
func (x *containIndex) extend(last int32, c byte) int32 {
	if q := x.next(last, c); q >= 0 {
		if x.length[last]+1 == x.length[q] {
			return q
		}
		cl := x.clone(q, x.length[last]+1)
		for p := last; p >= 0 && x.next(p, c) == q; p = x.link[p] {
			x.setNext(p, c, cl)
		}
		x.link[q] = cl
		return cl
	}
	cur := x.newState(x.length[last]+1, -1)
	p := last
	for p >= 0 && x.next(p, c) < 0 {
		x.setNext(p, c, cur)
		p = x.link[p]
	}
	if p < 0 {
		x.link[cur] = 0
		return cur
	}
	q := x.next(p, c)
	if x.length[p]+1 == x.length[q] {
		x.link[cur] = q
		return cur
	}
	cl := x.clone(q, x.length[p]+1)
	for ; p >= 0 && x.next(p, c) == q; p = x.link[p] {
		x.setNext(p, c, cl)
	}
	x.link[q] = cl
	x.link[cur] = cl
	return cur
}

// walk calls f with the state of every non-empty prefix of s, shortest
// first, until f returns false. s must be one of the indexed strings.
func (x *containIndex) walk(s string, f func(v int32) bool) {
	v := int32(0)
	for i := 0; i < len(s); i++ {
		v = x.next(v, s[i])
		if !f(v) {
			return
		}
	}
}

// layout numbers the suffix-link tree in depth-first order (1-based, for
// the Fenwick trees): the subtree of v is tin[v]..tout[v].
func (x *containIndex) layout() {
	n := len(x.length)
	first := make([]int32, n)
	sibling := make([]int32, n)
	for i := range first {
		first[i] = -1
	}
	for v := n - 1; v > 0; v-- {
		p := x.link[v]
		sibling[v] = first[p]
		first[p] = int32(v)
	}
	x.tin = make([]int32, n)
	x.tout = make([]int32, n)
	clock := int32(0)
	stack := []int32{0}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		if x.tin[v] == 0 {
			clock++
			x.tin[v] = clock
			for c := first[v]; c >= 0; c = sibling[c] {
				stack = append(stack, c)
			}
			continue
		}
		stack = stack[:len(stack)-1]
		x.tout[v] = clock
	}
	x.containers = make(fenwick, n+2)
	x.contained = make(fenwick, n+2)
	x.markedPrefix = make([]bool, n)
	x.markedState = make([]bool, n)
}

// fenwick is a binary indexed tree over 1-based positions.
type fenwick []int32

func (f fenwick) add(i, d int32) {
	for ; int(i) < len(f); i += i & -i {
		f[i] += d
	}
}

func (f fenwick) sum(i int32) int32 {
	var s int32
	for ; i > 0; i -= i & -i {
		s += f[i]
	}
	return s
}

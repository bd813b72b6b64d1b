package explain

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of the word diff. A description can be 100 KB from a hostile
// server, so the diff never does more than a fixed amount of work: the
// common prefix and suffix are trimmed first (linear), and the middle goes
// to Myers' O(ND) algorithm only while the edit distance and the work stay
// under these bounds; past them the middle is one removed and one added run.
const (
	// maxEdits bounds Myers' D, and with it the trace kept for the
	// backtrack (about maxEdits² int32s, 4 MB).
	maxEdits = 1024
	// maxDiffWork bounds the diagonal and snake steps of one diff.
	maxDiffWork = 1 << 22
	// maxItemsWordWork bounds the word diffs of one Items call together,
	// so that a thousand hostile descriptions cost no more than a few
	// bounded ones; past it each diff is one removal and one addition.
	maxItemsWordWork = 1 << 25
)

// Words returns the word-level diff from old to new: runs of WordSame,
// WordRemoved and WordAdded whose texts are the words (runs of
// non-white-space) and the white space between them. The runs of
// WordSame and WordRemoved spell old exactly, those of WordSame and
// WordAdded spell new. Adjacent runs never share an Op except a removal
// followed by an addition, which is how a replacement reads. The work is
// bounded (see maxDiffWork): when the texts differ too much, the differing
// middle is given as one removal and one addition.
func Words(old, new string) []WordOp {
	budget := maxDiffWork
	return words(old, new, &budget)
}

// words is Words with a work budget shared between calls: each call
// spends what it uses, and at most maxDiffWork.
func words(old, new string, budget *int) []WordOp {
	if old == new {
		if old == "" {
			return nil
		}
		return []WordOp{{Op: WordSame, Text: old}}
	}
	a, b := tokenize(old), tokenize(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []WordOp
	ops = appendOp(ops, WordSame, strings.Join(a[:pre], ""))
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var edits []edit
	ok := false
	if *budget > 0 {
		x, y := intern(am, bm)
		var work int
		edits, work, ok = myers(x, y, min(*budget, maxDiffWork))
		*budget -= work
	}
	if !ok {
		ops = appendOp(ops, WordRemoved, strings.Join(am, ""))
		ops = appendOp(ops, WordAdded, strings.Join(bm, ""))
	} else {
		ops = appendEdits(ops, edits, am, bm)
	}
	ops = appendOp(ops, WordSame, strings.Join(a[len(a)-suf:], ""))
	return tidy(ops)
}

// tokenize splits s into alternating runs of white space and of other
// characters. Invalid UTF-8 bytes count as other characters.
func tokenize(s string) []string {
	var toks []string
	start, space := 0, false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		sp := r != utf8.RuneError && unicode.IsSpace(r)
		if i > start && sp != space {
			toks = append(toks, s[start:i])
			start = i
		}
		space = sp
		i += n
	}
	if start < len(s) {
		toks = append(toks, s[start:])
	}
	return toks
}

// intern numbers the distinct tokens of a and b so the diff compares
// integers.
func intern(a, b []string) (x, y []int32) {
	ids := make(map[string]int32, len(a)+len(b))
	id := func(t string) int32 {
		if v, ok := ids[t]; ok {
			return v
		}
		v := int32(len(ids))
		ids[t] = v
		return v
	}
	x = make([]int32, len(a))
	for i, t := range a {
		x[i] = id(t)
	}
	y = make([]int32, len(b))
	for i, t := range b {
		y[i] = id(t)
	}
	return x, y
}

// edit is one step of a token script: kind is WordSame (both advance),
// WordRemoved (a advances) or WordAdded (b advances).
type edit struct {
	kind string
	n    int
}

// myers returns the shortest edit script from a to b and the steps it
// took, or false when it needs more than maxEdits edits or budget steps.
func myers(a, b []int32, budget int) ([]edit, int, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return []edit{{WordRemoved, n}, {WordAdded, m}}, 0, true
	}
	if n-m > maxEdits || m-n > maxEdits {
		// At least |n-m| edits: over the bound before a step is taken.
		return nil, 0, false
	}
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int32, 2*limit+3)
	var trace [][]int32
	work := 0
	for d := 0; d <= limit; d++ {
		// v before step d holds the furthest x on each diagonal after d-1
		// edits; the backtrack reads diagonals -d-1..d+1 of it.
		trace = append(trace, append([]int32(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
				work++
			}
			work++
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, n, m), work, true
			}
		}
		if work > budget {
			return nil, work, false
		}
	}
	return nil, work, false
}

// backtrack walks the saved frontiers from (n, m) back to the origin and
// returns the script in forward order. trace[d] is the frontier before
// step d, diagonals -d-1..d+1.
func backtrack(trace [][]int32, n, m int) []edit {
	var rev []edit
	push := func(kind string) {
		if l := len(rev); l > 0 && rev[l-1].kind == kind {
			rev[l-1].n++
			return
		}
		rev = append(rev, edit{kind, 1})
	}
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		vd := trace[d]
		at := func(k int) int { return int(vd[k+d+1]) }
		k := x - y
		pk := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			push(WordSame)
			x, y = x-1, y-1
		}
		if d > 0 {
			if x == px {
				push(WordAdded)
			} else {
				push(WordRemoved)
			}
		}
		x, y = px, py
	}
	out := make([]edit, len(rev))
	for i := range rev {
		out[len(rev)-1-i] = rev[i]
	}
	return out
}

// appendEdits turns a token script into runs of text.
func appendEdits(ops []WordOp, edits []edit, a, b []string) []WordOp {
	i, j := 0, 0
	for _, e := range edits {
		switch e.kind {
		case WordSame:
			ops = appendOp(ops, WordSame, strings.Join(a[i:i+e.n], ""))
			i, j = i+e.n, j+e.n
		case WordRemoved:
			ops = appendOp(ops, WordRemoved, strings.Join(a[i:i+e.n], ""))
			i += e.n
		case WordAdded:
			ops = appendOp(ops, WordAdded, strings.Join(b[j:j+e.n], ""))
			j += e.n
		}
	}
	return ops
}

// appendOp appends a run, joining it to the last run of the same Op.
func appendOp(ops []WordOp, op, text string) []WordOp {
	if text == "" {
		return ops
	}
	if l := len(ops); l > 0 && ops[l-1].Op == op {
		ops[l-1].Text += text
		return ops
	}
	return append(ops, WordOp{Op: op, Text: text})
}

// tidy makes the diff read as replacements: an unchanged run of white
// space alone between two changes joins them, and within each stretch of
// changes the removed text comes first, then the added text.
func tidy(ops []WordOp) []WordOp {
	var out []WordOp
	var del, add strings.Builder
	flush := func() {
		out = appendOp(out, WordRemoved, del.String())
		out = appendOp(out, WordAdded, add.String())
		del.Reset()
		add.Reset()
	}
	for i, op := range ops {
		switch {
		case op.Op == WordRemoved:
			del.WriteString(op.Text)
		case op.Op == WordAdded:
			add.WriteString(op.Text)
		case i > 0 && i < len(ops)-1 && strings.TrimSpace(op.Text) == "" && (del.Len() > 0 || add.Len() > 0):
			// White space between two changes: part of both.
			del.WriteString(op.Text)
			add.WriteString(op.Text)
		default:
			flush()
			out = appendOp(out, WordSame, op.Text)
		}
	}
	flush()
	return out
}

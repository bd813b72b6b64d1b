package explain

import (
	"strings"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/jsonv"
)

// Bounds of what an Explanation quotes. Every string in one is server text,
// so each is clipped; a clipped value says so (TextChange.Clipped,
// PathChange.Clipped, WordOp.Omitted, the *Omitted counts).
const (
	// MaxTextBytes bounds TextChange.Old and New.
	MaxTextBytes = 4096
	// MaxValueBytes bounds the JSON text of a PathChange side, an enum
	// value and a ToolView's annotations.
	MaxValueBytes = 200
	// MaxPaths bounds Paths, Hints and Arguments.
	MaxPaths = 50
	// MaxEnumValues bounds each of EnumChange's lists.
	MaxEnumValues = 50
	// MaxWordOps bounds the runs of TextChange.Words.
	MaxWordOps = 64
	// MaxRunBytes bounds the text of one removed or added run.
	MaxRunBytes = 512
	// ContextBytes is the unchanged text kept on each side of a change.
	ContextBytes = 80
)

// clipString returns s cut to at most n bytes at a UTF-8 boundary, and
// whether it was cut.
func clipString(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	return s[:runeStart(s, n)], true
}

// runeStart returns the largest i <= n that starts a rune of s (or is
// len(s)).
func runeStart(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	if n < utf8.UTFMax {
		return 0
	}
	return n
}

// tailStart returns the smallest i >= len(s)-n that starts a rune of s.
func tailStart(s string, n int) int {
	i := len(s) - n
	if i <= 0 {
		return 0
	}
	for j := i; j < len(s) && j < i+utf8.UTFMax; j++ {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	return i
}

// clipText returns a TextChange side: s clipped to MaxTextBytes.
func clipText(s string) (*string, bool) {
	c, cut := clipString(s, MaxTextBytes)
	return &c, cut
}

// jsonText returns v's compact JSON text clipped to MaxValueBytes, and
// whether it was clipped. A string is clipped inside its quotes, so it stays
// a JSON string; other clipped values are cut text.
func jsonText(v *jsonv.Value) (string, bool) {
	if v == nil {
		return "null", false
	}
	if v.Kind == jsonv.String {
		s, cut := clipString(v.Text, MaxValueBytes)
		return string(jsonv.AppendQuoted(nil, s)), cut
	}
	if v.CompactLen() <= MaxValueBytes {
		return v.Compact(), false
	}
	// Write only what is kept: a value can be megabytes.
	return string(appendPrefix(nil, v, MaxValueBytes)), true
}

// appendPrefix appends at most about n bytes of v's compact text, cut at a
// UTF-8 boundary, without writing the rest of v.
func appendPrefix(dst []byte, v *jsonv.Value, n int) []byte {
	var w prefixWriter
	w.limit = n
	w.value(v)
	s := string(w.buf)
	return append(dst, s[:runeStart(s, min(len(s), n))]...)
}

// prefixWriter writes compact JSON until limit bytes are written.
type prefixWriter struct {
	buf   []byte
	limit int
}

func (w *prefixWriter) full() bool { return len(w.buf) >= w.limit }

func (w *prefixWriter) value(v *jsonv.Value) {
	if w.full() {
		return
	}
	switch v.Kind {
	case jsonv.Array:
		w.buf = append(w.buf, '[')
		for i, it := range v.Items {
			if w.full() {
				return
			}
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.value(it)
		}
		w.buf = append(w.buf, ']')
	case jsonv.Object:
		w.buf = append(w.buf, '{')
		for i, m := range v.Members {
			if w.full() {
				return
			}
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			k, _ := clipString(m.Key, w.limit)
			w.buf = jsonv.AppendQuoted(w.buf, k)
			w.buf = append(w.buf, ':')
			w.value(m.Value)
		}
		w.buf = append(w.buf, '}')
	case jsonv.String:
		s, _ := clipString(v.Text, w.limit)
		w.buf = jsonv.AppendQuoted(w.buf, s)
	default:
		w.buf = v.AppendCompact(w.buf)
	}
}

// present bounds a word diff for an Explanation: a long unchanged run keeps
// ContextBytes at each end that touches a change and omits its middle, a
// long change keeps MaxRunBytes, and past MaxWordOps runs the rest of both
// texts is one removal and one addition. For every run, len(Text)+Omitted
// is the length of the text it stands for, so the runs still account for
// every byte of both texts.
func present(ops []WordOp) []WordOp {
	if len(ops) > MaxWordOps {
		ops = collapseTail(ops, MaxWordOps-2)
	}
	out := make([]WordOp, 0, len(ops)+2)
	for i, op := range ops {
		if op.Op != WordSame {
			text, _ := clipString(op.Text, MaxRunBytes)
			out = append(out, WordOp{Op: op.Op, Text: text, Omitted: len(op.Text) - len(text)})
			continue
		}
		head, tail := ContextBytes, ContextBytes
		if i == 0 {
			head = 0
		}
		if i == len(ops)-1 {
			tail = 0
		}
		if len(op.Text) <= head+tail+ContextBytes {
			out = append(out, op)
			continue
		}
		h := runeStart(op.Text, head)
		t := tailStart(op.Text, tail)
		out = append(out, WordOp{Op: WordSame, Text: op.Text[:h], Omitted: t - h})
		if t < len(op.Text) {
			out = append(out, WordOp{Op: WordSame, Text: op.Text[t:]})
		}
	}
	return out
}

// collapseTail keeps the first keep runs and turns the rest into one
// removal (the rest of the old text) and one addition (the rest of the new).
func collapseTail(ops []WordOp, keep int) []WordOp {
	// End the kept runs on an unchanged one, so that the removal and the
	// addition read as one replacement.
	for keep > 0 && ops[keep-1].Op != WordSame {
		keep--
	}
	var del, add strings.Builder
	for _, op := range ops[keep:] {
		if op.Op != WordAdded {
			del.WriteString(op.Text)
		}
		if op.Op != WordRemoved {
			add.WriteString(op.Text)
		}
	}
	out := append([]WordOp(nil), ops[:keep]...)
	out = appendOp(out, WordRemoved, del.String())
	return appendOp(out, WordAdded, add.String())
}

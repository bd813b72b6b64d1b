package jsonv

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// canonFastDepth is the deepest nesting CanonicalText reads itself; a
// deeper value is left to Transcode, which applies the depth bounds.
const canonFastDepth = 64

// CanonicalText is Transcode for the common case, in a quicker pass: it
// reads the value at the current position when no object key in it has
// an escape and the nesting is under 64, and appends its compact text to
// compact and its canonical text to canonical, exactly as Transcode
// would. A lock's schema skeletons are such values.
//
// Anything else — a key with an escape, a repeated key, a number with no
// canonical form, and any input Transcode would refuse — is declined: ok is false, compact and
// canonical are returned as passed and the Decoder is where it was (input
// it read ahead stays buffered), so the caller falls back on Transcode,
// which then reads and reports exactly what it always has. depth is as
// for Transcode.
func (d *Decoder) CanonicalText(compact, canonical []byte, depth int) (c, k []byte, ok bool, err error) {
	return d.canonicalText(compact, canonical, depth, false)
}

// CanonicalOnly is CanonicalText for a caller that wants the canonical
// text alone (to hash it): the compact text is not written. It reads,
// and declines, exactly what CanonicalText does.
func (d *Decoder) CanonicalOnly(canonical []byte, depth int) (k []byte, ok bool, err error) {
	_, k, ok, err = d.canonicalText(nil, canonical, depth, true)
	return k, ok, err
}

func (d *Decoder) canonicalText(compact, canonical []byte, depth int, noCompact bool) (c, k []byte, ok bool, err error) {
	if err := d.begin(); err != nil {
		return compact, canonical, false, err
	}
	if depth < 0 || depth+canonFastDepth > CanonicalMaxDepth || d.maxDepth < d.depth+canonFastDepth {
		return compact, canonical, false, nil
	}
	d.skipSpace()
	s := d.fast
	if s == nil {
		s = &canonScan{d: d}
		d.fast = s
	}
	s.c, s.k, s.i, s.values, s.sp, s.noCompact = compact, canonical, 0, 0, 0, noCompact
	s.spans = s.spans[:0]
	d.mark = d.pos
	good := s.run() && (d.maxValues <= 0 || d.values+s.values <= d.maxValues)
	c, k = s.c, s.k
	s.c, s.k = nil, nil
	if !good {
		d.pos, d.mark = d.mark, -1
		return compact[:len(compact)], canonical[:len(canonical)], false, nil
	}
	d.pos, d.mark = d.mark+s.i, -1
	d.values += s.values
	d.consumed++
	return c, k, true, nil
}

// canonScan is the state of a CanonicalText call, kept by the Decoder
// from call to call for its buffers. Offsets into the input (i, the keys)
// count from d.mark, the value's first byte, which fill keeps buffered.
type canonScan struct {
	d    *Decoder
	c, k []byte
	// noCompact is set for CanonicalOnly: c is not written.
	noCompact bool
	i         int
	values    int
	// stack holds the open containers.
	stack [canonFastDepth]canonFrame
	sp    int
	// spans are the members of the objects being read, as a stack; tmp
	// is where an object's members are put in key order.
	spans []canonSpan
	tmp   []byte
	// sb is where a string with escapes is decoded.
	sb []byte
}

// canonFrame is an open container.
type canonFrame struct {
	obj bool
	// For an object: its first member's span, where its members' text
	// begins in k, and whether its keys have come in order so far.
	spanBase, first int
	sorted          bool
	// reversed is set while the keys have come in reverse order, as the
	// members of a skeleton's property do (type, required, enum,
	// constraints): they are then put in order without a sort.
	reversed bool
}

// canonSpan is one member of an object: its key's contents in the input
// and its canonical text, "key":value, in k.
type canonSpan struct {
	keyStart, keyEnd int
	start, end       int
}

// buf is the input from the value's first byte.
func (s *canonScan) buf() []byte { return s.d.buf[s.d.mark:] }

// more makes the input at offset i available, reading on; false at the
// end of the input.
func (s *canonScan) more() bool {
	for s.d.mark+s.i >= len(s.d.buf) {
		if !s.d.fill() {
			return false
		}
	}
	return true
}

// space skips whitespace and returns the next byte.
func (s *canonScan) space() (byte, bool) {
	// Most tokens follow none (inlined here), or one blank.
	if i := s.d.mark + s.i; i < len(s.d.buf) && s.d.buf[i] > ' ' {
		return s.d.buf[i], true
	}
	return s.spaceRun()
}

// spaceRun is space past one or more whitespace bytes.
func (s *canonScan) spaceRun() (byte, bool) {
	for {
		if !s.more() {
			return 0, false
		}
		b, i := s.buf(), s.i
		for i < len(b) {
			// Indentation comes in runs of blanks: eight at a time.
			if i+8 <= len(b) {
				x := binary.LittleEndian.Uint64(b[i:]) ^ 0x2020202020202020
				if x == 0 {
					i += 8
					continue
				}
				i += bits.TrailingZeros64(x) >> 3
			}
			switch b[i] {
			case ' ', '\n', '\t', '\r':
				i++
				continue
			}
			s.i = i
			return b[i], true
		}
		s.i = i
	}
}

// put appends b to both texts.
func (s *canonScan) put(b byte) {
	if !s.noCompact {
		s.c = append(s.c, b)
	}
	s.k = append(s.k, b)
}

// run scans one value and reports whether it is of the kind CanonicalText
// reads.
func (s *canonScan) run() bool {
	for {
		// A value.
		ch, ok := s.space()
		if !ok {
			return false
		}
		s.values++
		switch {
		case ch == '{' || ch == '[':
			if s.sp == canonFastDepth {
				return false
			}
			s.put(ch)
			s.i++
			next, ok := s.space()
			if !ok {
				return false
			}
			if ch == '{' && next == '}' || ch == '[' && next == ']' {
				s.put(next)
				s.i++
				break
			}
			s.stack[s.sp] = canonFrame{obj: ch == '{', spanBase: len(s.spans), first: len(s.k), sorted: true, reversed: true}
			s.sp++
			if ch == '{' && !s.key() {
				return false
			}
			continue
		case ch == '"':
			if _, _, ok := s.str(false); !ok {
				return false
			}
		case ch == '-' || ch >= '0' && ch <= '9':
			if !s.number() {
				return false
			}
		case ch == 't':
			if !s.word("true") {
				return false
			}
		case ch == 'f':
			if !s.word("false") {
				return false
			}
		case ch == 'n':
			if !s.word("null") {
				return false
			}
		default:
			return false
		}
		// After a value: a separator, or the ends of containers.
		for s.sp > 0 {
			ch, ok := s.space()
			if !ok {
				return false
			}
			top := &s.stack[s.sp-1]
			if top.obj && (ch == ',' || ch == '}') {
				s.spans[len(s.spans)-1].end = len(s.k)
			}
			if ch == ',' {
				s.put(',')
				s.i++
				if top.obj && !s.key() {
					return false
				}
				break
			}
			if ch == '}' && top.obj {
				if !s.closeObject(top) {
					return false
				}
			} else if ch != ']' || top.obj {
				return false
			}
			s.put(ch)
			s.i++
			s.sp--
		}
		if s.sp == 0 {
			return true
		}
	}
}

// key reads an object member's key and the colon after it.
func (s *canonScan) key() bool {
	ch, ok := s.space()
	if !ok || ch != '"' {
		return false
	}
	top := &s.stack[s.sp-1]
	start := len(s.k)
	ks, ke, ok := s.str(true)
	if !ok {
		return false
	}
	if n := len(s.spans); n > top.spanBase && (top.sorted || top.reversed) {
		b := s.buf()
		switch c := compareUTF16Bytes(b[s.spans[n-1].keyStart:s.spans[n-1].keyEnd], b[ks:ke]); {
		case c == 0:
			return false // repeated: Transcode says so
		case c > 0:
			top.sorted = false
		default:
			top.reversed = false
		}
	}
	s.spans = append(s.spans, canonSpan{keyStart: ks, keyEnd: ke, start: start})
	if ch, ok := s.space(); !ok || ch != ':' {
		return false
	}
	s.put(':')
	s.i++
	return true
}

// closeObject puts the members of the object top in key order in k and
// pops them; false for a repeated key.
func (s *canonScan) closeObject(top *canonFrame) bool {
	members := s.spans[top.spanBase:]
	s.spans = s.spans[:top.spanBase]
	if top.sorted {
		return true
	}
	if top.reversed {
		// Strictly decreasing keys: none repeats, and the order is the
		// members backwards.
		s.tmp = s.tmp[:0]
		for i := len(members) - 1; i >= 0; i-- {
			s.tmp = append(s.tmp, s.k[members[i].start:members[i].end]...)
			if i > 0 {
				s.tmp = append(s.tmp, ',')
			}
		}
		s.k = append(s.k[:top.first], s.tmp...)
		return true
	}
	b := s.buf()
	slices.SortFunc(members, func(x, y canonSpan) int {
		return compareUTF16Bytes(b[x.keyStart:x.keyEnd], b[y.keyStart:y.keyEnd])
	})
	s.tmp = s.tmp[:0]
	for i, m := range members {
		if i > 0 {
			if compareUTF16Bytes(b[members[i-1].keyStart:members[i-1].keyEnd], b[m.keyStart:m.keyEnd]) == 0 {
				return false
			}
			s.tmp = append(s.tmp, ',')
		}
		s.tmp = append(s.tmp, s.k[m.start:m.end]...)
	}
	s.k = append(s.k[:top.first], s.tmp...)
	return true
}

// word reads the literal w.
func (s *canonScan) word(w string) bool {
	if b := s.buf(); s.i+len(w) <= len(b) {
		if string(b[s.i:s.i+len(w)]) != w {
			return false
		}
		s.i += len(w)
		if !s.noCompact {
			s.c = append(s.c, w...)
		}
		s.k = append(s.k, w...)
		return true
	}
	for j := 0; j < len(w); j++ {
		if !s.more() || s.buf()[s.i] != w[j] {
			return false
		}
		s.i++
	}
	if !s.noCompact {
		s.c = append(s.c, w...)
	}
	s.k = append(s.k, w...)
	return true
}

// compareUTF16Bytes is CompareUTF16 over byte slices of valid UTF-8.
func compareUTF16Bytes(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	if a[i] < 0xEE || b[i] < 0xEE {
		// Byte order is UTF-16 order but where a character from U+E000
		// to U+FFFF (lead byte EE or EF) meets one above U+FFFF (F0 to
		// F4), or within a character, where the lead bytes agree.
		return int(a[i]) - int(b[i])
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRune(a[i:])
	rb, _ := utf8.DecodeRune(b[i:])
	ua, ub := firstUnit(ra), firstUnit(rb)
	if ua != ub {
		return int(ua) - int(ub)
	}
	return int(ra) - int(rb)
}

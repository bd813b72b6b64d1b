package jsonv

import (
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// CanonicalMaxDepth is RFC 8785's nesting bound as the lock format applies
// it (package canon's MaxDepth): no canonical text is given for an element
// deeper than this below the document's root.
const CanonicalMaxDepth = 512

// Transcode reads the value at the current position as Value would — the
// same refusals, the same error positions and paths — but builds no tree:
// it appends the value's compact text (AppendCompact's form) to compact
// and its RFC 8785 canonical text (members sorted by the UTF-16 code units
// of their keys, numbers in ECMAScript form) to canonical, in one pass. A
// lock reader gets a schema skeleton's stored text and the bytes its digest
// covers this way at a fraction of the cost of a tree.
//
// depth is the element's depth in the document whose digest the canonical
// text is part of, for CanonicalMaxDepth. A value the canonical form has no
// text for — a number outside RFC 8785's domain (an integer beyond
// ±(2^53−1), a float that is not finite), or nesting past
// CanonicalMaxDepth — gives ok false and no canonical text (canonical is
// returned as passed); package canon refuses the same values.
func (d *Decoder) Transcode(compact, canonical []byte, depth int) (c, k []byte, ok bool, err error) {
	if err := d.begin(); err != nil {
		return compact, canonical, false, err
	}
	d.skipSpace()
	t := d.trans
	if t == nil {
		t = &transcoder{d: d}
		d.trans = t
	}
	t.c, t.k, t.ok, t.base = compact, canonical, true, depth-d.depth
	defer func() { t.c, t.k = nil, nil }()
	if err := t.value(d.depth); err != nil {
		if pe, isParse := err.(*ParseError); isParse {
			pe.settle()
		}
		return compact, canonical, false, d.setErr(err)
	}
	d.consumed++
	if !t.ok {
		return t.c, canonical, false, nil
	}
	return t.c, t.k, true, nil
}

// transcoder is the state of a Transcode call; its scratch (spans, tmp)
// is kept by the Decoder from call to call.
type transcoder struct {
	d    *Decoder
	c, k []byte
	ok   bool
	// base turns a parse depth into a canonical depth.
	base int
	// spans are the canonical texts of the members of the objects being
	// read, as a stack; tmp is where an object's members are put in order.
	spans []span
	tmp   []byte
}

// span is one member's canonical text, "key":value, in k.
type span struct {
	key        string
	start, end int
}

// value mirrors Decoder.value, check for check.
func (t *transcoder) value(depth int) error {
	d := t.d
	if depth > d.maxDepth {
		return d.fail("nesting deeper than %d", d.maxDepth)
	}
	d.values++
	if d.maxValues > 0 && d.values > d.maxValues {
		return &ValueLimitError{Limit: d.maxValues}
	}
	if depth+t.base > CanonicalMaxDepth {
		t.ok = false
	}
	c, ok := d.peek()
	if !ok {
		return d.fail("unexpected end of input")
	}
	switch {
	case c == '{':
		return t.object(depth)
	case c == '[':
		return t.array(depth)
	case c == '"':
		raw, plain, err := d.plainString()
		if err != nil {
			return err
		}
		if plain {
			// No escape and nothing to escape: the literal as it stands.
			t.c = append(append(append(t.c, '"'), raw...), '"')
			t.k = append(append(append(t.k, '"'), raw...), '"')
			d.mark = -1
			return nil
		}
		s, err := d.escapedString()
		if err != nil {
			return err
		}
		t.c = AppendQuoted(t.c, s)
		t.k = AppendQuoted(t.k, s)
		return nil
	case c == '-' || isDigit(c):
		kind, err := d.scanNumber()
		if err != nil {
			return err
		}
		lit := d.buf[d.mark:d.pos]
		t.c = append(t.c, lit...)
		t.k = t.canonicalNumber(t.k, kind, lit)
		d.mark = -1
		return nil
	case c == 't', c == 'f', c == 'n':
		word := "null"
		switch c {
		case 't':
			word = "true"
		case 'f':
			word = "false"
		}
		if err := d.scanLiteral(word); err != nil {
			return err
		}
		t.c = append(t.c, word...)
		t.k = append(t.k, word...)
		return nil
	default:
		return d.fail("invalid character %s", quoteByte(c))
	}
}

// maxSafeDigits is the most digits an integer can have and always be
// within ±(2^53−1) (which has 16).
const maxSafeDigits = 15

var maxSafe = big.NewInt(1<<53 - 1)

// canonicalNumber appends the ECMAScript form of a number literal, or
// marks the value as having none.
func (t *transcoder) canonicalNumber(k []byte, kind Kind, lit []byte) []byte {
	k, ok := appendCanonicalNumber(k, kind, lit)
	if !ok {
		t.ok = false
	}
	return k
}

// appendCanonicalNumber appends the ECMAScript form of a number literal
// of the given kind (Int or Float) to k; false, and k as passed, when it
// has none.
func appendCanonicalNumber(k []byte, kind Kind, lit []byte) ([]byte, bool) {
	if kind == Int {
		digits := lit
		if digits[0] == '-' {
			digits = digits[1:]
		}
		if len(digits) > maxSafeDigits {
			i, ok := new(big.Int).SetString(string(lit), 10)
			if !ok || i.CmpAbs(maxSafe) > 0 {
				return k, false
			}
		}
		// A safe integer literal is its own ECMAScript form, except that
		// negative zero is written 0.
		if strings.TrimLeft(string(digits), "0") == "" {
			return append(k, '0'), true
		}
		return append(k, lit...), true
	}
	// As Value.Float64 and package canon read it: a literal out of range
	// is an infinity, which has no canonical form.
	f, _ := strconv.ParseFloat(string(lit), 64)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return k, false
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return k, false
	}
	return append(k, s...), true
}

// array mirrors Decoder.array.
func (t *transcoder) array(depth int) error {
	d := t.d
	d.pos++ // '['
	t.c = append(t.c, '[')
	t.k = append(t.k, '[')
	d.skipSpace()
	if c, ok := d.peek(); ok && c == ']' {
		d.pos++
		t.c = append(t.c, ']')
		t.k = append(t.k, ']')
		return nil
	}
	for i := 0; ; i++ {
		d.skipSpace()
		if i > 0 {
			t.c = append(t.c, ',')
			t.k = append(t.k, ',')
		}
		if err := t.value(depth + 1); err != nil {
			return within(err, PathElem{Index: i, IsIndex: true})
		}
		d.skipSpace()
		c, ok := d.peek()
		if !ok {
			return d.fail("unexpected end of input in array")
		}
		switch c {
		case ',':
			d.pos++
		case ']':
			d.pos++
			t.c = append(t.c, ']')
			t.k = append(t.k, ']')
			return nil
		default:
			return d.fail("expected ',' or ']' in array")
		}
	}
}

// object mirrors Decoder.object; the members' canonical texts are then put
// in key order.
func (t *transcoder) object(depth int) error {
	d := t.d
	d.pos++ // '{'
	t.c = append(t.c, '{')
	t.k = append(t.k, '{')
	d.skipSpace()
	if c, ok := d.peek(); ok && c == '}' {
		d.pos++
		t.c = append(t.c, '}')
		t.k = append(t.k, '}')
		return nil
	}
	base, hbase := len(t.spans), len(d.keyHashes)
	first := len(t.k)
	var seen keySet
	for {
		d.skipSpace()
		if c, ok := d.peek(); !ok || c != '"' {
			return d.fail("expected a string object key")
		}
		key, h, plain, err := d.key()
		if err != nil {
			return err
		}
		if d.repeatedKey(key, h, hbase, &seen, func(j int) string { return t.spans[base+j].key }) {
			return d.fail("duplicate object key %q", key)
		}
		d.skipSpace()
		if c, ok := d.peek(); !ok || c != ':' {
			return d.fail("expected ':' after object key")
		}
		d.pos++
		d.skipSpace()
		if len(t.spans) > base {
			t.c = append(t.c, ',')
			t.k = append(t.k, ',')
		}
		start := len(t.k)
		if plain {
			// Nothing in a key written without escapes needs one.
			t.c = append(append(append(t.c, '"'), key...), '"', ':')
			t.k = append(append(append(t.k, '"'), key...), '"', ':')
		} else {
			t.c = append(AppendQuoted(t.c, key), ':')
			t.k = append(AppendQuoted(t.k, key), ':')
		}
		if err := t.value(depth + 1); err != nil {
			return within(err, PathElem{Key: key})
		}
		t.spans = append(t.spans, span{key: key, start: start, end: len(t.k)})
		d.skipSpace()
		c, ok := d.peek()
		if !ok {
			return d.fail("unexpected end of input in object")
		}
		switch c {
		case ',':
			d.pos++
		case '}':
			d.pos++
			t.c = append(t.c, '}')
			t.order(first, t.spans[base:])
			clear(t.spans[base:])
			t.spans = t.spans[:base]
			d.keyHashes = d.keyHashes[:hbase]
			t.k = append(t.k, '}')
			return nil
		default:
			return d.fail("expected ',' or '}' in object")
		}
	}
}

// order rewrites the members written from k[first:] in key order, unless
// they are in it already (as in a lock, whose skeletons list their keys
// sorted).
func (t *transcoder) order(first int, members []span) {
	sorted := true
	for i := 1; i < len(members); i++ {
		if CompareUTF16(members[i-1].key, members[i].key) > 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	slices.SortStableFunc(members, func(a, b span) int { return CompareUTF16(a.key, b.key) })
	t.tmp = t.tmp[:0]
	for i, m := range members {
		if i > 0 {
			t.tmp = append(t.tmp, ',')
		}
		t.tmp = append(t.tmp, t.k[m.start:m.end]...)
	}
	t.k = append(t.k[:first], t.tmp...)
}

// CompareUTF16 orders two strings by UTF-16 code units, as RFC 8785 sorts
// object keys (package canon sorts with it too). UTF-8 byte order is code
// point order, which differs only where a character above U+FFFF meets one
// from U+E000 to U+FFFF; so compare the first differing characters by their
// first UTF-16 unit.
func CompareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	ua, ub := firstUnit(ra), firstUnit(rb)
	if ua != ub {
		return int(ua) - int(ub)
	}
	return int(ra) - int(rb)
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

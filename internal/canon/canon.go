// Package canon is the lock format's canonical form and hash (SPEC §4, §5):
// RFC 8785 JSON Canonicalization via github.com/gowebpki/jcs, the normative
// nesting bound of 512, the safe-integer domain, and
// hash(v) = "sha256:" + lowercase hex SHA-256 of the canonical bytes.
package canon

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"math"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/wardenlock/warden/internal/jsonv"
)

// MaxDepth is SPEC §4's nesting bound: an element deeper than this (the root
// is depth 0) is refused, never hashed.
const MaxDepth = 512

// maxSafeInt is 2^53-1, the largest integer RFC 8785 (and the reference's
// rfc8785 library) accepts when the literal is written as an integer.
var maxSafeInt = big.NewInt(1<<53 - 1)

// CheckDepth refuses v when any element sits deeper than MaxDepth. The walk is
// iterative and stops at the first offending element.
func CheckDepth(v *jsonv.Value) error {
	type frame struct {
		v     *jsonv.Value
		depth int
	}
	stack := []frame{{v, 0}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.depth > MaxDepth {
			return fmt.Errorf("value nests deeper than %d levels", MaxDepth)
		}
		switch f.v.Kind {
		case jsonv.Array:
			for _, it := range f.v.Items {
				stack = append(stack, frame{it, f.depth + 1})
			}
		case jsonv.Object:
			for _, m := range f.v.Members {
				stack = append(stack, frame{m.Value, f.depth + 1})
			}
		}
	}
	return nil
}

// checkNumbers refuses integers outside ±(2^53-1) and floats that are not
// finite, as RFC 8785's I-JSON number domain requires.
func checkNumbers(v *jsonv.Value) error {
	stack := []*jsonv.Value{v}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch n.Kind {
		case jsonv.Int:
			// Cheap pre-check: 15 digits or fewer always fit under 2^53-1.
			if len(strings.TrimPrefix(n.Text, "-")) > 15 {
				i, ok := new(big.Int).SetString(n.Text, 10)
				if !ok || i.CmpAbs(maxSafeInt) > 0 {
					return fmt.Errorf("integer %.40s exceeds the safe integer domain", n.Text)
				}
			}
		case jsonv.Float:
			if f, _ := n.Float64(); math.IsInf(f, 0) || math.IsNaN(f) {
				return fmt.Errorf("number %.40s is not finite", n.Text)
			}
		case jsonv.Array:
			stack = append(stack, n.Items...)
		case jsonv.Object:
			for _, m := range n.Members {
				stack = append(stack, m.Value)
			}
		}
	}
	return nil
}

// Canonical returns the RFC 8785 canonical text of v, refusing values that
// nest deeper than MaxDepth or hold numbers outside the I-JSON domain.
//
// The text is written straight from the parsed tree instead of handing
// compact JSON to jcs.Transform, which would parse every hashed value a
// second time: that re-parse was over half of the cost of building a lock.
// Floats are still formatted by jcs.NumberToJSON, and FuzzCanonicalMatchesJCS
// holds this encoder to jcs.Transform's output byte for byte.
func Canonical(v *jsonv.Value) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, 256)}
	if err := e.value(v, 0); err != nil {
		return nil, fmt.Errorf("canonicalize: %w", err)
	}
	return e.buf, nil
}

// Hash returns "sha256:" + lowercase hex SHA-256 of v's canonical form.
func Hash(v *jsonv.Value) (string, error) {
	var h Hasher
	return h.Hash(v)
}

// Hasher hashes values like Hash, reusing its buffers between calls: the
// canonical bytes stream into SHA-256 through one buffer, and object members
// are put in order in one scratch area, so building a lock of thousands of entries
// does not allocate a copy of every schema's text. The zero value is ready
// to use; a Hasher is not safe for concurrent use.
type Hasher struct {
	enc encoder
	sha hash.Hash
	sum [sha256.Size]byte
}

// Hash returns "sha256:" + lowercase hex SHA-256 of v's canonical form.
func (h *Hasher) Hash(v *jsonv.Value) (string, error) {
	h.Begin()
	if err := h.WriteValue(v, 0); err != nil {
		return "", err
	}
	return h.Sum(), nil
}

// Begin starts a digest written in parts, for a document some of whose
// canonical text the caller writes itself (a lock entry whose fixed keys
// are known in order): WriteRaw adds text that is already canonical,
// WriteString a string literal, WriteValue a value's canonical text, and
// Sum returns "sha256:" + hex of it all. The caller is responsible for the
// keys' order and the punctuation between parts.
func (h *Hasher) Begin() {
	if h.sha == nil {
		h.sha = sha256.New()
		h.enc.buf = make([]byte, 0, 2*flushAt)
	}
	h.sha.Reset()
	h.enc.buf = h.enc.buf[:0]
	// A refused value leaves its member orders behind.
	h.enc.order = h.enc.order[:0]
	h.enc.sink = h.sha
}

// WriteRaw adds canonical text as it is.
func (h *Hasher) WriteRaw(s string) {
	h.enc.buf = append(h.enc.buf, s...)
	h.enc.flush()
}

// WriteBytes adds canonical text as it is.
func (h *Hasher) WriteBytes(p []byte) {
	h.enc.buf = append(h.enc.buf, p...)
	h.enc.flush()
}

// WriteString adds s as a JSON string literal, escaped as RFC 8785 says.
func (h *Hasher) WriteString(s string) {
	h.enc.buf = jsonv.AppendQuoted(h.enc.buf, s)
	h.enc.flush()
}

// WriteValue adds the canonical text of v, an element at the given depth
// of the whole document (for the MaxDepth bound).
func (h *Hasher) WriteValue(v *jsonv.Value, depth int) error {
	if err := h.enc.value(v, depth); err != nil {
		return fmt.Errorf("canonicalize: %w", err)
	}
	return nil
}

// Sum finishes a digest begun with Begin.
func (h *Hasher) Sum() string {
	h.sha.Write(h.enc.buf)
	h.enc.buf = h.enc.buf[:0]
	sum := h.sha.Sum(h.sum[:0])
	var out [len("sha256:") + 2*sha256.Size]byte
	copy(out[:], "sha256:")
	hex.Encode(out[len("sha256:"):], sum)
	return string(out[:])
}

// flushAt is the buffered size at which an encoder with a sink hands its
// bytes over.
const flushAt = 16 << 10

// encoder writes canonical text into buf, passing it to sink (when set)
// whenever it grows past flushAt. order holds the sorted member orders of
// the objects being written, as a stack.
type encoder struct {
	buf   []byte
	sink  io.Writer
	order []keyOrder
}

func (e *encoder) flush() { e.buf = e.flushed(e.buf) }

// flushed hands buf, the encoder's buffer carried through a recursion, to
// the sink once it has grown past flushAt, and returns what to go on
// appending to.
func (e *encoder) flushed(buf []byte) []byte {
	if e.sink != nil && len(buf) >= flushAt {
		e.sink.Write(buf)
		buf = buf[:0]
	}
	return buf
}

// canonicalViaJCS is the library path: compact text through jcs.Transform.
// Tests use it as the oracle for the encoder.
func canonicalViaJCS(v *jsonv.Value) ([]byte, error) {
	if err := CheckDepth(v); err != nil {
		return nil, err
	}
	if err := checkNumbers(v); err != nil {
		return nil, err
	}
	return jcs.Transform(v.AppendCompact(nil))
}

// value writes v, an element at the given depth.
func (e *encoder) value(v *jsonv.Value, depth int) error {
	var err error
	e.buf, err = e.appendValue(e.buf, v, depth)
	return err
}

// appendValue appends v, an element at the given depth, to buf, which is
// the encoder's buffer: it is carried through the recursion in registers
// and stored back by value, instead of being loaded and stored through e
// at every append. Refusing an element deeper than MaxDepth here is the
// §4 bound: the recursion never goes past it.
func (e *encoder) appendValue(buf []byte, v *jsonv.Value, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return buf, fmt.Errorf("value nests deeper than %d levels", MaxDepth)
	}
	switch v.Kind {
	case jsonv.Null:
		buf = append(buf, "null"...)
	case jsonv.Bool:
		if v.Bool {
			buf = append(buf, "true"...)
		} else {
			buf = append(buf, "false"...)
		}
	case jsonv.Int:
		return appendInt(buf, v.Text)
	case jsonv.Float:
		if b, ok := appendPlainDecimal(buf, v.Text); ok {
			return b, nil
		}
		f, _ := v.Float64()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return buf, fmt.Errorf("number %.40s is not finite", v.Text)
		}
		s, err := jcs.NumberToJSON(f)
		if err != nil {
			return buf, err
		}
		buf = append(buf, s...)
	case jsonv.String:
		buf = v.AppendQuotedText(buf)
		buf = e.flushed(buf)
	case jsonv.Array:
		buf = append(buf, '[')
		for i, it := range v.Items {
			if i > 0 {
				buf = append(buf, ',')
			}
			if it.Kind == jsonv.String && depth < MaxDepth {
				buf = it.AppendQuotedText(buf)
				buf = e.flushed(buf)
				continue
			}
			var err error
			if buf, err = e.appendValue(buf, it, depth+1); err != nil {
				return buf, err
			}
		}
		buf = append(buf, ']')
	default:
		buf = append(buf, '{')
		// The members are written in the order of a list of their keys'
		// indices and prefixes, made (and sorted, when the members are not
		// in order already) on the order stack while their values are
		// written; nested objects push above them. If the stack grows and
		// moves, this level keeps reading its (unchanged) old segment. The
		// list holds no pointers: sorting it moves no schema nodes and
		// leaves nothing to clear for the collector.
		members := v.Members
		base := len(e.order)
		var i int
		e.order, i = appendKeyOrder(e.order, members)
		ord := e.order[base:]
		if i > 0 {
			sortKeyOrder(ord, members, i)
		}
		for j, o := range ord {
			if j > 0 {
				buf = append(buf, ',')
			}
			m := members[o.idx]
			if n := len(m.Key); o.plain && n <= 8 {
				// The key is its prefix's first n bytes: written from
				// the word, without a copy from the key's text.
				l := len(buf) + 1 + n
				buf = binary.BigEndian.AppendUint64(append(buf, '"'), o.pfx)[:l]
				buf = append(buf, '"', ':')
			} else if o.plain {
				buf = append(buf, '"')
				buf = append(buf, m.Key...)
				buf = append(buf, '"', ':')
			} else {
				buf = jsonv.AppendQuoted(buf, m.Key)
				buf = append(buf, ':')
			}
			// A string, the commonest member value, is written here
			// rather than through a call (as in appendValue), unless it
			// is too deep.
			if mv := m.Value; mv.Kind == jsonv.String && depth < MaxDepth {
				buf = mv.AppendQuotedText(buf)
				buf = e.flushed(buf)
				continue
			}
			var err error
			if buf, err = e.appendValue(buf, m.Value, depth+1); err != nil {
				return buf, err
			}
		}
		e.order = e.order[:base]
		buf = append(buf, '}')
	}
	return buf, nil
}

// appendInt appends the ECMAScript form of the integer literal lit,
// refusing one outside the safe integer domain.
func appendInt(buf []byte, lit string) ([]byte, error) {
	digits := lit
	if len(lit) > 0 && lit[0] == '-' {
		digits = lit[1:]
	}
	// Cheap pre-check: 15 digits or fewer always fit under 2^53-1.
	if len(digits) > 15 {
		i, ok := new(big.Int).SetString(lit, 10)
		if !ok || i.CmpAbs(maxSafeInt) > 0 {
			return buf, fmt.Errorf("integer %.40s exceeds the safe integer domain", lit)
		}
	}
	// A safe JSON integer literal (no leading zeros) is already its
	// ECMAScript form, except that negative zero is written 0. A literal
	// that starts with a nonzero digit is not zero; any other (a value
	// built by hand may have leading zeros) is zero when it is all zeros.
	if len(digits) > 0 && digits[0] != '0' || strings.TrimLeft(digits, "0") != "" {
		return append(buf, lit...), nil
	}
	return append(buf, '0'), nil
}

// appendPlainDecimal appends the ECMAScript form of a float literal
// written as a plain decimal (-?digits.digits, no exponent) with at most 15
// significant digits and no more than five zeros after the point before
// the first nonzero digit, and reports false, appending nothing, for any
// other literal. Such a literal is finite and normal, and 15 digits is
// what a float64 holds exactly (DBL_DIG): no other decimal of 15 digits or
// fewer rounds to the same float64, so the shortest text that rounds back
// to it is the literal's own digits. Its magnitude, from 1e-6 up to below
// 1e15, is in the range ECMAScript writes without an exponent; so the
// form is the literal without leading zeros before the point, without
// trailing zeros after it, and without a point when nothing is left after
// it. Zero of either sign is 0. TestPlainDecimal holds this to
// jcs.NumberToJSON.
//
// It takes the literal apart in one pass, as jsonv.SplitPlainDecimal
// would (TestPlainDecimalMatchesSplit holds the two together): a float of
// a schema (a maximum of 101.0) is common enough for the calls and the
// second looks of the general split to show.
func appendPlainDecimal(dst []byte, lit string) ([]byte, bool) {
	i := 0
	if len(lit) > 0 && lit[0] == '-' {
		i = 1
	}
	// The integer digits, and the first of them that is not a zero.
	intStart := i
	for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
		i++
	}
	intEnd := i
	if intEnd == intStart || i == len(lit) || lit[i] != '.' {
		return dst, false
	}
	sig := intStart
	for sig < intEnd && lit[sig] == '0' {
		sig++
	}
	// The fraction digits, up to the last that is not a zero, and the
	// first that is not a zero.
	i++
	fracStart := i
	fracEnd, fracSig := fracStart, -1
	for ; i < len(lit); i++ {
		c := lit[i]
		if c < '0' || c > '9' {
			return dst, false
		}
		if c != '0' {
			fracEnd = i + 1
			if fracSig < 0 {
				fracSig = i
			}
		}
	}
	if i == fracStart {
		return dst, false
	}
	intDigits, fracDigits := intEnd-sig, fracEnd-fracStart
	switch {
	case intDigits == 0 && fracSig < 0:
		return append(dst, '0'), true
	case intDigits > 0 && intDigits+fracDigits > 15:
		return dst, false
	case intDigits == 0 && (fracEnd-fracSig > 15 || fracSig-fracStart > 5):
		return dst, false
	}
	if intStart > 0 {
		dst = append(dst, '-')
	}
	if intDigits == 0 {
		dst = append(dst, '0')
	} else {
		dst = append(dst, lit[sig:intEnd]...)
	}
	if fracDigits > 0 {
		dst = append(dst, '.')
		dst = append(dst, lit[fracStart:fracEnd]...)
	}
	return dst, true
}

// compareKeys is jsonv.CompareUTF16 (RFC 8785 §3.2.3 key order), deciding
// on the spot when the first differing bytes are both ASCII: then they
// are whole characters of one code unit each, which CompareUTF16 would
// compare the same way.
func compareKeys(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if ca, cb := a[i], b[i]; ca != cb {
			if ca < utf8.RuneSelf && cb < utf8.RuneSelf {
				return int(ca) - int(cb)
			}
			return jsonv.CompareUTF16(a, b)
		}
	}
	return len(a) - len(b)
}

// keyOrder is an object member's place in the sorted order of the keys:
// idx is its index among the members, pfx the first eight bytes of its key
// (big-endian, zero past the key's end) and ascii whether those are all
// ASCII, in which case comparing pfx decides as compareKeys would unless
// the two are equal. plain reports that the key needs no escape, so its
// text is written as it is; when it is false the key may still need none.
//
// Sixteen bytes keep the sort's moves small. idx is 32 bits: it would
// take an object of 2^32 members, 96 GiB of jsonv.Member, to wrap it.
type keyOrder struct {
	pfx   uint64
	idx   uint32
	ascii bool
	plain bool
}

const (
	oneBytes  = 0x0101010101010101
	highBits  = 0x8080808080808080
	spaceFill = 0x2020202020202020
)

// hasSpecial reports whether any byte of w is '"', '\\' or below 0x20, the
// bytes a JSON string must escape. A byte of x is zero exactly when x - 1
// borrows into its top bit without the byte having had it, and a byte is
// below 0x20 likewise when w - 0x20 does; a borrow only ever runs on from
// a byte that is a true hit, so the answer is exact for any bytes.
func hasSpecial(w uint64) bool {
	q := w ^ (oneBytes * '"')
	b := w ^ (oneBytes * '\\')
	return ((q-oneBytes)|(b-oneBytes)|(w-oneBytes*0x20))&^w&highBits != 0
}

// load64 is the big-endian word of s[i:i+8].
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
		uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
}

// load32 is the big-endian word of s[i:i+4].
func load32(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
}

// load16 is the big-endian word of s[i:i+2].
func load16(s string, i int) uint16 {
	s = s[i : i+2]
	return uint16(s[0])<<8 | uint16(s[1])
}

// appendKeyOrder appends the keyOrder of each member, in member order, and
// returns the index of the first member whose key sorts before its
// predecessor's, or 0 when the members are in order. Deciding that on the
// prefixes, while they are at hand, spares a second pass over the keys.
func appendKeyOrder(dst []keyOrder, ms []jsonv.Member) ([]keyOrder, int) {
	first := 0
	var prev keyOrder
	for i, m := range ms {
		k := m.Key
		var p uint64
		n := len(k)
		// Overlapping loads, each shifted to where its bytes belong (the
		// bytes two loads share are the same), instead of a loop of n.
		switch {
		case n >= 8:
			p = load64(k, 0)
		case n >= 4:
			p = uint64(load32(k, 0))<<32 | uint64(load32(k, n-4))<<(64-8*n)
		case n >= 2:
			p = uint64(load16(k, 0))<<48 | uint64(load16(k, n-2))<<(64-8*n)
		case n == 1:
			p = uint64(k[0]) << 56
		}
		var plain bool
		if n <= 8 {
			// Spaces, which need no escape, stand for the bytes past the
			// end.
			plain = !hasSpecial(p | spaceFill>>(8*n))
		} else {
			// A second, overlapping word covers a key of up to 16 bytes;
			// a longer one is left to AppendQuoted.
			plain = n <= 16 && !hasSpecial(p) && !hasSpecial(load64(k, n-8))
		}
		o := keyOrder{pfx: p, idx: uint32(i), ascii: p&highBits == 0, plain: plain}
		if i > 0 && first == 0 {
			if prev.ascii && o.ascii && prev.pfx != p {
				if prev.pfx > p {
					first = i
				}
			} else if compareKeys(ms[i-1].Key, k) > 0 {
				first = i
			}
		}
		dst = append(dst, o)
		prev = o
	}
	return dst, first
}

// compareKeyOrder orders members by their keys' UTF-16 code units
// (RFC 8785 §3.2.3), and members with equal keys by their index, which
// makes any sort of the list a stable one. When both prefixes are ASCII
// and differ, their first differing byte is where compareKeys would
// decide, on the same two bytes (a key's end counting as a zero byte,
// which only a longer key's bytes past it can exceed).
func compareKeyOrder(ms []jsonv.Member, a, b keyOrder) int {
	if a.pfx != b.pfx && a.ascii && b.ascii {
		if a.pfx < b.pfx {
			return -1
		}
		return 1
	}
	if c := compareKeys(ms[a.idx].Key, ms[b.idx].Key); c != 0 {
		return c
	}
	return int(a.idx) - int(b.idx)
}

// sortKeyOrder sorts the keyOrder list of ms (see compareKeyOrder); the
// first i entries are in order already.
func sortKeyOrder(ord []keyOrder, ms []jsonv.Member, i int) {
	if len(ord) > 32 {
		slices.SortFunc(ord, func(a, b keyOrder) int { return compareKeyOrder(ms, a, b) })
		return
	}
	// A schema object has a handful of keys, its properties a few dozen:
	// an insertion sort from the first one out of order, deciding on the
	// prefixes in line. Being stable, it needs no tie-break on the index.
	for ; i < len(ord); i++ {
		o := ord[i]
		j := i
		for ; j > 0; j-- {
			p := ord[j-1]
			if p.pfx != o.pfx && p.ascii && o.ascii {
				if p.pfx < o.pfx {
					break
				}
			} else if compareKeys(ms[p.idx].Key, ms[o.idx].Key) <= 0 {
				break
			}
			ord[j] = p
		}
		ord[j] = o
	}
}

// HashBytes formats the digest of already canonical bytes.
func HashBytes(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

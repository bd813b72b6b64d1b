package jsonv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// HardMaxDepth is the nesting bound Parse applies when the caller gives none.
// It only keeps recursion bounded on hostile input; the lock format's own
// bound (512, see package canon) is checked separately and is much smaller.
const HardMaxDepth = 10000

// ParseError is a refusal from Parse: where in the text, and at which JSON
// path, the document stopped being acceptable.
type ParseError struct {
	Line, Column int
	Path         Path
	Msg          string
	inner        []PathElem // see within
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("line %d column %d (at %s): %s", e.Line, e.Column, e.Path, e.Msg)
}

// Options tune Parse.
type Options struct {
	// MaxDepth refuses any element whose depth (the number of arrays and
	// objects enclosing it; the root is depth 0) exceeds it. Zero means
	// HardMaxDepth.
	MaxDepth int
	// MaxValues refuses a document with more than this many JSON values
	// (every scalar, array and object counts one), before they are built.
	// It bounds the memory a small but dense document can cost. Zero means
	// no limit.
	MaxValues int
}

// ValueLimitError is the failure of a document over Options.MaxValues, or
// of one value over the bound Decoder.ValueWithin was given.
type ValueLimitError struct {
	// Limit is the MaxValues (or ValueWithin bound) that was exceeded.
	Limit int
	// Path is the value ValueWithin refused; nil for the document's bound.
	Path Path
}

func (e *ValueLimitError) Error() string {
	if e.Path != nil {
		return fmt.Sprintf("%s holds more than %d JSON values", e.Path, e.Limit)
	}
	return fmt.Sprintf("more than %d JSON values", e.Limit)
}

// Parse parses one JSON document strictly: valid UTF-8 without a byte order
// mark, RFC 8259 grammar only (no NaN or Infinity), no duplicate object keys,
// no unpaired UTF-16 surrogate escapes, no raw control characters in strings,
// nothing but whitespace after the value. Refusing instead of guessing is
// deliberate: a lock or a captured surface that two readers could interpret
// differently must not be hashed.
func Parse(data []byte, opts Options) (*Value, error) {
	v, _, err := ParseCounted(data, opts)
	return v, err
}

// ParseCounted is Parse that also returns how many JSON values the document
// holds, so that a caller can charge them against a budget.
func ParseCounted(data []byte, opts Options) (*Value, int, error) {
	d := NewBytesDecoder(data, opts)
	v, err := d.Value()
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return nil, d.values, err
	}
	return v, d.values, nil
}

// Decoder reads one JSON document under Parse's rules, from a byte slice or
// from an io.Reader, either whole (Value) or piece by piece: Object and Array
// walk a container member by member and item by item, and the callback
// decodes each one (Value), discards it (Skip) or walks into it. Only what
// the callbacks keep stays in memory, and a Decoder reading from an
// io.Reader holds a window of the input, not all of it; so a large document
// such as a lock of thousands of tools is read one entry's tree at a time.
//
// The first failure is final: every later call returns it. Failures in the
// input are *ParseError (or *ValueLimitError) exactly as Parse would report
// them; a failure of the io.Reader is returned as it is.
//
// Values built by one Decoder are carved out of shared blocks, so a kept
// node keeps its block alive; a caller that keeps a small part of a large
// document for long should Clone it.
type Decoder struct {
	r    io.Reader
	buf  []byte
	pos  int
	mark int // start of the token being scanned (kept by fill), or -1
	eof  bool
	rerr error
	err  error

	// Where buf[0] sits in the input, for error positions: the line, the
	// column (counting characters) and the number of bytes before it.
	baseLine, baseCol int
	baseOff           int64

	maxDepth, maxValues, values int
	path                        Path
	depth                       int  // containers opened by Object and Array
	begun                       bool // the byte order mark test is done
	consumed                    int  // values handed out by Value, Skip, Object, Array

	slab      []Value // the current block; slab[slabUsed:] is free
	slabUsed  int     // an index, not a reslice: see alloc
	slabNext  int
	members   []Member
	items     []*Value
	sbuf      []byte
	shared    []sharedSlot // see intern
	keyHashes []uint64     // of the keys of the objects being read, see object
	misses    int
	trans     *transcoder // see Transcode
	fast      *canonScan  // see CanonicalText
	skip      skipper     // see Skip

	// blocks, when not nil, gathers every block values are carved from,
	// and spare holds blocks to carve from again (see Parser.ParseOver).
	blocks, spare [][]Value
	// memberBlocks and itemBlocks, when not nil, carve the members of
	// objects and the items of arrays (see Parser.ParseOver).
	memberBlocks *carver[Member]
	itemBlocks   *carver[*Value]
	// strs, when not nil, holds the strings intern does not share (see
	// Parser).
	strs *strArena
	// rootKeys, when not nil, are the only members of a root object that
	// are built; the others are skipped (see Parser.RootKeys).
	rootKeys []string
}

// readChunk is the size of one read from an io.Reader.
const readChunk = 64 << 10

// NewDecoder returns a Decoder reading r. It reads in chunks and never
// further than it needs to: Finish reads to the end to check that nothing
// but whitespace follows the value.
func NewDecoder(r io.Reader, opts Options) *Decoder {
	d := newDecoder(opts)
	d.r = r
	d.buf = make([]byte, 0, readChunk)
	return d
}

// NewBytesDecoder returns a Decoder reading data, which it does not copy and
// which must not change while the Decoder is in use.
func NewBytesDecoder(data []byte, opts Options) *Decoder {
	d := newDecoder(opts)
	d.buf = data
	d.eof = true
	return d
}

func newDecoder(opts Options) *Decoder {
	d := &Decoder{maxDepth: opts.MaxDepth, maxValues: opts.MaxValues, mark: -1, baseLine: 1, baseCol: 1, slabNext: 8}
	if d.maxDepth <= 0 {
		d.maxDepth = HardMaxDepth
	}
	return d
}

// Values returns how many JSON values the Decoder has read so far.
func (d *Decoder) Values() int { return d.values }

// Offset returns how many bytes of input the Decoder has consumed.
func (d *Decoder) Offset() int64 { return d.baseOff + int64(d.pos) }

// fill reads more input into buf, keeping everything from the token being
// scanned (mark) or else from pos. It reports whether anything was added;
// after true, pos < len(buf).
func (d *Decoder) fill() bool {
	if d.eof {
		return false
	}
	keep := d.pos
	if d.mark >= 0 && d.mark < keep {
		keep = d.mark
	}
	if keep > 0 {
		d.advanceBase(d.buf[:keep])
		n := copy(d.buf, d.buf[keep:])
		d.buf = d.buf[:n]
		d.pos -= keep
		if d.mark >= 0 {
			d.mark -= keep
		}
	}
	if cap(d.buf)-len(d.buf) < readChunk/2 {
		nb := make([]byte, len(d.buf), max(2*cap(d.buf), len(d.buf)+readChunk))
		copy(nb, d.buf)
		d.buf = nb
	}
	for {
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		if err != nil {
			d.eof = true
			if err != io.EOF {
				d.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// advanceBase moves the error-position base past gone, the bytes about to
// be dropped from the front of buf.
func (d *Decoder) advanceBase(gone []byte) {
	d.baseOff += int64(len(gone))
	if n := bytes.Count(gone, []byte{'\n'}); n > 0 {
		d.baseLine += n
		d.baseCol = 1
		gone = gone[bytes.LastIndexByte(gone, '\n')+1:]
	}
	d.baseCol += len(gone) - continuationBytes(gone)
}

// continuationBytes counts the UTF-8 continuation bytes (10xxxxxx) in b.
func continuationBytes(b []byte) int {
	n := 0
	// A continuation byte has its top bit set and the next one clear.
	// Thirty-two bytes at a time, the marks counted in byte lanes, which
	// are added up every 63 rounds (before a lane can pass 255).
	for len(b) >= 32 {
		var lanes uint64
		for r := 0; r < 63 && len(b) >= 32; r++ {
			w0 := binary.LittleEndian.Uint64(b)
			w1 := binary.LittleEndian.Uint64(b[8:])
			w2 := binary.LittleEndian.Uint64(b[16:])
			w3 := binary.LittleEndian.Uint64(b[24:])
			m := (w0&^(w0<<1))>>7&(oneBytes) + (w1&^(w1<<1))>>7&(oneBytes) +
				(w2&^(w2<<1))>>7&(oneBytes) + (w3&^(w3<<1))>>7&(oneBytes)
			lanes += m
			b = b[32:]
		}
		const even = 0x00FF00FF00FF00FF
		pairs := lanes&even + lanes>>8&even
		n += int(pairs * 0x0001000100010001 >> 48)
	}
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		n += bits.OnesCount64(w & ^(w << 1) & highBits)
		b = b[8:]
	}
	for _, c := range b {
		if c&0xC0 == 0x80 {
			n++
		}
	}
	return n
}

// need makes at least n bytes available from pos when the input has them.
func (d *Decoder) need(n int) bool {
	for len(d.buf)-d.pos < n {
		if !d.fill() {
			return false
		}
	}
	return true
}

// peek returns the byte at pos, reading more input if needed.
func (d *Decoder) peek() (byte, bool) {
	if d.pos >= len(d.buf) && !d.fill() {
		return 0, false
	}
	return d.buf[d.pos], true
}

// fail records and returns a refusal at the current position; a read error
// seen earlier takes its place, since the input then simply ended early.
func (d *Decoder) fail(format string, args ...any) error {
	if d.err != nil {
		return d.err
	}
	if d.rerr != nil {
		d.err = d.rerr
		return d.err
	}
	line, col := d.baseLine, d.baseCol
	end := min(d.pos, len(d.buf))
	for i := 0; i < end; i++ {
		if d.buf[i] == '\n' {
			line++
			col = 1
		} else if d.buf[i]&0xC0 != 0x80 {
			col++
		}
	}
	path := make(Path, len(d.path))
	copy(path, d.path)
	d.err = &ParseError{Line: line, Column: col, Path: path, Msg: fmt.Sprintf(format, args...)}
	return d.err
}

// begin runs once, before the first value: the byte order mark test.
func (d *Decoder) begin() error {
	if d.err != nil {
		return d.err
	}
	if d.begun {
		return nil
	}
	d.begun = true
	if d.need(3) && d.buf[d.pos] == 0xEF && d.buf[d.pos+1] == 0xBB && d.buf[d.pos+2] == 0xBF {
		return d.fail("byte order mark is not allowed")
	}
	return nil
}

// Value decodes the value at the current position into a tree.
func (d *Decoder) Value() (*Value, error) {
	if err := d.begin(); err != nil {
		return nil, err
	}
	d.skipSpace()
	v, err := d.value(d.depth)
	if err != nil {
		if pe, ok := err.(*ParseError); ok {
			pe.settle()
		}
		return nil, d.setErr(err)
	}
	d.consumed++
	return v, nil
}

// ValueWithin is Value for a value that may hold at most max JSON values
// (itself included): one more is refused, before it is built, with a
// *ValueLimitError naming the value's path. A reader that keeps a member
// as a tree bounds what it costs this way. The document's own bound
// (Options.MaxValues) still applies.
func (d *Decoder) ValueWithin(max int) (*Value, error) {
	saved := d.maxValues
	limit := d.values + max
	own := saved <= 0 || limit < saved
	if own {
		d.maxValues = limit
	}
	v, err := d.Value()
	d.maxValues = saved
	var le *ValueLimitError
	if own && err != nil && errors.As(err, &le) && le.Path == nil && d.err == err {
		path := make(Path, len(d.path))
		copy(path, d.path)
		d.err = &ValueLimitError{Limit: max, Path: path}
		return nil, d.err
	}
	return v, err
}

// within notes, on a refusal from inside a value the tree parser was
// reading, the member or item that value was. The parser keeps no path as
// it goes (that cost a push and a pop per member); a refusal collects its
// path as it travels back up, and Value settles it.
func within(err error, e PathElem) error {
	if pe, ok := err.(*ParseError); ok {
		pe.inner = append(pe.inner, e)
	}
	return err
}

// settle appends the path collected on the way up (innermost first) to
// the path the refusal was made at.
func (e *ParseError) settle() {
	for i := len(e.inner) - 1; i >= 0; i-- {
		e.Path = append(e.Path, e.inner[i])
	}
	e.inner = nil
}

// Skip reads the value at the current position and discards it. It
// refuses what Value refuses, with the same errors, but builds no tree:
// what it keeps while it reads is the keys of the objects it is in (for
// the duplicate-key check), so a large member nobody needs costs about
// the memory of its keys, not forty times its text.
func (d *Decoder) Skip() error {
	if err := d.begin(); err != nil {
		return err
	}
	d.skipSpace()
	if err := d.skipValue(d.depth); err != nil {
		if pe, ok := err.(*ParseError); ok {
			pe.settle()
		}
		return d.setErr(err)
	}
	d.consumed++
	return nil
}

// Next reports the kind of the value at the current position without
// reading it; a number is reported as Int. ok is false at the end of the
// input or when no value can start there (Value then says why).
func (d *Decoder) Next() (kind Kind, ok bool) {
	if d.begin() != nil {
		return Null, false
	}
	d.skipSpace()
	c, ok := d.peek()
	if !ok {
		return Null, false
	}
	switch {
	case c == '{':
		return Object, true
	case c == '[':
		return Array, true
	case c == '"':
		return String, true
	case c == 't' || c == 'f':
		return Bool, true
	case c == 'n':
		return Null, true
	case c == '-' || isDigit(c):
		return Int, true
	}
	return Null, false
}

// Object reads the object at the current position member by member. For
// each member it calls f with the key, positioned at the member's value,
// which f must read (Value, Skip, Object or Array) before returning. An
// error from f ends the walk and is returned as it is.
func (d *Decoder) Object(f func(key string) error) error {
	if kind, ok := d.Next(); !ok || kind != Object {
		return d.notA("an object", ok)
	}
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++ // '{'
	var keys []string
	var seen map[string]struct{}
	d.skipSpace()
	if c, ok := d.peek(); ok && c == '}' {
		d.pos++
		return d.leave()
	}
	for {
		d.skipSpace()
		if c, ok := d.peek(); !ok || c != '"' {
			return d.fail("expected a string object key")
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		if len(keys) >= 16 {
			if seen == nil {
				seen = make(map[string]struct{}, 2*len(keys))
				for _, k := range keys {
					seen[k] = struct{}{}
				}
			}
			if _, dup := seen[key]; dup {
				return d.fail("duplicate object key %q", key)
			}
			seen[key] = struct{}{}
		} else {
			for _, k := range keys {
				if k == key {
					return d.fail("duplicate object key %q", key)
				}
			}
		}
		keys = append(keys, key)
		d.skipSpace()
		if c, ok := d.peek(); !ok || c != ':' {
			return d.fail("expected ':' after object key")
		}
		d.pos++
		d.skipSpace()
		d.path = append(d.path, PathElem{Key: key})
		if err := d.visit(func() error { return f(key) }); err != nil {
			return err
		}
		d.path = d.path[:len(d.path)-1]
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
			return d.leave()
		default:
			return d.fail("expected ',' or '}' in object")
		}
	}
}

// Array reads the array at the current position item by item, calling f
// with each item's index, positioned at the item, which f must read before
// returning. An error from f ends the walk and is returned as it is.
func (d *Decoder) Array(f func(index int) error) error {
	if kind, ok := d.Next(); !ok || kind != Array {
		return d.notA("an array", ok)
	}
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++ // '['
	d.skipSpace()
	if c, ok := d.peek(); ok && c == ']' {
		d.pos++
		return d.leave()
	}
	for i := 0; ; i++ {
		d.path = append(d.path, PathElem{Index: i, IsIndex: true})
		d.skipSpace()
		if err := d.visit(func() error { return f(i) }); err != nil {
			return err
		}
		d.path = d.path[:len(d.path)-1]
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
			return d.leave()
		default:
			return d.fail("expected ',' or ']' in array")
		}
	}
}

// notA refuses a call to Object or Array where the input holds something
// else: the reason Value would give, or else that the kind is wrong.
func (d *Decoder) notA(what string, ok bool) error {
	if d.err != nil {
		return d.err
	}
	if !ok {
		_, err := d.Value()
		if err != nil {
			return err
		}
	}
	return d.setErr(fmt.Errorf("jsonv: the value at %s is not %s", d.pathString(), what))
}

func (d *Decoder) pathString() string { return d.path.String() }

// enter counts the container about to be opened by Object or Array as a
// value, at the current depth, and opens it.
func (d *Decoder) enter() error {
	if d.depth > d.maxDepth {
		return d.fail("nesting deeper than %d", d.maxDepth)
	}
	d.values++
	if d.maxValues > 0 && d.values > d.maxValues {
		return d.setErr(&ValueLimitError{Limit: d.maxValues})
	}
	d.depth++
	return nil
}

func (d *Decoder) leave() error {
	d.depth--
	d.consumed++
	return nil
}

// visit runs a member or item callback and checks that it read its value.
func (d *Decoder) visit(f func() error) error {
	before := d.consumed
	if err := f(); err != nil {
		return d.setErr(err)
	}
	if d.err != nil {
		return d.err
	}
	if d.consumed == before {
		return d.setErr(fmt.Errorf("jsonv: the value at %s was not read", d.pathString()))
	}
	return nil
}

func (d *Decoder) setErr(err error) error {
	if d.err == nil {
		d.err = err
	}
	return d.err
}

// Finish checks that nothing but whitespace follows the value, reading the
// input to its end.
func (d *Decoder) Finish() error {
	if d.err != nil {
		return d.err
	}
	d.skipSpace()
	if d.pos < len(d.buf) {
		return d.fail("unexpected data after the JSON value")
	}
	if d.rerr != nil {
		return d.fail("")
	}
	return nil
}

// skipSpace advances past whitespace.
func (d *Decoder) skipSpace() {
	// Most tokens follow no whitespace or one blank (", " and ": " of
	// Python's separators); this much is inlined at every call.
	if d.pos < len(d.buf) && d.buf[d.pos] > ' ' {
		return
	}
	d.skipSpaceRun()
}

// skipSeparator advances past the ',' or ':' at pos and one blank after
// it, the whitespace that usually follows, sparing skipSpace's call to
// skipSpaceRun; skipSpace must follow for any other whitespace.
func (d *Decoder) skipSeparator() {
	d.pos++
	if d.pos < len(d.buf) && d.buf[d.pos] == ' ' {
		d.pos++
	}
}

func (d *Decoder) skipSpaceRun() {
	for {
		buf, i := d.buf, d.pos
		for i < len(buf) {
			// Indentation comes in runs of blanks: eight bytes at a time,
			// up to the first that is not a blank, with no branch per
			// blank (runs of varying length defeat branch prediction).
			if i+8 <= len(buf) {
				x := binary.LittleEndian.Uint64(buf[i:]) ^ 0x2020202020202020
				if x == 0 {
					i += 8
					continue
				}
				i += bits.TrailingZeros64(x) >> 3
			}
			switch buf[i] {
			case ' ', '\n', '\t', '\r':
				i++
			default:
				d.pos = i
				return
			}
		}
		d.pos = i
		if !d.fill() {
			return
		}
	}
}

// maxSlab is the most Values in one block of alloc's: as many as fill
// 32 KiB, the largest size class. A larger block is allocated as a large
// object, rounded up to whole pages, which wasted a tenth of 512 Values.
const maxSlab = 32 << 10 / int(unsafe.Sizeof(Value{}))

// alloc returns a Value from the current block, starting a new block (of
// growing size) when it is used up. The Value may hold an earlier
// document's value (Parser.ParseOver): the caller sets all of it.
//
// The free part is counted by an index, not resliced: a slice stored into
// the Decoder (on the heap) costs a write barrier while the collector
// runs, once a value.
func (d *Decoder) alloc() *Value {
	if d.slabUsed == len(d.slab) {
		if n := len(d.spare); n > 0 {
			// A block of a document the Parser was told is done with
			// (Parser.ParseOver), not cleared: each Value is overwritten
			// whole, which saves clearing the pointers twice (write
			// barriers while the collector runs).
			d.slab = d.spare[n-1]
			d.spare = d.spare[:n-1]
		} else {
			d.slab = make([]Value, d.slabNext)
			d.slabNext = min(2*d.slabNext, maxSlab)
		}
		d.slabUsed = 0
		if d.blocks != nil {
			d.blocks = append(d.blocks, d.slab)
		}
	}
	v := &d.slab[d.slabUsed]
	d.slabUsed++
	return v
}

// setScalar makes v, fresh from alloc, a value of kind with b and text.
// A pointer that is already nil is not stored again: a block carved
// again (Parser.ParseOver) mostly holds scalars where scalars were, and
// a pointer store costs a write barrier while the collector runs.
func (v *Value) setScalar(kind Kind, b bool, text string, plain bool) {
	if v.Items != nil {
		v.Items = nil
	}
	if v.Members != nil {
		v.Members = nil
	}
	if text != "" || v.Text != "" {
		v.Text = text
	}
	v.Kind, v.Bool, v.plain = kind, b, plain
}

// setContainer makes v, fresh from alloc, an empty value of kind (Array
// or Object), whose items or members the caller sets; see setScalar.
func (v *Value) setContainer(kind Kind) {
	if v.Text != "" {
		v.Text = ""
	}
	if kind == Array && v.Members != nil {
		v.Members = nil
	}
	if kind == Object && v.Items != nil {
		v.Items = nil
	}
	v.Kind, v.Bool, v.plain = kind, false, false
}

// value parses the element at the given depth.
func (d *Decoder) value(depth int) (*Value, error) {
	if depth > d.maxDepth {
		return nil, d.fail("nesting deeper than %d", d.maxDepth)
	}
	d.values++
	if d.maxValues > 0 && d.values > d.maxValues {
		return nil, &ValueLimitError{Limit: d.maxValues}
	}
	c, ok := d.peek()
	if !ok {
		return nil, d.fail("unexpected end of input")
	}
	switch {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		s, plain, err := d.plainStr()
		if err != nil {
			return nil, err
		}
		v := d.alloc()
		v.setScalar(String, false, s, plain)
		return v, nil
	case c == '-' || isDigit(c):
		return d.number()
	case c == 't':
		return d.literal("true", Bool, true)
	case c == 'f':
		return d.literal("false", Bool, false)
	case c == 'n':
		return d.literal("null", Null, false)
	default:
		return nil, d.fail("invalid character %s", quoteByte(c))
	}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (d *Decoder) literal(word string, kind Kind, b bool) (*Value, error) {
	if err := d.scanLiteral(word); err != nil {
		return nil, err
	}
	v := d.alloc()
	v.setScalar(kind, b, "", false)
	return v, nil
}

// scanLiteral reads word (true, false or null) at pos.
func (d *Decoder) scanLiteral(word string) error {
	if !d.need(len(word)) || string(d.buf[d.pos:d.pos+len(word)]) != word {
		return d.fail("invalid literal (NaN, Infinity and bare words are not JSON)")
	}
	d.pos += len(word)
	return nil
}

// digits advances over ASCII digits and reports whether there was one.
func (d *Decoder) digits() bool {
	// Count rather than compare positions: a read may move the buffer.
	n := 0
	for {
		buf, i := d.buf, d.pos
		for i < len(buf) && isDigit(buf[i]) {
			i++
		}
		n += i - d.pos
		d.pos = i
		if i < len(buf) || !d.fill() {
			return n > 0
		}
	}
}

func (d *Decoder) number() (*Value, error) {
	kind, err := d.scanNumber()
	if err != nil {
		return nil, err
	}
	v := d.alloc()
	// Numbers repeat too (1, 0, 100, 2.5) and share the intern table.
	v.setScalar(kind, false, d.intern(d.buf[d.mark:d.pos]), false)
	d.mark = -1
	return v, nil
}

// scanNumber scans a number literal at pos, leaving it at buf[mark:pos]
// (mark still set) and reporting whether it is an Int or a Float.
func (d *Decoder) scanNumber() (Kind, error) {
	d.mark = d.pos
	kind := Int
	if d.buf[d.pos] == '-' {
		d.pos++
	}
	c, ok := d.peek()
	switch {
	case ok && c == '0':
		d.pos++
	case ok && c >= '1' && c <= '9':
		d.digits()
	default:
		d.mark = -1
		return kind, d.fail("invalid number (Infinity is not JSON)")
	}
	if c, ok := d.peek(); ok && c == '.' {
		kind = Float
		d.pos++
		if !d.digits() {
			d.mark = -1
			return kind, d.fail("invalid number: digit expected after '.'")
		}
	}
	if c, ok := d.peek(); ok && (c == 'e' || c == 'E') {
		kind = Float
		d.pos++
		if c, ok := d.peek(); ok && (c == '+' || c == '-') {
			d.pos++
		}
		if !d.digits() {
			d.mark = -1
			return kind, d.fail("invalid number: digit expected in exponent")
		}
	}
	return kind, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (d *Decoder) array(depth int) (*Value, error) {
	d.pos++ // '['
	v := d.alloc()
	v.setContainer(Array)
	d.skipSpace()
	if c, ok := d.peek(); ok && c == ']' {
		d.pos++
		v.Items = []*Value{}
		return v, nil
	}
	base := len(d.items)
	for i := 0; ; i++ {
		d.skipSpace()
		item, err := d.value(depth + 1)
		if err != nil {
			return nil, within(err, PathElem{Index: i, IsIndex: true})
		}
		d.items = append(d.items, item)
		d.skipSpace()
		c, ok := d.peek()
		if !ok {
			return nil, d.fail("unexpected end of input in array")
		}
		switch c {
		case ',':
			d.skipSeparator()
		case ']':
			d.pos++
			if d.itemBlocks != nil {
				v.Items = d.itemBlocks.carve(d.items[base:])
			} else {
				v.Items = make([]*Value, len(d.items)-base)
				copy(v.Items, d.items[base:])
			}
			if d.itemBlocks == nil {
				clear(d.items[base:]) // see object
			}
			d.items = d.items[:base]
			return v, nil
		default:
			return nil, d.fail("expected ',' or ']' in array")
		}
	}
}

func (d *Decoder) object(depth int) (*Value, error) {
	d.pos++ // '{'
	v := d.alloc()
	v.setContainer(Object)
	d.skipSpace()
	if c, ok := d.peek(); ok && c == '}' {
		d.pos++
		v.Members = []Member{}
		return v, nil
	}
	base, hbase := len(d.members), len(d.keyHashes)
	var seen keySet
	for {
		d.skipSpace()
		if c, ok := d.peek(); !ok || c != '"' {
			return nil, d.fail("expected a string object key")
		}
		key, h, _, err := d.key()
		if err != nil {
			return nil, err
		}
		if d.repeatedKey(key, h, hbase, &seen, func(j int) string { return d.members[base+j].Key }) {
			return nil, d.fail("duplicate object key %q", key)
		}
		d.skipSpace()
		if c, ok := d.peek(); !ok || c != ':' {
			return nil, d.fail("expected ':' after object key")
		}
		d.skipSeparator()
		d.skipSpace()
		var val *Value
		if depth == 0 && d.rootKeys != nil && !slices.Contains(d.rootKeys, key) {
			// Stands as a nil Value for the duplicate check, dropped below.
			err = d.skipValue(depth + 1)
		} else {
			val, err = d.value(depth + 1)
		}
		if err != nil {
			return nil, within(err, PathElem{Key: key})
		}
		d.members = append(d.members, Member{Key: key, Value: val})
		d.skipSpace()
		c, ok := d.peek()
		if !ok {
			return nil, d.fail("unexpected end of input in object")
		}
		switch c {
		case ',':
			d.skipSeparator()
		case '}':
			d.pos++
			if depth == 0 && d.rootKeys != nil {
				// The keys skipped have done their part: drop them.
				kept := d.members[:base]
				for _, m := range d.members[base:] {
					if m.Value != nil {
						kept = append(kept, m)
					}
				}
				clear(d.members[len(kept):])
				d.members = kept
			}
			if d.memberBlocks != nil {
				v.Members = d.memberBlocks.carve(d.members[base:])
			} else {
				v.Members = make([]Member, len(d.members)-base)
				copy(v.Members, d.members[base:])
			}
			if d.memberBlocks == nil {
				// Keep no pointer into a tree the caller may drop. Under
				// ParseOver what the stack holds above its top is of this
				// or the last documents, which the Parser holds anyway
				// (its blocks), and clearing it cost write barriers.
				clear(d.members[base:])
			}
			d.members = d.members[:base]
			d.keyHashes = d.keyHashes[:hbase]
			return v, nil
		default:
			return nil, d.fail("expected ',' or '}' in object")
		}
	}
}

// keySet is what repeatedKey keeps of one object's keys besides their
// hashes: a map once the object is wide, and before that a filter of a
// bit per key hash (seven of its bits pick one of 128), so that a key
// whose bit no earlier key set is known new without comparing its hash
// with each earlier one's.
type keySet struct {
	seen   map[string]struct{}
	filter [2]uint64
}

// repeatedKey reports whether key, whose hash is h, repeats an earlier
// key of the object being read, and otherwise records it. The object's
// key hashes are d.keyHashes from hbase on, keyAt(j) is its j-th key, and
// set is the rest of what is known of them: up to wideObject keys are
// checked by comparing hashes, and a map only pays off for wider objects.
func (d *Decoder) repeatedKey(key string, h uint64, hbase int, set *keySet, keyAt func(j int) string) bool {
	if n := len(d.keyHashes) - hbase; n >= wideObject {
		if set.seen == nil {
			set.seen = make(map[string]struct{}, 2*n)
			for j := range n {
				set.seen[keyAt(j)] = struct{}{}
			}
		}
		if _, dup := set.seen[key]; dup {
			return true
		}
		set.seen[key] = struct{}{}
		return false
	}
	w, bit := &set.filter[h>>63], uint64(1)<<(h>>57&63)
	if *w&bit == 0 {
		*w |= bit
		d.keyHashes = append(d.keyHashes, h)
		return false
	}
	for j, kh := range d.keyHashes[hbase:] {
		if kh == h && keyAt(j) == key {
			return true
		}
	}
	d.keyHashes = append(d.keyHashes, h)
	return false
}

// wideObject is the number of members past which an object's keys are
// checked for duplicates with a map: comparing a new key's hash with each
// earlier one's costs less up to there, and a map keeps wider objects from
// costing time quadratic in their size.
const wideObject = 64

// key parses an object key at pos, and returns with it its hash (the
// intern table's) for the duplicate check, and whether it was written
// without escapes.
func (d *Decoder) key() (s string, h uint64, plain bool, err error) {
	if a, b, n, ok := d.shortString(); ok {
		h := internHash(a, b, n)
		return d.internShort(a, b, n, h), h, true, nil
	}
	raw, plain, err := d.plainString()
	if err != nil {
		return "", 0, false, err
	}
	if plain {
		s = d.intern(raw)
		d.mark = -1
	} else if s, err = d.escapedString(); err != nil {
		return "", 0, false, err
	}
	return s, internHash(stringWords(s)), plain, nil
}

// str parses a string literal at pos (which holds the opening quote).
func (d *Decoder) str() (string, error) {
	s, _, err := d.plainStr()
	return s, err
}

// plainStr is str also reporting whether the literal held no escape, so
// that the string has nothing AppendQuoted escapes: a literal without a
// backslash holds no quote, backslash or control character.
func (d *Decoder) plainStr() (string, bool, error) {
	if a, b, n, ok := d.shortString(); ok {
		return d.internShort(a, b, n, internHash(a, b, n)), true, nil
	}
	return d.longString()
}

// shortString reads, when it can, a string literal at pos that is plain
// ASCII of fewer than 16 bytes, and returns its words as internWords
// would (a is zero above a string shorter than eight bytes) and its
// length. Most keys and many values are such short words ("type",
// "string", "description", "properties"), and the words themselves are
// all intern needs: the string is neither scanned nor checked again.
func (d *Decoder) shortString() (a, b uint64, n int, ok bool) {
	i := d.pos + 1
	if i+8 > len(d.buf) {
		return 0, 0, 0, false
	}
	a = binary.LittleEndian.Uint64(d.buf[i:])
	if m := specialMask(a); m != 0 {
		n = bits.TrailingZeros64(m) >> 3
		a &= 1<<(8*n) - 1
		if d.buf[i+n] != '"' || a&highBits != 0 {
			return 0, 0, 0, false
		}
		d.pos = i + n + 1
		return a, 0, n, true
	}
	// No quote in the first word: the second may hold it.
	if a&highBits != 0 || i+16 > len(d.buf) {
		return 0, 0, 0, false
	}
	w := binary.LittleEndian.Uint64(d.buf[i+8:])
	m := specialMask(w)
	if m == 0 {
		return 0, 0, 0, false
	}
	k := bits.TrailingZeros64(m) >> 3
	n = 8 + k
	if d.buf[i+n] != '"' || w&(1<<(8*k)-1)&highBits != 0 {
		return 0, 0, 0, false
	}
	d.pos = i + n + 1
	return a, binary.LittleEndian.Uint64(d.buf[i+n-8:]), n, true
}

// longString is plainStr for any string literal.
func (d *Decoder) longString() (string, bool, error) {
	raw, ok, err := d.plainString()
	if err != nil {
		return "", false, err
	}
	if !ok {
		s, err := d.escapedString()
		return s, false, err
	}
	s := d.intern(raw)
	d.mark = -1
	return s, true, nil
}

// maxShared is the longest string intern shares.
const maxShared = 32

// The intern table starts with minShared slots and doubles, up to
// maxSharedSlots, whenever it has missed more often than it has slots:
// a small reply pays for a small table, and a large document whose
// strings repeat across thousands of objects (keys, types, property
// names) gets one wide enough that they stop evicting each other.
const (
	minShared      = 256
	maxSharedSlots = 4096
)

// sharedSlot is one entry of the intern table: a string and the two words
// internHash mixed for it. For a string of up to 16 bytes the words and the
// length determine it, so a lookup compares them instead of the text.
type sharedSlot struct {
	s    string
	a, b uint64
}

// intern returns raw as a string, sharing the string of an equal short one
// read recently: object keys and many values ("type", "string", a hash of
// null) repeat through a document, and a table whose slots each hold the
// last string that fell into them saves most of their allocations at the
// cost of a comparison.
func (d *Decoder) intern(raw []byte) string {
	n := len(raw)
	if n == 0 || n > maxShared {
		if d.strs != nil {
			return d.strs.string(raw)
		}
		return string(raw)
	}
	a, b := internWords(raw)
	slot := d.sharedSlot(internHash(a, b, n))
	if slot.a == a && slot.b == b && len(slot.s) == n && (n <= 16 || slot.s == string(raw)) {
		return slot.s
	}
	return d.share(slot, string(raw), a, b)
}

// internShort is intern for the string of n < 16 bytes that ends just
// before pos-1 (its closing quote), given as its words a and b (see
// internWords), whose hash is h.
func (d *Decoder) internShort(a, b uint64, n int, h uint64) string {
	if n == 0 {
		return ""
	}
	slot := d.sharedSlot(h)
	if slot.a == a && slot.b == b && len(slot.s) == n {
		return slot.s
	}
	if n >= 8 {
		return d.share(slot, string(d.buf[d.pos-1-n:d.pos-1]), a, b)
	}
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], a)
	return d.share(slot, string(buf[:n]), a, 0)
}

// sharedSlot returns the intern table slot of a string whose hash is h.
func (d *Decoder) sharedSlot(h uint64) *sharedSlot {
	if d.shared == nil {
		d.shared = make([]sharedSlot, minShared)
	}
	return &d.shared[h>>(64-bits.TrailingZeros(uint(len(d.shared))))]
}

// share puts s, a string that missed, in its slot, and grows the table
// when it has missed often.
func (d *Decoder) share(slot *sharedSlot, s string, a, b uint64) string {
	*slot = sharedSlot{s: s, a: a, b: b}
	d.misses++
	if d.misses > len(d.shared) && len(d.shared) < maxSharedSlots {
		d.growShared()
	}
	return s
}

// growShared doubles the intern table, keeping what it holds.
func (d *Decoder) growShared() {
	old := d.shared
	d.shared = make([]sharedSlot, 2*len(old))
	shift := 64 - bits.TrailingZeros(uint(len(d.shared)))
	for _, e := range old {
		if e.s != "" {
			d.shared[internHash(e.a, e.b, len(e.s))>>shift] = e
		}
	}
	d.misses = 0
}

// internWords returns the words internHash mixes for raw, 1 to maxShared
// bytes long: the first and last eight bytes, or all of a shorter string
// as a and zero as b. Keys of one document often share a prefix (tool_…,
// x-…) or a suffix (…_id), so both ends count.
func internWords(raw []byte) (a, b uint64) {
	n := len(raw)
	if n >= 8 {
		return binary.LittleEndian.Uint64(raw), binary.LittleEndian.Uint64(raw[n-8:])
	}
	for i, c := range raw {
		a |= uint64(c) << (8 * i)
	}
	return a, 0
}

// stringWords is internWords for a string of any length.
func stringWords(s string) (a, b uint64, n int) {
	n = len(s)
	if n >= 8 {
		return load64(s, 0), load64(s, n-8), n
	}
	for i := 0; i < n; i++ {
		a |= uint64(s[i]) << (8 * i)
	}
	return a, 0, n
}

// internHash mixes the words of a string of n bytes (see internWords); the
// top bits are the slot.
func internHash(a, b uint64, n int) uint64 {
	h := (a ^ uint64(n)<<56) * 0x9E3779B97F4A7C15
	h ^= b * 0xC2B2AE3D27D4EB4F
	return h ^ h>>29
}

// plainString scans a string literal at pos. When it has no escapes it
// returns its bytes (valid only until the next read; mark still set) with
// ok true, pos past the closing quote. When it meets a backslash it stops
// there with ok false, mark at the string's first byte, for escapedString.
func (d *Decoder) plainString() (raw []byte, ok bool, err error) {
	d.pos++
	d.mark = d.pos
	// high gathers every byte scanned, to tell an ASCII string (always
	// valid UTF-8) from one that needs checking.
	var high uint64
	for {
		i, h := scanPlain(d.buf, d.pos)
		high |= h
		d.pos = i
		if i < len(d.buf) {
			break
		}
		if !d.fill() {
			return nil, false, nil // unterminated: escapedString says so
		}
	}
	switch c := d.buf[d.pos]; {
	case c == '"':
		s := d.buf[d.mark:d.pos]
		if high&highBits != 0 && !validUTF8(s) {
			d.mark = -1
			return nil, false, d.fail("invalid UTF-8 in string")
		}
		d.pos++
		return s, true, nil
	case c < 0x20:
		d.mark = -1
		return nil, false, d.fail("raw control character in string")
	}
	return nil, false, nil
}

// scanPlain returns the index of the first quote, backslash or control
// character in buf from i, or len(buf), and the bytes before it ORed
// together (their top bits tell whether any is not ASCII).
func scanPlain(buf []byte, i int) (int, uint64) {
	var high uint64
	// Sixteen bytes at a time while none is special: two independent
	// words keep the processor busy, and the first special byte is found
	// from its mask, not by a byte loop.
	for i+16 <= len(buf) {
		w0 := binary.LittleEndian.Uint64(buf[i:])
		w1 := binary.LittleEndian.Uint64(buf[i+8:])
		m0, m1 := specialMask(w0), specialMask(w1)
		if m0|m1 != 0 {
			if m0 == 0 {
				high |= w0
				i += 8
				w0, m0 = w1, m1
			}
			n := bits.TrailingZeros64(m0) >> 3
			return i + n, high | w0&(1<<(8*n)-1)
		}
		high |= w0 | w1
		i += 16
	}
	if i+8 <= len(buf) {
		w := binary.LittleEndian.Uint64(buf[i:])
		if m := specialMask(w); m != 0 {
			n := bits.TrailingZeros64(m) >> 3
			return i + n, high | w&(1<<(8*n)-1)
		}
		high |= w
		i += 8
	}
	for ; i < len(buf); i++ {
		c := buf[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		high |= uint64(c)
	}
	return i, high
}

const (
	oneBytes = 0x0101010101010101
	highBits = 0x8080808080808080
)

// specialMask returns the top bit of every byte of w (little-endian) that
// is '"', '\\' or below 0x20, except that bytes above the lowest such byte
// may be marked when they are not: the lowest set bit, and whether any is
// set, are exact.
func specialMask(w uint64) uint64 {
	// A byte of x is zero exactly when x - 1 borrows into its top bit
	// without the byte having had it; a byte below 0x20 likewise when
	// w - 0x20 does. A borrow only leaves a byte with a true hit below
	// it. XOR with '"' or '\\' keeps each top bit of w, so one AND with
	// ^w covers the three.
	q := w ^ (oneBytes * '"')
	b := w ^ (oneBytes * '\\')
	return ((q - oneBytes) | (b - oneBytes) | (w - oneBytes*0x20)) &^ w & highBits
}

// hasSpecial reports whether any byte of w is '"', '\\' or below 0x20.
func hasSpecial(w uint64) bool { return specialMask(w) != 0 }

// escapedString finishes a string literal that plainString stopped in (at
// a backslash, or at the end of the input), from mark.
func (d *Decoder) escapedString() (string, error) {
	sb := append(d.sbuf[:0], d.buf[d.mark:d.pos]...)
	d.mark = -1
	defer func() { d.sbuf = sb[:0] }()
	for {
		if d.pos >= len(d.buf) && !d.fill() {
			return "", d.fail("unterminated string")
		}
		buf, i := d.buf, d.pos
		start := i
		for i < len(buf) {
			c := buf[i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			i++
		}
		sb = append(sb, buf[start:i]...)
		d.pos = i
		if i == len(buf) {
			continue
		}
		c := buf[i]
		switch {
		case c == '"':
			d.pos++
			if !validUTF8(sb) {
				return "", d.fail("invalid UTF-8 in string")
			}
			if d.strs != nil {
				return d.strs.string(sb), nil
			}
			return string(sb), nil
		case c < 0x20:
			return "", d.fail("raw control character in string")
		}
		d.pos++ // '\\'
		e, ok := d.peek()
		if !ok {
			return "", d.fail("unterminated escape")
		}
		d.pos++
		switch e {
		case '"', '\\', '/':
			sb = append(sb, e)
		case 'b':
			sb = append(sb, '\b')
		case 'f':
			sb = append(sb, '\f')
		case 'n':
			sb = append(sb, '\n')
		case 'r':
			sb = append(sb, '\r')
		case 't':
			sb = append(sb, '\t')
		case 'u':
			r, err := d.hex4()
			if err != nil {
				return "", err
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xDC00:
				if !d.need(6) || d.buf[d.pos] != '\\' || d.buf[d.pos+1] != 'u' {
					return "", d.fail("unpaired UTF-16 surrogate \\u%04x", r)
				}
				d.pos += 2
				r2, err := d.hex4()
				if err != nil {
					return "", err
				}
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return "", d.fail("unpaired UTF-16 surrogate \\u%04x", r)
				}
				r = utf16.DecodeRune(r, r2)
			case utf16.IsSurrogate(r):
				return "", d.fail("unpaired UTF-16 surrogate \\u%04x", r)
			}
			sb = utf8.AppendRune(sb, r)
		default:
			return "", d.fail("invalid escape %q", []byte{'\\', e})
		}
	}
}

func (d *Decoder) hex4() (rune, error) {
	if !d.need(4) {
		return 0, d.fail("truncated \\u escape")
	}
	var r rune
	for _, c := range d.buf[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, d.fail("invalid \\u escape")
		}
	}
	d.pos += 4
	return r, nil
}

// MaxDepth returns the depth of v's deepest element (the root is depth 0),
// computed without recursion so that no input can exhaust the stack.
func MaxDepth(v *Value) int {
	type frame struct {
		v     *Value
		depth int
	}
	deepest := 0
	stack := []frame{{v, 0}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.depth > deepest {
			deepest = f.depth
		}
		switch f.v.Kind {
		case Array:
			for _, it := range f.v.Items {
				stack = append(stack, frame{it, f.depth + 1})
			}
		case Object:
			for _, m := range f.v.Members {
				stack = append(stack, frame{m.Value, f.depth + 1})
			}
		}
	}
	return deepest
}

package jsonv

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// RawContainer appends the text of the object or array at the current
// position to dst, as it stands in the input, and moves past it, without
// building it: a caller that parses many entries of a large document on
// several goroutines cuts them out here and parses each with Parse.
//
// Only the structure is followed (brackets, and strings with their
// escapes), so a container that Parse would refuse for what is inside its
// strings, numbers or literals, for its depth or for a repeated key comes
// back as text, and Parse refuses it there; the values inside are not
// counted (Options.MaxValues) nor their depth checked. The text ends at
// the bracket that closes the container; an input that ends first is
// refused. A value that is neither an object nor an array is refused
// without being read, and one longer than max bytes (when max > 0) as
// soon as that is known: a reading window that must hold a whole entry
// stays bounded.
func (d *Decoder) RawContainer(dst []byte, max int) ([]byte, error) {
	text, err := d.RawContainerView(max)
	if err != nil {
		return dst, err
	}
	return append(dst, text...), nil
}

// RawContainerView is RawContainer without the copy: the text it returns
// is the Decoder's own input, valid only until the Decoder's next read,
// for a caller that only looks at it (hashes it, notes its length).
func (d *Decoder) RawContainerView(max int) ([]byte, error) {
	var dst []byte
	if err := d.begin(); err != nil {
		return dst, err
	}
	d.skipSpace()
	c, ok := d.peek()
	if !ok {
		return dst, d.fail("unexpected end of input")
	}
	if c != '{' && c != '[' {
		return dst, d.fail("invalid character %s: an object or an array was expected", quoteByte(c))
	}
	d.mark = d.pos
	// Positions are kept from the mark, which reading more input moves.
	depth := 0
	inString := false
	var quote int // where the open string's opening quote is
	for {
		buf, i, mark := d.buf, d.pos, d.mark
	scan:
		for i < len(buf) {
			if inString {
				// The string's closing quote is the next one that no odd
				// run of backslashes escapes.
				q := indexQuote(buf[i:])
				if q < 0 {
					i = len(buf)
					break
				}
				i += q + 1
				if buf[i-2] == '\\' && escaped(buf[mark+quote:i-1]) {
					continue
				}
				inString = false
			}
			// Outside strings, up to the next quote or bracket: a table
			// tells them from the separators, blanks and scalars between,
			// at one branch a byte.
			for ; i < len(buf); i++ {
				c := buf[i]
				if !structural[c] {
					continue
				}
				switch c {
				case '{', '[':
					depth++
				case '}', ']':
					depth--
					if depth == 0 {
						i++
						break scan
					}
				case '"':
					inString, quote = true, i-mark
					i++
					continue scan
				}
			}
		}
		d.pos = i
		if max > 0 && d.pos-d.mark > max {
			d.mark = -1
			return dst, d.fail("a container longer than %d bytes", max)
		}
		if depth == 0 {
			break
		}
		if !d.fill() {
			d.mark = -1
			return dst, d.fail("unexpected end of input")
		}
	}
	text := d.buf[d.mark:d.pos]
	d.mark = -1
	d.consumed++
	return text, nil
}

// structural marks the bytes RawContainer stops at outside strings.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// indexQuote is bytes.IndexByte(s, '"'), looking at the first sixteen
// bytes itself: most strings of a document are keys and short values,
// for which setting up the vector search costs more than the search.
func indexQuote(s []byte) int {
	if len(s) >= 16 {
		if m := zeroBytes(binary.LittleEndian.Uint64(s) ^ oneBytes*'"'); m != 0 {
			return bits.TrailingZeros64(m) >> 3
		}
		if m := zeroBytes(binary.LittleEndian.Uint64(s[8:]) ^ oneBytes*'"'); m != 0 {
			return 8 + bits.TrailingZeros64(m)>>3
		}
		if q := bytes.IndexByte(s[16:], '"'); q >= 0 {
			return 16 + q
		}
		return -1
	}
	return bytes.IndexByte(s, '"')
}

// zeroBytes marks the top bit of every zero byte of x, and may mark bytes
// above the lowest zero byte (a borrow runs up from it): the lowest mark,
// and whether there is one, are exact.
func zeroBytes(x uint64) uint64 { return (x - oneBytes) &^ x & highBits }

// escaped reports whether the quote that follows s, a string literal's
// text from its opening quote on, is escaped: whether s ends in an odd
// run of backslashes.
func escaped(s []byte) bool {
	k := len(s) - 1
	for k > 0 && s[k] == '\\' {
		k--
	}
	return (len(s)-1-k)%2 == 1
}

// Parser parses documents one after another under Parse's rules, such as
// the entries RawContainer cuts out of a large document, keeping from one
// to the next what makes starting on a small document costly: the intern
// table, the unused end of the block values are carved from, the scratch
// stacks and the Decoder itself. Values a Parser returned stay valid after
// its next Parse: no block is handed out twice. Strings stay valid for
// good, whatever the Parser does next; one of 65 to 1024 bytes kept for
// long keeps alive the 4 KiB chunk it was cut from (see strArena), which
// Clone does not change (it shares strings). A Parser is not safe for
// concurrent use; the zero Parser uses the zero Options.
type Parser struct {
	Options Options
	// RootKeys, when not nil, are the only members of a document's root
	// object that are built: the others are checked as Parse checks them
	// (a repeated key among them too) and skipped, so that a member the
	// caller never looks at costs no tree.
	RootKeys []string
	// d is the Decoder of the last document, reset for the next one
	// rather than allocated again.
	d Decoder
	// members and items carve the slices of ParseOver's documents.
	members carver[Member]
	items   carver[*Value]
	// strs holds the long strings of every document, Parse's and
	// ParseOver's alike: they are never written again, see strArena.
	strs strArena
}

// Parse parses one document as Parse does.
func (p *Parser) Parse(data []byte) (*Value, error) { return p.parse(data, false) }

// ParseOver is Parse for a caller that is done with every value the
// Parser returned before: their memory is used again for this document's
// values, which saves allocating (and collecting) the bulk of a tree per
// document. Any value of an earlier document still held reads as part of
// this one's, so a caller must drop them all first.
func (p *Parser) ParseOver(data []byte) (*Value, error) { return p.parse(data, true) }

// Decoder returns the Parser's Decoder reading data as NewBytesDecoder
// would, for a caller that walks many small documents piece by piece (an
// entry cut out by RawContainer): what a Decoder learns and allocates as
// it reads (its intern table, its buffers, the blocks values are carved
// from) carries over from one document to the next instead of being made
// again. Values carved before stay valid, as with Parse (blocks kept for
// ParseOver are dropped). The Decoder is
// the Parser's until its next call; data must not change while it is in
// use.
func (p *Parser) Decoder(data []byte) *Decoder {
	p.reset(data)
	return &p.d
}

// reset makes the Parser's Decoder read data: everything but what carries
// over from the last document starts as NewBytesDecoder starts it.
func (p *Parser) reset(data []byte) {
	d := &p.d
	l := *d
	*d = Decoder{
		buf: data, mark: -1, eof: true, baseLine: 1, baseCol: 1,
		maxDepth: p.Options.MaxDepth, maxValues: p.Options.MaxValues,
		shared: l.shared, misses: l.misses,
		slab: l.slab, slabUsed: l.slabUsed, slabNext: max(l.slabNext, 8), // 8 as newDecoder starts
		members: l.members[:0], items: l.items[:0], sbuf: l.sbuf[:0], keyHashes: l.keyHashes[:0],
		path: l.path[:0], strs: &p.strs, rootKeys: p.RootKeys,
		trans: l.trans, fast: l.fast,
	}
	if d.maxDepth <= 0 {
		d.maxDepth = HardMaxDepth
	}
}

// DecoderOver is Decoder for a caller that is done with every value the
// Parser returned before, as ParseOver is Parse: their memory is carved
// again for this document's values.
func (p *Parser) DecoderOver(data []byte) *Decoder {
	l := Decoder{blocks: p.d.blocks, spare: p.d.spare}
	p.reset(data)
	p.carveAgain(&l)
	return &p.d
}

// carveAgain makes the Parser's Decoder carve its values from every block
// of earlier documents, which l (the Decoder before reset) held.
func (p *Parser) carveAgain(l *Decoder) {
	d := &p.d
	d.spare = append(l.spare, l.blocks...)
	clear(l.blocks)
	d.blocks = l.blocks[:0]
	if d.blocks == nil {
		d.blocks = make([][]Value, 0, len(d.spare)+1)
	}
	d.slab, d.slabUsed = nil, 0
	p.members.recycle()
	p.items.recycle()
	d.memberBlocks, d.itemBlocks = &p.members, &p.items
}

func (p *Parser) parse(data []byte, over bool) (*Value, error) {
	l := Decoder{blocks: p.d.blocks, spare: p.d.spare}
	p.reset(data)
	d := &p.d
	if over {
		// Every block of earlier documents is carved again.
		p.carveAgain(&l)
	}
	v, err := d.Value()
	if err == nil {
		err = d.Finish()
	}
	// The input is the caller's: not kept past the call.
	d.buf = nil
	if err != nil {
		return nil, err
	}
	return v, nil
}

// maxLaidIndent is the deepest indentation LaidContainerView follows.
const maxLaidIndent = 64

// LaidContainerView is RawContainerView (with limit for its max) for a
// document laid out by an indenting writer (as a lock file is), where the
// container at the current position, whose opening bracket starts a line
// after n blanks, ends at the next line of n blanks and a closing bracket. That line is
// found by a vector search instead of following every string and bracket
// up to it, which is most of the cost of cutting an indented document into
// its entries.
//
// The text is a guess: it is the container exactly when it parses as one
// whole value, and otherwise a shorter text that does not (an unbalanced
// one, cut at a nested container that closes at the same indentation; no
// string can hold the line, as a string holds no raw newline). A caller
// must therefore parse every such text, or compare it byte for byte with
// a text that parsed, and read the document again in another way when
// one fails; after a wrong guess the Decoder is positioned inside the
// container. A container not laid out so (no newline and blanks before
// the bracket in the window) is cut by RawContainerView.
func (d *Decoder) LaidContainerView(limit int) ([]byte, error) {
	if err := d.begin(); err != nil {
		return nil, err
	}
	d.skipSpace()
	c, ok := d.peek()
	if !ok || c != '{' && c != '[' {
		return d.RawContainerView(limit)
	}
	// c+2 is the closing bracket: '}' follows '{' by two, as ']' does '['.
	k := d.pos
	for k > 0 && d.buf[k-1] == ' ' {
		k--
	}
	indent := d.pos - k
	if k == 0 || d.buf[k-1] != '\n' || indent > maxLaidIndent {
		return d.RawContainerView(limit)
	}
	if d.need(2) && d.buf[d.pos+1] == c+2 {
		// Empty, as indenting writers lay it: "{}" or "[]".
		d.pos += 2
		d.consumed++
		return d.buf[d.pos-2 : d.pos], nil
	}
	d.mark = d.pos
	// Offsets from the mark, which reading more input moves. The
	// closing bracket is the rarer byte of the line, so it is searched
	// for, and the blanks and newline before it checked.
	from := 1
	for {
		buf := d.buf[d.mark:]
		for {
			j := bytes.IndexByte(buf[from:], c+2)
			if j < 0 {
				break
			}
			end := from + j
			from = end + 1
			if end > indent && buf[end-indent-1] == '\n' && allBlanks(buf[end-indent:end]) {
				if limit > 0 && end+1 > limit {
					d.mark = -1
					return nil, d.fail("a container longer than %d bytes", limit)
				}
				d.pos = d.mark + end + 1
				text := d.buf[d.mark:d.pos]
				d.mark = -1
				d.consumed++
				return text, nil
			}
		}
		if limit > 0 && len(d.buf)-d.mark > limit {
			d.mark = -1
			return nil, d.fail("a container longer than %d bytes", limit)
		}
		d.pos = len(d.buf)
		if !d.fill() {
			d.mark = -1
			return nil, d.fail("unexpected end of input")
		}
	}
}

// allBlanks reports whether s is all blanks.
func allBlanks(s []byte) bool {
	for _, c := range s {
		if c != ' ' {
			return false
		}
	}
	return true
}

package jsonv

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
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

// ValueLimitError is the failure of a document over Options.MaxValues.
type ValueLimitError struct {
	// Limit is the MaxValues that was exceeded.
	Limit int
}

func (e *ValueLimitError) Error() string {
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
	p := &parser{data: data, maxDepth: opts.MaxDepth, maxValues: opts.MaxValues}
	if p.maxDepth <= 0 {
		p.maxDepth = HardMaxDepth
	}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, 0, p.fail("byte order mark is not allowed")
	}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, p.values, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.values, p.fail("unexpected data after the JSON value")
	}
	return v, p.values, nil
}

type parser struct {
	data      []byte
	pos       int
	maxDepth  int
	maxValues int
	values    int
	path      Path
}

func (p *parser) fail(format string, args ...any) error {
	line, col := 1, 1
	end := min(p.pos, len(p.data))
	for i := 0; i < end; i++ {
		if p.data[i] == '\n' {
			line++
			col = 1
		} else if p.data[i]&0xC0 != 0x80 {
			col++
		}
	}
	path := make(Path, len(p.path))
	copy(path, p.path)
	return &ParseError{Line: line, Column: col, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses the element at the given depth.
func (p *parser) value(depth int) (*Value, error) {
	if depth > p.maxDepth {
		return nil, p.fail("nesting deeper than %d", p.maxDepth)
	}
	p.values++
	if p.maxValues > 0 && p.values > p.maxValues {
		return nil, &ValueLimitError{Limit: p.maxValues}
	}
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Text: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", &Value{Kind: Bool, Bool: true})
	case c == 'f':
		return p.literal("false", &Value{Kind: Bool})
	case c == 'n':
		return p.literal("null", &Value{Kind: Null})
	default:
		return nil, p.fail("invalid character %s", quoteByte(c))
	}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) literal(word string, v *Value) (*Value, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.fail("invalid literal (NaN, Infinity and bare words are not JSON)")
	}
	p.pos += len(word)
	return v, nil
}

func (p *parser) number() (*Value, error) {
	start := p.pos
	kind := Int
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case p.pos < len(p.data) && p.data[p.pos] >= '1' && p.data[p.pos] <= '9':
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	default:
		return nil, p.fail("invalid number (Infinity is not JSON)")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		kind = Float
		p.pos++
		if p.pos >= len(p.data) || !isDigit(p.data[p.pos]) {
			return nil, p.fail("invalid number: digit expected after '.'")
		}
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		kind = Float
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(p.data) || !isDigit(p.data[p.pos]) {
			return nil, p.fail("invalid number: digit expected in exponent")
		}
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	}
	return &Value{Kind: kind, Text: string(p.data[start:p.pos])}, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) array(depth int) (*Value, error) {
	p.pos++ // '['
	v := &Value{Kind: Array, Items: []*Value{}}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for i := 0; ; i++ {
		p.path = append(p.path, PathElem{Index: i, IsIndex: true})
		p.skipSpace()
		item, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		v.Items = append(v.Items, item)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return nil, p.fail("expected ',' or ']' in array")
		}
	}
}

func (p *parser) object(depth int) (*Value, error) {
	p.pos++ // '{'
	v := &Value{Kind: Object, Members: []Member{}}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	var seen map[string]struct{}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("expected a string object key")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		// Small objects are checked by scanning; a map only pays off for wide ones.
		if len(v.Members) >= 16 {
			if seen == nil {
				seen = make(map[string]struct{}, 2*len(v.Members))
				for _, m := range v.Members {
					seen[m.Key] = struct{}{}
				}
			}
			if _, dup := seen[key]; dup {
				return nil, p.fail("duplicate object key %q", key)
			}
			seen[key] = struct{}{}
		} else {
			for _, m := range v.Members {
				if m.Key == key {
					return nil, p.fail("duplicate object key %q", key)
				}
			}
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after object key")
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, PathElem{Key: key})
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		v.Members = append(v.Members, Member{Key: key, Value: val})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
		default:
			return nil, p.fail("expected ',' or '}' in object")
		}
	}
}

// str parses a string literal at p.pos (which holds the opening quote).
func (p *parser) str() (string, error) {
	p.pos++
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if !utf8.Valid(s) {
				return "", p.fail("invalid UTF-8 in string")
			}
			p.pos++
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail("raw control character in string")
		}
		p.pos++
	}
	buf := make([]byte, 0, p.pos-start+16)
	buf = append(buf, p.data[start:p.pos]...)
	for {
		if p.pos >= len(p.data) {
			return "", p.fail("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !utf8.Valid(buf) {
				return "", p.fail("invalid UTF-8 in string")
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("raw control character in string")
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.data) {
			return "", p.fail("unterminated escape")
		}
		e := p.data[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xDC00:
				if p.pos+6 > len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
					return "", p.fail("unpaired UTF-16 surrogate \\u%04x", r)
				}
				p.pos += 2
				r2, err := p.hex4()
				if err != nil {
					return "", err
				}
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return "", p.fail("unpaired UTF-16 surrogate \\u%04x", r)
				}
				r = utf16.DecodeRune(r, r2)
			case utf16.IsSurrogate(r):
				return "", p.fail("unpaired UTF-16 surrogate \\u%04x", r)
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.fail("invalid escape \\%c", e)
		}
	}
}

func (p *parser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.fail("truncated \\u escape")
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, p.fail("invalid \\u escape")
		}
	}
	p.pos += 4
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

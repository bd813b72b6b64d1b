package jsonv

// The parser jsonv had before the streaming Decoder, kept as the oracle of
// FuzzDecoderMatchesOracle: the Decoder must accept, refuse and report
// exactly as it did.

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

func oracleParse(data []byte, opts Options) (*Value, int, error) {
	p := &oracleParser{data: data, maxDepth: opts.MaxDepth, maxValues: opts.MaxValues}
	if p.maxDepth <= 0 {
		p.maxDepth = HardMaxDepth
	}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, 0, p.ofail("byte order mark is not allowed")
	}
	p.oskipSpace()
	v, err := p.ovalue(0)
	if err != nil {
		return nil, p.values, err
	}
	p.oskipSpace()
	if p.pos < len(p.data) {
		return nil, p.values, p.ofail("unexpected data after the JSON value")
	}
	return v, p.values, nil
}

type oracleParser struct {
	data      []byte
	pos       int
	maxDepth  int
	maxValues int
	values    int
	path      Path
}

func (p *oracleParser) ofail(format string, args ...any) error {
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

func (p *oracleParser) oskipSpace() {
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
func (p *oracleParser) ovalue(depth int) (*Value, error) {
	if depth > p.maxDepth {
		return nil, p.ofail("nesting deeper than %d", p.maxDepth)
	}
	p.values++
	if p.maxValues > 0 && p.values > p.maxValues {
		return nil, &ValueLimitError{Limit: p.maxValues}
	}
	if p.pos >= len(p.data) {
		return nil, p.ofail("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.oobject(depth)
	case c == '[':
		return p.oarray(depth)
	case c == '"':
		s, err := p.ostr()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Text: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.onumber()
	case c == 't':
		return p.oliteral("true", &Value{Kind: Bool, Bool: true})
	case c == 'f':
		return p.oliteral("false", &Value{Kind: Bool})
	case c == 'n':
		return p.oliteral("null", &Value{Kind: Null})
	default:
		return nil, p.ofail("invalid character %s", quoteByte(c))
	}
}

func (p *oracleParser) oliteral(word string, v *Value) (*Value, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.ofail("invalid literal (NaN, Infinity and bare words are not JSON)")
	}
	p.pos += len(word)
	return v, nil
}

func (p *oracleParser) onumber() (*Value, error) {
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
		return nil, p.ofail("invalid number (Infinity is not JSON)")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		kind = Float
		p.pos++
		if p.pos >= len(p.data) || !isDigit(p.data[p.pos]) {
			return nil, p.ofail("invalid number: digit expected after '.'")
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
			return nil, p.ofail("invalid number: digit expected in exponent")
		}
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	}
	return &Value{Kind: kind, Text: string(p.data[start:p.pos])}, nil
}

func (p *oracleParser) oarray(depth int) (*Value, error) {
	p.pos++ // '['
	v := &Value{Kind: Array, Items: []*Value{}}
	p.oskipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for i := 0; ; i++ {
		p.path = append(p.path, PathElem{Index: i, IsIndex: true})
		p.oskipSpace()
		item, err := p.ovalue(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		v.Items = append(v.Items, item)
		p.oskipSpace()
		if p.pos >= len(p.data) {
			return nil, p.ofail("unexpected end of input in array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return nil, p.ofail("expected ',' or ']' in array")
		}
	}
}

func (p *oracleParser) oobject(depth int) (*Value, error) {
	p.pos++ // '{'
	v := &Value{Kind: Object, Members: []Member{}}
	p.oskipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	var seen map[string]struct{}
	for {
		p.oskipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.ofail("expected a string object key")
		}
		key, err := p.ostr()
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
				return nil, p.ofail("duplicate object key %q", key)
			}
			seen[key] = struct{}{}
		} else {
			for _, m := range v.Members {
				if m.Key == key {
					return nil, p.ofail("duplicate object key %q", key)
				}
			}
		}
		p.oskipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.ofail("expected ':' after object key")
		}
		p.pos++
		p.oskipSpace()
		p.path = append(p.path, PathElem{Key: key})
		val, err := p.ovalue(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		v.Members = append(v.Members, Member{Key: key, Value: val})
		p.oskipSpace()
		if p.pos >= len(p.data) {
			return nil, p.ofail("unexpected end of input in object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
		default:
			return nil, p.ofail("expected ',' or '}' in object")
		}
	}
}

// str parses a string literal at p.pos (which holds the opening quote).
func (p *oracleParser) ostr() (string, error) {
	p.pos++
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if !utf8.Valid(s) {
				return "", p.ofail("invalid UTF-8 in string")
			}
			p.pos++
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.ofail("raw control character in string")
		}
		p.pos++
	}
	buf := make([]byte, 0, p.pos-start+16)
	buf = append(buf, p.data[start:p.pos]...)
	for {
		if p.pos >= len(p.data) {
			return "", p.ofail("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !utf8.Valid(buf) {
				return "", p.ofail("invalid UTF-8 in string")
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.ofail("raw control character in string")
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.data) {
			return "", p.ofail("unterminated escape")
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
			r, err := p.ohex4()
			if err != nil {
				return "", err
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xDC00:
				if p.pos+6 > len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
					return "", p.ofail("unpaired UTF-16 surrogate \\u%04x", r)
				}
				p.pos += 2
				r2, err := p.ohex4()
				if err != nil {
					return "", err
				}
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return "", p.ofail("unpaired UTF-16 surrogate \\u%04x", r)
				}
				r = utf16.DecodeRune(r, r2)
			case utf16.IsSurrogate(r):
				return "", p.ofail("unpaired UTF-16 surrogate \\u%04x", r)
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.ofail("invalid escape %q", []byte{'\\', e})
		}
	}
}

func (p *oracleParser) ohex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.ofail("truncated \\u escape")
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
			return 0, p.ofail("invalid \\u escape")
		}
	}
	p.pos += 4
	return r, nil
}

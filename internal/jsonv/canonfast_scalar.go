package jsonv

import (
	"unicode/utf16"
	"unicode/utf8"
)

// str reads a string at offset i, appends it to both texts and returns
// the offsets of its contents; a key (which is compared as it stands in
// the input) must have no escape.
func (s *canonScan) str(key bool) (start, end int, ok bool) {
	s.i++
	start = s.i
	var high uint64
	for {
		if !s.more() {
			return 0, 0, false
		}
		b := s.buf()
		i, h := scanPlain(b, s.i)
		high |= h
		s.i = i
		if i < len(b) {
			break
		}
	}
	b := s.buf()
	if b[s.i] != '"' {
		if b[s.i] != '\\' || key {
			return 0, 0, false
		}
		return start, 0, s.escaped(start)
	}
	end = s.i
	str := b[start:end]
	if high&highBits != 0 && !validUTF8(str) {
		return 0, 0, false
	}
	if !s.noCompact {
		s.c = append(append(append(s.c, '"'), str...), '"')
	}
	s.k = append(append(append(s.k, '"'), str...), '"')
	s.i++
	return start, end, true
}

// escaped finishes a string that has an escape at offset i, from its
// contents' first byte at start: decoded as the Decoder decodes it, then
// quoted as AppendQuoted quotes it, in both texts.
func (s *canonScan) escaped(start int) bool {
	sb := append(s.sb[:0], s.buf()[start:s.i]...)
	defer func() { s.sb = sb[:0] }()
	for {
		if !s.more() {
			return false
		}
		c := s.buf()[s.i]
		switch {
		case c == '"':
			s.i++
			if !validUTF8(sb) {
				return false
			}
			if !s.noCompact {
				s.c = appendQuotedBytes(s.c, sb)
			}
			s.k = appendQuotedBytes(s.k, sb)
			return true
		case c < 0x20:
			return false
		case c != '\\':
			sb = append(sb, c)
			s.i++
			continue
		}
		s.i++
		if !s.more() {
			return false
		}
		e := s.buf()[s.i]
		s.i++
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
			r, ok := s.hex4()
			if !ok || utf16.IsSurrogate(r) && r >= 0xDC00 {
				return false
			}
			if utf16.IsSurrogate(r) {
				if !s.more() || s.buf()[s.i] != '\\' {
					return false
				}
				s.i++
				if !s.more() || s.buf()[s.i] != 'u' {
					return false
				}
				s.i++
				r2, ok := s.hex4()
				if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
					return false
				}
				r = utf16.DecodeRune(r, r2)
			}
			sb = utf8.AppendRune(sb, r)
		default:
			return false
		}
	}
}

// hex4 reads the four hex digits of a \u escape.
func (s *canonScan) hex4() (rune, bool) {
	var r rune
	for j := 0; j < 4; j++ {
		if !s.more() {
			return 0, false
		}
		c := s.buf()[s.i]
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
		s.i++
	}
	return r, true
}

// appendQuotedBytes is AppendQuoted for a byte slice.
func appendQuotedBytes(dst, s []byte) []byte {
	return appendEscaped(append(dst, '"'), s, 0)
}

// number reads a number literal under the Decoder's grammar and appends
// it to the compact text and its ECMAScript form to the canonical text.
func (s *canonScan) number() bool {
	start := s.i
	kind := Int
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.i++
		kind = Float
		if s.digits() == 0 {
			return false
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		kind = Float
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	if !s.more() {
		// Only a number at the top level ends the input: Transcode
		// reads it.
		return false
	}
	lit := s.buf()[start:s.i]
	k, ok := appendCanonicalNumber(s.k, kind, lit)
	if !ok {
		return false
	}
	s.k = k
	if !s.noCompact {
		s.c = append(s.c, lit...)
	}
	return true
}

// peek returns the byte at offset i, or 0 at the end of the input.
func (s *canonScan) peek() byte {
	if !s.more() {
		return 0
	}
	return s.buf()[s.i]
}

// digits reads digits and returns how many.
func (s *canonScan) digits() int {
	n := 0
	for s.more() {
		if c := s.buf()[s.i]; c < '0' || c > '9' {
			break
		}
		s.i++
		n++
	}
	return n
}

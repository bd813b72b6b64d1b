package jsonv

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// validUTF8 is utf8.Valid for the strings of a document: mostly ASCII
// text with a letter or word of another script here and there. It skips
// ASCII eight bytes at a time and, inside a word that holds a non-ASCII
// byte, straight to that byte, where utf8.Valid steps byte by byte
// through every word that holds one; runs of two- and three-byte
// characters are checked in line.
func validUTF8(p []byte) bool {
	for {
		for len(p) >= 8 {
			w := binary.LittleEndian.Uint64(p) & highBits
			if w != 0 {
				p = p[bits.TrailingZeros64(w)>>3:]
				break
			}
			p = p[8:]
		}
		for len(p) > 0 && p[0] < utf8.RuneSelf {
			p = p[1:]
		}
		if len(p) == 0 {
			return true
		}
		// p[0] starts a multi-byte character, and usually a run of them.
		for len(p) > 0 && p[0] >= utf8.RuneSelf {
			c := p[0]
			switch {
			case c >= 0xC2 && c <= 0xDF:
				if len(p) < 2 || p[1]&0xC0 != 0x80 {
					return false
				}
				p = p[2:]
			case c >= 0xE0 && c <= 0xEF:
				if len(p) < 3 || p[1]&0xC0 != 0x80 || p[2]&0xC0 != 0x80 ||
					c == 0xE0 && p[1] < 0xA0 || c == 0xED && p[1] > 0x9F {
					return false
				}
				p = p[3:]
			default:
				r, size := utf8.DecodeRune(p)
				if r == utf8.RuneError && size == 1 {
					return false
				}
				p = p[size:]
			}
		}
	}
}

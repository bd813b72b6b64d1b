package findings

import (
	"unicode"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/caps"
)

// The reference's regular expressions run on Python str patterns, where `\w`,
// `\d`, `\s` and `\b` are Unicode-aware; Go's RE2 classes are ASCII-only. The
// scanners in this package therefore match by hand and use these predicates,
// which agree with Python 3.11 (Unicode 14) on every code point it assigns;
// Go 1.26 knows Unicode 15, so the characters new in 15.0 are word
// characters here and not in that Python.

// isWord is Python's `\w`: str.isalnum() or '_'. isalnum means a letter
// (categories L*) or a number with a numeric value, which is exactly the N*
// categories.
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// isDecimal is Python's `\d`: category Nd (str.isdecimal).
func isDecimal(r rune) bool { return unicode.IsDigit(r) }

// isSpace is Python's `\s`.
func isSpace(r rune) bool { return caps.IsSpace(r) }

// wordBefore reports whether the character ending at byte offset i is a word
// character; false at the start of s.
func wordBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWord(r)
}

// wordAt reports whether the character starting at byte offset i is a word
// character; false at the end of s.
func wordAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWord(r)
}

// Byte classes of the ASCII-only character sets in the reference patterns.

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// runEnd returns the end of the maximal run of bytes in class starting at i.
func runEnd(s string, i int, class func(byte) bool) int {
	for i < len(s) && class(s[i]) {
		i++
	}
	return i
}

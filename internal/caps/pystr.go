package caps

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether r is matched by Python's re `\s` on a str pattern,
// which is the set of characters str.isspace() accepts. Go's unicode.IsSpace
// differs: it omits U+001C–U+001F (the ASCII information separators), which
// Python counts as whitespace because their bidirectional class is B or S.
// The tokenizer cuts on these, and the secret and supply-chain scanners use
// the same set wherever the reference's regular expressions say `\s`.
func IsSpace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0D, r >= 0x1C && r <= 0x20:
		return true
	case r < 0x80:
		return false
	case r == 0x85, r == 0xA0, r == 0x1680, r >= 0x2000 && r <= 0x200A,
		r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000:
		return true
	}
	return false
}

// Lower returns Python's str.lower() of s.
//
// It differs from strings.ToLower in exactly the two places where Python
// applies the full Unicode lowercase mapping rather than the simple one:
//
//   - U+0130 (capital I with dot above) becomes "i" followed by U+0307
//     (combining dot above), two code points; Go gives plain "i". Without
//     this, "lİst" would tokenize to the keyword "list" in Go but not in
//     Python.
//   - U+03A3 (capital sigma) becomes final sigma U+03C2 when it ends a word
//     (the Unicode Final_Sigma context, which CPython implements) and U+03C3
//     otherwise; Go always gives U+03C3. No keyword contains a sigma, so this
//     only matters for the exact tokens returned, never for a derived flag.
//
// Every other code point maps through unicode.ToLower, which agrees with
// Python's mapping up to the Unicode version of the two runtimes. Invalid
// UTF-8 bytes become U+FFFD, as in strings.ToLower.
func Lower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	for i, r := range s {
		switch r {
		case 0x130:
			b.WriteString("i\u0307")
		case 0x3A3:
			if finalSigma(s, i) {
				b.WriteRune(0x3C2)
			} else {
				b.WriteRune(0x3C3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// finalSigma reports whether the capital sigma at byte offset i of s is in
// the Final_Sigma context: preceded by a cased letter (skipping
// case-ignorable characters) and not followed by one (again skipping
// case-ignorable characters). This is the rule CPython's str.lower applies.
//
// Each scan stops at the first character that is not case-ignorable, and a
// sigma is itself not case-ignorable, so across all sigmas every character is
// visited at most twice: Lower stays linear.
func finalSigma(s string, i int) bool {
	j := i
	before := false
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if !isCaseIgnorable(r) {
			before = isCased(r)
			break
		}
	}
	if !before {
		return false
	}
	for _, r := range s[i+utf8.RuneLen(0x3A3):] {
		if !isCaseIgnorable(r) {
			return !isCased(r)
		}
	}
	return true
}

// isCased is the Unicode Cased property: Lowercase, Uppercase or titlecase.
func isCased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// isCaseIgnorable is the Unicode Case_Ignorable property: categories Mn, Me,
// Cf, Lm and Sk plus the Word_Break classes MidLetter, MidNumLet and
// Single_Quote, which Go's unicode package has no table for and are listed
// here.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024,
		0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

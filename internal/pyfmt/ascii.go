package pyfmt

import "unicode/utf8"

// AppendASCIIString appends s as Python's json.dumps writes a str with its
// default ensure_ascii=True: the short escapes \" \\ \n \r \t \b \f, every
// other control character and every non-ASCII code point as \uXXXX (UTF-16
// surrogate pairs above the BMP). Invalid UTF-8 is written as U+FFFD's
// escape, as Python would write the str it decoded with replacement.
func AppendASCIIString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"':
			dst = append(dst, `\"`...)
		case r == '\\':
			dst = append(dst, `\\`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r == '\b':
			dst = append(dst, `\b`...)
		case r == '\f':
			dst = append(dst, `\f`...)
		case r < 0x20 || (r >= 0x7f && r < utf8.RuneSelf) || (r >= utf8.RuneSelf && r < 0x10000):
			dst = appendU(dst, uint32(r))
		case r >= 0x10000:
			r -= 0x10000
			dst = appendU(dst, uint32(0xd800+(r>>10)))
			dst = appendU(dst, uint32(0xdc00+(r&0x3ff)))
		default:
			dst = append(dst, byte(r))
		}
	}
	return append(dst, '"')
}

func appendU(dst []byte, n uint32) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[n>>12&0xf], hex[n>>8&0xf], hex[n>>4&0xf], hex[n&0xf])
}

package pyfmt

import "github.com/wardenlock/warden/internal/jsonv"

// AppendIndentRaw is AppendIndent for a value held as a jsonv.Raw, written
// straight from its compact text without building the tree: strings are
// copied as they stand (compact text escapes them exactly as json.dumps
// with ensure_ascii=False does), numbers go through Python's rendering, and
// brackets, commas and colons get dumps' line breaks and indentation. The
// zero Raw is written as null.
func AppendIndentRaw(dst []byte, r jsonv.Raw, indent, level int) []byte {
	s := r.Text()
	if s == "" {
		return append(dst, "null"...)
	}
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '{', '[':
			if i+1 < len(s) && (s[i+1] == '}' || s[i+1] == ']') {
				dst = append(dst, c, s[i+1])
				i += 2
				continue
			}
			level++
			dst = newline(append(dst, c), indent, level)
			i++
		case '}', ']':
			level--
			dst = append(newline(dst, indent, level), c)
			i++
		case ',':
			dst = newline(append(dst, ','), indent, level)
			i++
		case ':':
			dst = append(dst, ':', ' ')
			i++
		case '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			dst = append(dst, s[i:j]...)
			i = j
		case 't', 'n':
			dst = append(dst, s[i:min(i+4, len(s))]...)
			i += 4
		case 'f':
			dst = append(dst, s[i:min(i+5, len(s))]...)
			i += 5
		default:
			j := i
			kind := jsonv.Int
			for j < len(s) && isNumberByte(s[j]) {
				if s[j] == '.' || s[j] == 'e' || s[j] == 'E' {
					kind = jsonv.Float
				}
				j++
			}
			if j == i {
				j++ // not reached for valid compact text; never loop
			}
			dst = appendNumber(dst, kind, s[i:j])
			i = j
		}
	}
	return dst
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

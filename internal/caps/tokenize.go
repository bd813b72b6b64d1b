package caps

import (
	"strings"
	"unicode/utf8"
)

// Tokenize splits an identifier into lower-cased segments the way the
// reference tokenizer does, so that "runShellCommand", "run_shell_command"
// and "run-shell.command" all yield [run shell command].
//
// The string is cut at:
//
//   - every maximal run of delimiters, which are dropped: '_', '-', '.' and
//     every character Python's re `\s` matches (see IsSpace);
//   - a camel boundary: between an ASCII lower-case letter or ASCII digit and
//     an ASCII capital ("getURL" → get|URL, "file2Path" → file2|Path);
//   - an acronym boundary: between two ASCII capitals when the second is
//     followed by an ASCII lower-case letter ("HTTPServer" → HTTP|Server,
//     "READfile" → REA|Dfile).
//
// Empty pieces are dropped and each piece is lower-cased with Python's
// str.lower (see Lower). Only ASCII letters and digits create boundaries:
// "fooÄbc" stays one segment, and digits never split from letters except
// before an ASCII capital. The result is empty (nil) for "".
func Tokenize(s string) []string {
	if s == "" {
		return nil
	}
	if isASCII(s) {
		return tokenizeASCII(s)
	}
	return tokenizeRunes(s)
}

// tokenizeASCII is Tokenize for an ASCII s, where a rune is a byte: the
// pieces are substrings of s, lower-cased (copied) only when they hold a
// capital, so the common identifier costs the result slice alone.
func tokenizeASCII(s string) []string {
	out := make([]string, 0, 4)
	splitRunes(s, func(piece string) { out = append(out, strings.ToLower(piece)) })
	if len(out) == 0 {
		return nil
	}
	return out
}

// tokenizeRunes is Tokenize for any s.
func tokenizeRunes(s string) []string {
	if !utf8.ValidString(s) {
		return tokenizeRuneSlice(s)
	}
	var out []string
	splitRunes(s, func(piece string) { out = append(out, Lower(piece)) })
	return out
}

// splitRunes calls f with each piece Tokenize cuts a valid UTF-8 s into,
// in order and not yet lower-cased: each piece is a substring of s. Only
// ASCII letters and digits make boundaries, so the rune after a capital
// needs looking at only when it is an ASCII byte.
func splitRunes(s string, f func(piece string)) {
	start := 0
	prev := rune(-1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isDelimiter(r) {
			if i > start {
				f(s[start:i])
			}
			start = i + size
		} else if i > start && isUpper(r) {
			next := i + size
			if isLower(prev) || isDigit(prev) || isUpper(prev) && next < len(s) && isLower(rune(s[next])) {
				f(s[start:i])
				start = i
			}
		}
		prev = r
		i += size
	}
	if len(s) > start {
		f(s[start:])
	}
}

// tokenizeRuneSlice is Tokenize for an s that is not valid UTF-8, rune by
// rune as Go converts it: each invalid byte is a U+FFFD of its own.
func tokenizeRuneSlice(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0 // first rune of the current piece
	flush := func(end int) {
		if end > start {
			out = append(out, Lower(string(rs[start:end])))
		}
	}
	for i, r := range rs {
		if isDelimiter(r) {
			flush(i)
			start = i + 1
			continue
		}
		// i > start means the previous rune is part of this piece and
		// therefore not a delimiter.
		if i > start && boundary(rs, i) {
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}

func isDelimiter(r rune) bool {
	return r == '_' || r == '-' || r == '.' || IsSpace(r)
}

// boundary reports whether there is a camel or acronym cut between rs[i-1]
// and rs[i].
func boundary(rs []rune, i int) bool {
	x, y := rs[i-1], rs[i]
	if !isUpper(y) {
		return false
	}
	if isLower(x) || isDigit(x) {
		return true
	}
	return isUpper(x) && i+1 < len(rs) && isLower(rs[i+1])
}

func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }
func isLower(r rune) bool { return r >= 'a' && r <= 'z' }
func isDigit(r rune) bool { return r >= '0' && r <= '9' }

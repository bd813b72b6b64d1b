// Package pyfmt reproduces the few Python renderings that the MCP Lock Format
// leaks into its outputs: str() and repr() of parsed JSON values, float repr,
// json.dumps text, urllib.parse.unquote and Python's == on JSON values.
//
// The reference implementation is Python, and these renderings reach digests
// (the schema skeleton's enum order), drift details ("additionalProperties
// False→{'type': 'string'}") and the written lock file, so warden must emit
// them byte for byte. Keeping them in one package stops Python semantics from
// being sprinkled around the code base.
package pyfmt

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/jsonv"
)

// TypeName returns the Python type name json.loads gives v: NoneType, bool,
// int, float, str, list or dict.
func TypeName(v *jsonv.Value) string {
	switch v.Kind {
	case jsonv.Null:
		return "NoneType"
	case jsonv.Bool:
		return "bool"
	case jsonv.Int:
		return "int"
	case jsonv.Float:
		return "float"
	case jsonv.String:
		return "str"
	case jsonv.Array:
		return "list"
	}
	return "dict"
}

// Str returns Python's str(v): a string is itself, anything else its repr.
func Str(v *jsonv.Value) string {
	if v.Kind == jsonv.String {
		return v.Text
	}
	return Repr(v)
}

// Repr returns Python's repr(v) of the value json.loads would produce: dicts
// in document order, True/False/None, floats in repr form.
func Repr(v *jsonv.Value) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v *jsonv.Value) {
	switch v.Kind {
	case jsonv.Null:
		b.WriteString("None")
	case jsonv.Bool:
		if v.Bool {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case jsonv.Int:
		b.WriteString(IntText(v.Text))
	case jsonv.Float:
		f, _ := v.Float64()
		b.WriteString(FloatRepr(f))
	case jsonv.String:
		b.WriteString(StringRepr(v.Text))
	case jsonv.Array:
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it)
		}
		b.WriteByte(']')
	case jsonv.Object:
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(StringRepr(m.Key))
			b.WriteString(": ")
			writeRepr(b, m.Value)
		}
		b.WriteByte('}')
	}
}

// IntText renders a JSON integer literal the way Python prints the int it
// parses to; only "-0" changes (to "0").
func IntText(lit string) string {
	if strings.TrimLeft(lit, "-0") == "" {
		return "0"
	}
	return lit
}

// StringRepr returns Python's repr of a str.
func StringRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case isPrintable(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x`)
			writeHex(&b, uint32(r), 2)
		case r <= 0xffff:
			b.WriteString(`\u`)
			writeHex(&b, uint32(r), 4)
		default:
			b.WriteString(`\U`)
			writeHex(&b, uint32(r), 8)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func writeHex(b *strings.Builder, n uint32, width int) {
	s := strconv.FormatUint(uint64(n), 16)
	for i := len(s); i < width; i++ {
		b.WriteByte('0')
	}
	b.WriteString(s)
}

// isPrintable mirrors Python's str.isprintable for one character: everything
// except the categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs, but with the ASCII
// space printable.
func isPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	if r < 0x20 || r == 0x7f {
		return false
	}
	if r < 0x7f {
		return true
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs) {
		return false
	}
	// Unassigned code points (Cn) belong to no category table.
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// FloatRepr returns Python's repr of a float: the shortest digits that round
// trip, fixed notation (always with a fraction) for exponents -4..15, and
// scientific notation with a signed two-digit-minimum exponent otherwise.
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64) // e.g. -1.2345e+17
	mant, expText, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expText)
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsRune(s, '.') {
			s += ".0"
		}
		return s
	}
	sign := "+"
	if exp < 0 {
		sign = "-"
		exp = -exp
	}
	e := strconv.Itoa(exp)
	if len(e) < 2 {
		e = "0" + e
	}
	return mant + "e" + sign + e
}

// numberText renders a JSON number the way Python's json.dumps writes the
// value json.loads gave: ints as decimal, floats as repr but with Infinity
// and NaN spelled the JSON-ish way.
func numberText(v *jsonv.Value) string {
	if v.Kind == jsonv.Int {
		return IntText(v.Text)
	}
	f, _ := v.Float64()
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return FloatRepr(f)
}

// appendNumber appends numberText of the number literal lit of the given
// kind.
func appendNumber(dst []byte, kind jsonv.Kind, lit string) []byte {
	if kind == jsonv.Int {
		return append(dst, IntText(lit)...)
	}
	if b, ok := appendPlainFloat(dst, lit); ok {
		return b
	}
	return append(dst, numberText(&jsonv.Value{Kind: kind, Text: lit})...)
}

// appendPlainFloat appends Python's repr of the float of a literal written
// as a plain decimal (-?digits.digits, no exponent) with at most 15
// significant digits and no more than three zeros after the point before
// the first nonzero digit, and reports false, appending nothing, for any
// other literal. Such a float's shortest round-trip digits are the
// literal's own (15 digits is what a float64 holds exactly, so no other
// decimal of 15 digits or fewer rounds to it), and its magnitude, from
// 1e-4 up to below 1e15, is in the range repr writes without an exponent:
// the literal without leading zeros before the point, without trailing
// zeros after it but one, and with the sign of a negative zero.
// TestPlainFloat holds this to FloatRepr.
func appendPlainFloat(dst []byte, lit string) ([]byte, bool) {
	d, ok := jsonv.SplitPlainDecimal(lit)
	if !ok || d.Digits > 15 || d.Int == "" && d.Digits > 0 && d.Lead > 3 {
		return dst, false
	}
	if d.Neg {
		dst = append(dst, '-')
	}
	if d.Int == "" {
		dst = append(dst, '0')
	} else {
		dst = append(dst, d.Int...)
	}
	dst = append(dst, '.')
	if d.Frac == "" {
		return append(dst, '0'), true
	}
	return append(dst, d.Frac...), true
}

// Dumps returns json.dumps(v, ensure_ascii=False) with the default separators
// ", " and ": "; with sortKeys, object keys are ordered by code point as
// sort_keys=True does.
func Dumps(v *jsonv.Value, sortKeys bool) string {
	var b []byte
	b = appendDumps(b, v, sortKeys)
	return string(b)
}

// AppendDumps appends Dumps's text of v to b.
func AppendDumps(b []byte, v *jsonv.Value, sortKeys bool) []byte {
	return appendDumps(b, v, sortKeys)
}

func appendDumps(b []byte, v *jsonv.Value, sortKeys bool) []byte {
	switch v.Kind {
	case jsonv.Null:
		return append(b, "null"...)
	case jsonv.Bool:
		if v.Bool {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case jsonv.Int, jsonv.Float:
		return appendNumber(b, v.Kind, v.Text)
	case jsonv.String:
		return v.AppendQuotedText(b)
	case jsonv.Array:
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendDumps(b, it, sortKeys)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, m := range orderedMembers(v, sortKeys) {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = jsonv.AppendQuoted(b, m.Key)
		b = append(b, ": "...)
		b = appendDumps(b, m.Value, sortKeys)
	}
	return append(b, '}')
}

func orderedMembers(v *jsonv.Value, sortKeys bool) []jsonv.Member {
	if !sortKeys {
		return v.Members
	}
	ms := make([]jsonv.Member, len(v.Members))
	copy(ms, v.Members)
	// Go compares strings bytewise, which for UTF-8 is code-point order: the
	// order Python's sorted() gives str keys.
	sortMembers(ms)
	return ms
}

// DumpsIndent returns json.dumps(v, indent=indent, ensure_ascii=False): members
// in document order, "," line ends and ": " after keys, empty containers as
// [] and {}. This is the byte format of warden.lock and of SARIF files.
func DumpsIndent(v *jsonv.Value, indent int) []byte {
	return appendIndent(nil, v, indent, 0)
}

// AppendIndent appends DumpsIndent's text of v to dst as it reads when v sits
// level containers deep in a larger document: nested lines are indented by
// indent*(level+1) spaces and the closing bracket by indent*level. It lets
// a large document be written one part at a time.
func AppendIndent(dst []byte, v *jsonv.Value, indent, level int) []byte {
	return appendIndent(dst, v, indent, level)
}

func appendIndent(b []byte, v *jsonv.Value, indent, level int) []byte {
	switch v.Kind {
	case jsonv.Array:
		if len(v.Items) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, indent, level+1)
			b = appendIndent(b, it, indent, level+1)
		}
		b = newline(b, indent, level)
		return append(b, ']')
	case jsonv.Object:
		if len(v.Members) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, m := range v.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, indent, level+1)
			b = jsonv.AppendQuoted(b, m.Key)
			b = append(b, ": "...)
			b = appendIndent(b, m.Value, indent, level+1)
		}
		b = newline(b, indent, level)
		return append(b, '}')
	}
	return appendDumps(b, v, false)
}

// spaces is a run of blanks that newline copies indentation from.
const spaces = "\n                                                                "

// Newline appends a line break and indent*level spaces.
func Newline(b []byte, indent, level int) []byte {
	return newline(b, indent, level)
}

func newline(b []byte, indent, level int) []byte {
	n := indent * level
	if n < len(spaces) {
		return append(b, spaces[:1+n]...)
	}
	b = append(b, '\n')
	for ; n > 0; n -= min(n, len(spaces)-1) {
		b = append(b, spaces[1:1+min(n, len(spaces)-1)]...)
	}
	return b
}

// Unquote is urllib.parse.unquote: %XX escapes become bytes (hex in either
// case), a '%' not followed by two hex digits stays literal, '+' stays '+',
// and each run of decoded bytes is read as UTF-8 with every maximal invalid
// subsequence replaced by one U+FFFD, as CPython does.
func Unquote(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var out strings.Builder
	var run []byte // decoded bytes not yet converted
	flush := func() {
		out.WriteString(decodeReplacing(run))
		run = run[:0]
	}
	for i := 0; i < len(s); {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			run = append(run, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 3
			continue
		}
		flush()
		_, size := utf8.DecodeRuneInString(s[i:])
		out.WriteString(s[i : i+size])
		i += size
	}
	flush()
	return out.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// decodeReplacing decodes b as UTF-8, replacing each maximal subpart of an
// ill-formed sequence (Unicode §3.9, the WHATWG and CPython policy) with one
// U+FFFD. utf8.DecodeRune alone would emit one U+FFFD per byte.
func decodeReplacing(b []byte) string {
	var out strings.Builder
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			out.WriteString(string(b[i : i+size]))
			i += size
			continue
		}
		out.WriteRune(utf8.RuneError)
		i += maximalSubpart(b[i:])
	}
	return out.String()
}

// maximalSubpart returns the length (at least 1) of the longest prefix of b
// that is a valid start of some UTF-8 sequence.
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		cb := b[n]
		if k == 0 {
			if cb < lo || cb > hi {
				return n
			}
		} else if cb < 0x80 || cb > 0xBF {
			return n
		}
		n++
	}
	return n
}

// Equal is Python's == on the values json.loads gives: numbers compare by
// value across int, float and bool (1 == 1.0 == True), lists element-wise,
// dicts as unordered maps, strings by code points, None only to None.
func Equal(a, b *jsonv.Value) bool {
	if a == nil || b == nil {
		return a.IsNull() && b.IsNull()
	}
	an, aok := numeric(a)
	bn, bok := numeric(b)
	if aok || bok {
		return aok && bok && an.Cmp(bn) == 0
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case jsonv.Null:
		return true
	case jsonv.String:
		return a.Text == b.Text
	case jsonv.Array:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !Equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	case jsonv.Object:
		if len(a.Members) != len(b.Members) {
			return false
		}
		for _, m := range a.Members {
			if !b.Has(m.Key) || !Equal(m.Value, b.Get(m.Key)) {
				return false
			}
		}
		return true
	}
	return false
}

// numeric returns the exact value of a bool, int or finite float.
func numeric(v *jsonv.Value) (*big.Float, bool) {
	switch v.Kind {
	case jsonv.Bool:
		if v.Bool {
			return big.NewFloat(1), true
		}
		return big.NewFloat(0), true
	case jsonv.Int:
		i, ok := new(big.Int).SetString(v.Text, 10)
		if !ok {
			return nil, false
		}
		return new(big.Float).SetPrec(0).SetInt(i), true
	case jsonv.Float:
		f, _ := v.Float64()
		if math.IsInf(f, 0) {
			return new(big.Float).SetInf(f < 0), true
		}
		return new(big.Float).SetFloat64(f), true
	}
	return nil, false
}

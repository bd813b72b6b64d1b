// Package jsonv is warden's JSON value model: a parsed JSON document that keeps
// what the lock format needs and encoding/json throws away — object member
// order, whether a number was written as an integer or a float, and the exact
// literal text of every number.
//
// The reference implementation is written in Python, whose json module keeps
// dict insertion order and parses "5" as int and "5.0" as float. Those
// distinctions leak into digests (integer range checks), into the schema
// skeleton (enum sort keys) and into drift details ("5" versus "5.0"), so a
// map[string]any cannot carry them.
package jsonv

import (
	"strconv"
	"strings"
)

// Kind says which JSON type a Value holds.
type Kind uint8

// The JSON kinds. Int and Float are both JSON numbers; Int means the literal
// had no fraction and no exponent, which is how Python's json module decides.
const (
	Null Kind = iota
	Bool
	Int
	Float
	String
	Array
	Object
)

// String returns the kind's name as used in error messages.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Int:
		return "integer"
	case Float:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one parsed JSON value. Values are used through pointers: node
// identity matters to the schema skeleton's cycle detection.
type Value struct {
	Kind Kind
	// Bool is the value of a Bool.
	Bool bool
	// Text is the string of a String, or the literal as written of an Int or
	// Float (for example "1e2" or "-0").
	Text string
	// Items are the elements of an Array.
	Items []*Value
	// Members are the members of an Object in document order.
	Members []Member
	// plain is set by the decoder on a String whose literal held no
	// escape: Text then needs none (see AppendQuotedText).
	plain bool
}

// Member is one object member.
type Member struct {
	Key   string
	Value *Value
}

// NewNull returns a JSON null.
func NewNull() *Value { return &Value{Kind: Null} }

// NewBool returns a JSON boolean.
func NewBool(b bool) *Value { return &Value{Kind: Bool, Bool: b} }

// NewString returns a JSON string.
func NewString(s string) *Value { return &Value{Kind: String, Text: s} }

// NewInt returns a JSON integer.
func NewInt(i int64) *Value { return &Value{Kind: Int, Text: strconv.FormatInt(i, 10)} }

// NewArray returns a JSON array holding items.
func NewArray(items ...*Value) *Value {
	if items == nil {
		items = []*Value{}
	}
	return &Value{Kind: Array, Items: items}
}

// NewStrings returns a JSON array of strings.
func NewStrings(ss []string) *Value {
	items := make([]*Value, len(ss))
	for i, s := range ss {
		items[i] = NewString(s)
	}
	return NewArray(items...)
}

// NewObject returns a JSON object with members in the given order.
func NewObject(members ...Member) *Value {
	if members == nil {
		members = []Member{}
	}
	return &Value{Kind: Object, Members: members}
}

// M is shorthand for building a Member.
func M(key string, v *Value) Member { return Member{Key: key, Value: v} }

// IsNull reports whether v is absent (nil) or JSON null.
func (v *Value) IsNull() bool { return v == nil || v.Kind == Null }

// IsNumber reports whether v is an Int or a Float.
func (v *Value) IsNumber() bool { return v != nil && (v.Kind == Int || v.Kind == Float) }

// Get returns the member named key of an object, or nil when v is not an
// object or has no such member. Parsed objects never repeat a key.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Has reports whether object v has a member named key (even a null one).
func (v *Value) Has(key string) bool {
	if v == nil || v.Kind != Object {
		return false
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return true
		}
	}
	return false
}

// Set replaces the member named key, or appends it when absent.
func (v *Value) Set(key string, val *Value) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members[i].Value = val
			return
		}
	}
	v.Members = append(v.Members, Member{Key: key, Value: val})
}

// Delete removes the member named key, if present.
func (v *Value) Delete(key string) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members = append(v.Members[:i:i], v.Members[i+1:]...)
			return
		}
	}
}

// Str returns the string of a String value and whether v was one.
func (v *Value) Str() (string, bool) {
	if v == nil || v.Kind != String {
		return "", false
	}
	return v.Text, true
}

// Float64 returns the numeric value of an Int or Float as a float64.
func (v *Value) Float64() (float64, bool) {
	if !v.IsNumber() {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Text, 64)
	if err != nil {
		// Only a literal out of float64 range gets here; ParseFloat still
		// returns the correctly signed infinity.
		return f, true
	}
	return f, true
}

// Clone returns a deep copy of v.
func (v *Value) Clone() *Value {
	if v == nil {
		return nil
	}
	c := *v
	if v.Items != nil {
		c.Items = make([]*Value, len(v.Items))
		for i, it := range v.Items {
			c.Items[i] = it.Clone()
		}
	}
	if v.Members != nil {
		c.Members = make([]Member, len(v.Members))
		for i, m := range v.Members {
			c.Members[i] = Member{Key: m.Key, Value: m.Value.Clone()}
		}
	}
	return &c
}

// AppendCompact appends v as compact JSON, object members in document order.
// Strings are escaped minimally (quote, backslash, control characters); the
// output is valid input for an RFC 8785 canonicalizer.
func (v *Value) AppendCompact(dst []byte) []byte {
	switch v.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Int, Float:
		return append(dst, v.Text...)
	case String:
		return v.AppendQuotedText(dst)
	case Array:
		dst = append(dst, '[')
		for i, it := range v.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = it.AppendCompact(dst)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, m := range v.Members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendQuoted(dst, m.Key)
			dst = append(dst, ':')
			dst = m.Value.AppendCompact(dst)
		}
		return append(dst, '}')
	}
	return dst
}

// Compact returns v as compact JSON text.
func (v *Value) Compact() string { return string(v.AppendCompact(nil)) }

const hexDigits = "0123456789abcdef"

// AppendQuoted appends s as a JSON string literal. It escapes only what JSON
// requires, using the short forms \b \f \n \r \t and lower-case \u00xx for the
// other control characters, and leaves all other text literal — the escaping
// both RFC 8785 and Python's json.dumps(ensure_ascii=False) produce.
func AppendQuoted(dst []byte, s string) []byte {
	i := plainPrefix(s)
	dst = append(dst, '"')
	dst = append(dst, s[:i]...)
	if i == len(s) {
		// The common case, nothing to escape: one copy.
		return append(dst, '"')
	}
	return appendEscaped(dst, s, i)
}

// appendEscaped appends s[i:] escaped as AppendQuoted escapes it, and the
// closing quote; s[:i] must already be in dst.
func appendEscaped[T string | []byte](dst []byte, s T, i int) []byte {
	start := i
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendQuotedText appends v's Text as AppendQuoted does. The text of a
// string decoded from a literal without escapes is copied without looking
// for anything to escape, as there is nothing: a long description is then
// one copy.
func (v *Value) AppendQuotedText(dst []byte) []byte {
	if !v.plain {
		return AppendQuoted(dst, v.Text)
	}
	dst = append(dst, '"')
	dst = append(dst, v.Text...)
	return append(dst, '"')
}

// plainPrefix returns the length of the longest prefix of s that
// AppendQuoted copies as it is: the index of the first quote, backslash or
// control character, or len(s).
func plainPrefix(s string) int {
	if len(s) < 8 {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
				return i
			}
		}
		return len(s)
	}
	i := 0
	// Sixteen bytes, then eight, at a time while none needs escaping.
	for ; i+16 <= len(s); i += 16 {
		if specialMask(load64(s, i))|specialMask(load64(s, i+8)) != 0 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if hasSpecial(load64(s, i)) {
			break
		}
	}
	// The last eight bytes, overlapping what was checked, stand for the
	// last few: most strings end without an escape.
	if i < len(s) && len(s)-i < 8 && !hasSpecial(load64(s, len(s)-8)) {
		return len(s)
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// load64 reads the eight bytes of s at i as a little-endian word.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Path is a JSON path used in error messages, such as $.tools[3].name.
type Path []PathElem

// PathElem is one step of a Path: an object key, or an array index when
// IsIndex is set.
type PathElem struct {
	Key     string
	Index   int
	IsIndex bool
}

// Key returns p extended by an object key. The result never aliases p.
func (p Path) Key(k string) Path {
	q := make(Path, len(p), len(p)+1)
	copy(q, p)
	return append(q, PathElem{Key: k})
}

// Index returns p extended by an array index. The result never aliases p.
func (p Path) Index(i int) Path {
	q := make(Path, len(p), len(p)+1)
	copy(q, p)
	return append(q, PathElem{Index: i, IsIndex: true})
}

// String renders p as $.a.b[2]["odd key"].
func (p Path) String() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, e := range p {
		switch {
		case e.IsIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.Index))
			b.WriteByte(']')
		case isIdent(e.Key):
			b.WriteByte('.')
			b.WriteString(e.Key)
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(e.Key))
			b.WriteByte(']')
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c == '$' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// CompactLen returns len(v.AppendCompact(nil)) without building the text.
func (v *Value) CompactLen() int {
	switch v.Kind {
	case Null:
		return 4
	case Bool:
		if v.Bool {
			return 4
		}
		return 5
	case Int, Float:
		return len(v.Text)
	case String:
		return quotedLen(v.Text)
	case Array:
		n := 2 + max(len(v.Items)-1, 0)
		for _, it := range v.Items {
			n += it.CompactLen()
		}
		return n
	case Object:
		n := 2 + max(len(v.Members)-1, 0)
		for _, m := range v.Members {
			n += quotedLen(m.Key) + 1 + m.Value.CompactLen()
		}
		return n
	}
	return 0
}

// quotedLen is len(AppendQuoted(nil, s)).
func quotedLen(s string) int {
	n := 2 + len(s)
	for i := plainPrefix(s); i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

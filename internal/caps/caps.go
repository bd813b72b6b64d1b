// Package caps derives a tool's coarse capability flags (SPEC §7.4) from its
// name and the top-level property names of its inputSchema, exactly as the
// reference implementation does: a fixed keyword table matched against
// tokenized identifiers, never against descriptions. The flags are hashed
// into every tool entry, so one differing token changes entry_digest and
// overall_digest; the derivation is therefore reproduced rule for rule,
// including Python's Unicode semantics in the tokenizer.
package caps

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/jsonv"
)

// The capability flags, as written in a lock's "capabilities" array.
const (
	FSRead      = "fs-read"
	FSWrite     = "fs-write"
	HTTPRequest = "http-request"
	ShellExec   = "shell-exec"
	SQLQuery    = "sql-query"
)

// Flags lists every flag in the order Derive returns them (code-point order).
var Flags = []string{FSRead, FSWrite, HTTPRequest, ShellExec, SQLQuery}

type tokenSet map[string]bool

func setOf(words ...string) tokenSet {
	s := make(tokenSet, len(words))
	for _, w := range words {
		s[w] = true
	}
	return s
}

// nameTokens are the tool-name segments that imply each flag.
var nameTokens = map[string]tokenSet{
	ShellExec:   setOf("shell", "exec", "spawn", "system", "subprocess", "sudo", "bash", "sh", "cmd", "powershell"),
	FSWrite:     setOf("write", "save", "create", "delete", "rm", "unlink", "mkdir", "chmod", "mv", "rename"),
	FSRead:      setOf("read", "cat", "open", "load", "get", "list"),
	HTTPRequest: setOf("fetch", "http", "request", "curl", "download", "webhook"),
	SQLQuery:    setOf("sql", "query", "execute", "db"),
}

// propTokens are the property-name segments that imply each flag. For
// fs-write and fs-read they are the path-like properties; fs-write needs a
// second signal (a write-ish name or a content property) on top.
var propTokens = map[string]tokenSet{
	ShellExec:   setOf("command", "cmd", "script", "shell"),
	FSWrite:     setOf("path", "file", "filename", "dest", "target"),
	FSRead:      setOf("path", "file", "filename", "src", "source"),
	HTTPRequest: setOf("url", "uri", "endpoint", "host", "hostname"),
	SQLQuery:    setOf("query", "sql", "statement"),
}

// contentTokens are the property segments that, next to a path-like
// property, make a tool fs-write even without a write-ish name.
var contentTokens = setOf("content", "data", "body", "text", "bytes", "payload")

// PropertyNames returns the keys of inputSchema.properties in document order,
// or nil unless both the schema and its "properties" are JSON objects. Only
// these top-level keys feed the derivation: nested properties, $ref targets,
// types and descriptions never do.
func PropertyNames(inputSchema *jsonv.Value) []string {
	props := inputSchema.Get("properties")
	if props == nil || props.Kind != jsonv.Object {
		return nil
	}
	names := make([]string, len(props.Members))
	for i, m := range props.Members {
		names[i] = m.Key
	}
	return names
}

// The tables a segment can belong to, as bits: flag i's (in Flags order)
// name table is nameBit(i), its property table propBit(i), and
// contentTokens is contentBit.
const contentBit uint16 = 1 << 10

func nameBit(i int) uint16 { return 1 << i }
func propBit(i int) uint16 { return 1 << (5 + i) }

// flagIndex is the index of flag in Flags, or -1.
func flagIndex(flag string) int { return slices.Index(Flags, flag) }

// tokenBits maps every segment in any table to the tables it is in, so
// that a segment is looked up once rather than once a table.
var tokenBits = func() map[string]uint16 {
	m := map[string]uint16{}
	for i, f := range Flags {
		for w := range nameTokens[f] {
			m[w] |= nameBit(i)
		}
		for w := range propTokens[f] {
			m[w] |= propBit(i)
		}
	}
	for w := range contentTokens {
		m[w] |= contentBit
	}
	return m
}()

// tokenFilter has, for each first byte of a segment in tokenBits, the
// filterBit of each such segment: most segments of real identifiers are in
// no table, and the filter turns them away without hashing them.
var tokenFilter = func() (f [256]uint64) {
	for w := range tokenBits {
		f[w[0]] |= filterBit(len(w), w[len(w)-1])
	}
	return f
}()

func filterBit(n int, last byte) uint64 { return 1 << ((uint(n) + uint(last)) & 63) }

// lookupBits is tokenBits[seg].
func lookupBits(seg string) uint16 {
	if seg == "" || tokenFilter[seg[0]]&filterBit(len(seg), seg[len(seg)-1]) == 0 {
		return 0
	}
	return tokenBits[seg]
}

// lookupBitsBytes is lookupBits for a segment held in bytes.
func lookupBitsBytes(seg []byte) uint16 {
	if len(seg) == 0 || tokenFilter[seg[0]]&filterBit(len(seg), seg[len(seg)-1]) == 0 {
		return 0
	}
	return tokenBits[string(seg)]
}

// analysis holds what the derivation reads of one tool: which tables its
// name's segments and its property keys' segments fall in. The name and
// the keys are tokenized again only for the evidence of a flag that fired.
type analysis struct {
	name     string
	nameBits uint16
	props    []jsonv.Member // inputSchema.properties, not to be changed
	propBits uint16         // the tables of every key's segments together
}

func analyse(name string, inputSchema *jsonv.Value) analysis {
	a := analysis{name: name}
	var buf [64]byte
	a.nameBits = segmentBits(name, &buf)
	if props := inputSchema.Get("properties"); props != nil && props.Kind == jsonv.Object {
		a.props = props.Members
	}
	for _, m := range a.props {
		a.propBits |= segmentBits(m.Key, &buf)
	}
	return a
}

// segmentBits returns the tables any of Tokenize(s) falls in. An ASCII s
// is split in place and each piece lower-cased into buf when it fits, so
// that looking a segment up allocates nothing.
func segmentBits(s string, buf *[64]byte) uint16 {
	var bits uint16
	if s == "" {
		return 0
	}
	ascii := func(piece string) {
		if len(piece) > len(buf) {
			bits |= lookupBits(strings.ToLower(piece))
			return
		}
		b := buf[:len(piece)]
		for i := 0; i < len(piece); i++ {
			c := piece[i]
			if isUpper(rune(c)) {
				c += 'a' - 'A'
			}
			b[i] = c
		}
		bits |= lookupBitsBytes(b)
	}
	switch {
	case isASCII(s):
		splitRunes(s, ascii)
	case utf8.ValidString(s):
		// Most pieces of a name in another script are ASCII or not
		// letters at all; only those with other characters need
		// Python's lower-casing, which may make ASCII of them.
		splitRunes(s, func(piece string) {
			if isASCII(piece) {
				ascii(piece)
			} else {
				bits |= lookupBits(Lower(piece))
			}
		})
	default:
		for _, seg := range tokenizeRuneSlice(s) {
			bits |= lookupBits(seg)
		}
	}
	return bits
}

func (a analysis) has(flag string) bool {
	i := flagIndex(flag)
	if i < 0 {
		return false
	}
	name, prop := a.nameBits&nameBit(i) != 0, a.propBits&propBit(i) != 0
	switch flag {
	case FSWrite:
		return prop && (name || a.propBits&contentBit != 0)
	case FSRead:
		return name && prop
	}
	return name || prop
}

// Derive returns the capability flags of a tool, sorted and de-duplicated
// (never nil). A nil or non-object inputSchema contributes no properties, so
// only name-driven flags can fire for it.
func Derive(name string, inputSchema *jsonv.Value) []string {
	return analyse(name, inputSchema).flags()
}

func (a analysis) flags() []string {
	out := make([]string, 0, 2)
	for _, f := range Flags {
		if a.has(f) {
			out = append(out, f)
		}
	}
	return out
}

// Evidence returns the short, secret-free reason shown in a WRD-CAP-* finding
// for flag: "name token '<t>'" with the smallest matching name segment, else
// "property '<key>'" for the first property key (in document order) with a
// segment in the flag's property table, else "derived capability '<flag>'".
//
// For fs-write only the path-like table is consulted, never the content
// table, so a flag derived from path plus content names the path property.
func Evidence(name string, inputSchema *jsonv.Value, flag string) string {
	return analyse(name, inputSchema).evidence(flag)
}

// Analysis is one tool's tokenized name and property keys, from which its
// flags and their evidence are read without tokenizing again.
type Analysis struct{ a analysis }

// Analyze tokenizes a tool's name and input-schema property keys once.
func Analyze(name string, inputSchema *jsonv.Value) *Analysis {
	return &Analysis{a: analyse(name, inputSchema)}
}

// Flags is Derive's result.
func (x *Analysis) Flags() []string { return x.a.flags() }

// Evidence is Evidence's result for flag.
func (x *Analysis) Evidence(flag string) string { return x.a.evidence(flag) }

func (a analysis) evidence(flag string) string {
	i := flagIndex(flag)
	if i < 0 {
		return "derived capability '" + flag + "'"
	}
	if a.nameBits&nameBit(i) != 0 {
		var least string
		for _, s := range Tokenize(a.name) {
			if lookupBits(s)&nameBit(i) != 0 && (least == "" || s < least) {
				least = s
			}
		}
		return "name token '" + least + "'"
	}
	if a.propBits&propBit(i) != 0 {
		var buf [64]byte
		for _, m := range a.props {
			if segmentBits(m.Key, &buf)&propBit(i) != 0 {
				return "property '" + m.Key + "'"
			}
		}
	}
	return "derived capability '" + flag + "'"
}

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

// analysis holds one tool's tokenized identifiers.
type analysis struct {
	name  []string   // segments of the tool name
	props [][]string // segments of each property key, document order
	keys  []string   // the property keys, document order
}

func analyse(name string, inputSchema *jsonv.Value) analysis {
	a := analysis{name: Tokenize(name), keys: PropertyNames(inputSchema)}
	a.props = make([][]string, len(a.keys))
	for i, k := range a.keys {
		a.props[i] = Tokenize(k)
	}
	return a
}

func anyIn(segs []string, set tokenSet) bool {
	for _, s := range segs {
		if set[s] {
			return true
		}
	}
	return false
}

func (a analysis) nameHas(set tokenSet) bool { return anyIn(a.name, set) }

func (a analysis) propHas(set tokenSet) bool {
	for _, p := range a.props {
		if anyIn(p, set) {
			return true
		}
	}
	return false
}

func (a analysis) has(flag string) bool {
	switch flag {
	case FSWrite:
		path := a.propHas(propTokens[FSWrite])
		return path && (a.nameHas(nameTokens[FSWrite]) || a.propHas(contentTokens))
	case FSRead:
		return a.nameHas(nameTokens[FSRead]) && a.propHas(propTokens[FSRead])
	case ShellExec, HTTPRequest, SQLQuery:
		return a.nameHas(nameTokens[flag]) || a.propHas(propTokens[flag])
	}
	return false
}

// Derive returns the capability flags of a tool, sorted and de-duplicated
// (never nil). A nil or non-object inputSchema contributes no properties, so
// only name-driven flags can fire for it.
func Derive(name string, inputSchema *jsonv.Value) []string {
	return analyse(name, inputSchema).flags()
}

func (a analysis) flags() []string {
	out := []string{}
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
	var matched []string
	for _, s := range a.name {
		if nameTokens[flag][s] {
			matched = append(matched, s)
		}
	}
	if len(matched) > 0 {
		return "name token '" + slices.Min(matched) + "'"
	}
	for i, segs := range a.props {
		if anyIn(segs, propTokens[flag]) {
			return "property '" + a.keys[i] + "'"
		}
	}
	return "derived capability '" + flag + "'"
}

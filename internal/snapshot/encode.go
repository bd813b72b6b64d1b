package snapshot

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// indent is one level of a snapshot's indentation.
const indent = "  "

// ToolText is one tool item of a snapshot as AppendTool renders it.
type ToolText struct {
	Name string
	Text []byte
}

// Marshal returns the canonical snapshot text of s (see the package
// comment). s is not modified: its lists are sorted in copies.
func Marshal(s *surface.Surface) []byte {
	tools := make([]ToolText, len(s.Tools))
	for i, t := range s.Tools {
		tools[i] = ToolText{Name: t.Name, Text: AppendTool(nil, t)}
	}
	return Assemble(s.Server, s.ProtocolVersion, tools, s.Resources, s.Prompts)
}

// Assemble is Marshal for a surface whose tools were rendered one at a
// time with AppendTool (a pin that streams its lock renders each where it
// is built): tools is sorted in place by name.
func Assemble(srv surface.Server, protocol string, tools []ToolText, resources []surface.Resource, prompts []surface.Prompt) []byte {
	slices.SortStableFunc(tools, func(a, b ToolText) int { return strings.Compare(a.Name, b.Name) })
	size := 256
	for _, t := range tools {
		size += len(t.Text) + 2
	}
	e := &encoder{b: make([]byte, 0, size)}
	e.b = append(e.b, '{')
	first := true
	field := func(key string) {
		if !first {
			e.b = append(e.b, ',')
		}
		first = false
		e.newline(1)
		e.b = jsonv.AppendQuoted(e.b, key)
		e.b = append(e.b, ':', ' ')
	}
	if srv.IsHTTP() {
		field("url")
		e.str(srv.URL)
	} else {
		field("command")
		e.str(srv.Command)
		field("args")
		e.list(len(srv.Args), 1, func(i int) { e.str(srv.Args[i]) })
	}
	if protocol != "" {
		field("protocolVersion")
		e.str(protocol)
	}
	field("tools")
	e.list(len(tools), 1, func(i int) { e.b = append(e.b, tools[i].Text...) })
	res := slices.Clone(resources)
	slices.SortStableFunc(res, func(a, b surface.Resource) int { return strings.Compare(a.URI, b.URI) })
	field("resources")
	e.list(len(res), 1, func(i int) {
		r := res[i]
		e.item(2, jsonv.M("uri", jsonv.NewString(r.URI)), jsonv.M("name", r.Name),
			jsonv.M("description", r.Description), jsonv.M("mimeType", r.MimeType))
	})
	ps := slices.Clone(prompts)
	slices.SortStableFunc(ps, func(a, b surface.Prompt) int { return strings.Compare(a.Name, b.Name) })
	field("prompts")
	e.list(len(ps), 1, func(i int) {
		p := ps[i]
		e.item(2, jsonv.M("name", jsonv.NewString(p.Name)), jsonv.M("description", p.Description),
			jsonv.M("arguments", p.Arguments))
	})
	e.newline(0)
	e.b = append(e.b, '}', '\n')
	return e.b
}

// AppendTool appends the snapshot text of one tool item, as it stands in
// the tools list (indented two levels, without a trailing separator).
func AppendTool(dst []byte, t surface.Tool) []byte {
	e := &encoder{b: dst}
	e.item(2, jsonv.M("name", jsonv.NewString(t.Name)), jsonv.M("description", t.Description),
		jsonv.M("inputSchema", t.InputSchema), jsonv.M("annotations", t.Annotations),
		jsonv.M("outputSchema", t.OutputSchema))
	return e.b
}

// encoder writes indented JSON.
type encoder struct{ b []byte }

func (e *encoder) newline(level int) {
	e.b = append(e.b, '\n')
	for range level {
		e.b = append(e.b, indent...)
	}
}

// list writes an array of n items at level, each written by item.
func (e *encoder) list(n, level int, item func(i int)) {
	if n == 0 {
		e.b = append(e.b, '[', ']')
		return
	}
	e.b = append(e.b, '[')
	for i := range n {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.newline(level + 1)
		item(i)
	}
	e.newline(level)
	e.b = append(e.b, ']')
}

// item writes an entry object at level with the members given, in their
// order, leaving out those whose value is nil (absent: a JSON null is kept
// as null, since it hashes differently from nothing for some fields).
func (e *encoder) item(level int, members ...jsonv.Member) {
	e.b = append(e.b, '{')
	first := true
	for _, m := range members {
		if m.Value == nil {
			continue
		}
		if !first {
			e.b = append(e.b, ',')
		}
		first = false
		e.newline(level + 1)
		e.b = jsonv.AppendQuoted(e.b, m.Key)
		e.b = append(e.b, ':', ' ')
		e.value(m.Value, level+1)
	}
	e.newline(level)
	e.b = append(e.b, '}')
}

// value writes v at level, containers one member or item per line.
func (e *encoder) value(v *jsonv.Value, level int) {
	switch v.Kind {
	case jsonv.Null:
		e.b = append(e.b, "null"...)
	case jsonv.Bool:
		if v.Bool {
			e.b = append(e.b, "true"...)
		} else {
			e.b = append(e.b, "false"...)
		}
	case jsonv.Int, jsonv.Float:
		// The literal as the server wrote it: "1.0" and "1e2" hash and
		// skeletonize as written.
		e.b = append(e.b, v.Text...)
	case jsonv.String:
		e.str(v.Text)
	case jsonv.Array:
		e.list(len(v.Items), level, func(i int) { e.value(v.Items[i], level+1) })
	case jsonv.Object:
		if len(v.Members) == 0 {
			e.b = append(e.b, '{', '}')
			return
		}
		e.b = append(e.b, '{')
		for i, m := range v.Members {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.newline(level + 1)
			e.str(m.Key)
			e.b = append(e.b, ':', ' ')
			e.value(m.Value, level+1)
		}
		e.newline(level)
		e.b = append(e.b, '}')
	}
}

// str writes s as a JSON string. Beyond what JSON requires, characters a
// reader cannot see in a diff (bidirectional controls, zero-width and
// other format characters, line and paragraph separators, DEL) are
// written as \u escapes: the string is the same once decoded, so every
// hash is, but a reviewer of the snapshot's diff sees that they are there.
func (e *encoder) str(s string) {
	if !hasHigh(s) {
		e.b = jsonv.AppendQuoted(e.b, s)
		return
	}
	e.b = append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x7f {
			if c < 0x20 || c == '"' || c == '\\' {
				e.b = append(e.b, s[start:i]...)
				// JSON's own escape for it, without AppendQuoted's quotes.
				q := jsonv.AppendQuoted(nil, s[i:i+1])
				e.b = append(e.b, q[1:len(q)-1]...)
				start = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x7f || invisible(r) {
			e.b = append(e.b, s[start:i]...)
			e.b = appendEscape(e.b, r)
			start = i + size
		}
		i += size
	}
	e.b = append(e.b, s[start:]...)
	e.b = append(e.b, '"')
}

// hasHigh reports whether s holds DEL or any non-ASCII byte.
func hasHigh(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x7f {
			return true
		}
	}
	return false
}

// invisible reports whether r is a character a diff does not show.
func invisible(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0, r == 0xad, r == 0x061c, r == 0x180e:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x206f:
		return true
	case r == 0xfeff, r >= 0xfff9 && r <= 0xfffb, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

const hexDigits = "0123456789abcdef"

// appendEscape writes r as \u escapes (a surrogate pair above U+FFFF).
func appendEscape(dst []byte, r rune) []byte {
	unit := func(u rune) {
		dst = append(dst, '\\', 'u', hexDigits[u>>12&0xf], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf])
	}
	if r > 0xffff {
		r -= 0x10000
		unit(0xd800 + r>>10)
		unit(0xdc00 + r&0x3ff)
		return dst
	}
	unit(r)
	return dst
}

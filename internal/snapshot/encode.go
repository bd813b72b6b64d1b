package snapshot

import (
	"bytes"
	"io"
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

// Parts is a snapshot before it is written: the launch identity and
// protocol version, each tool's rendered text, and the resources and
// prompts. A pin that streams its lock renders each tool where it is
// built (AppendTool) and gathers the parts; Sort puts them in the
// canonical order, Screen screens them, WriteTo writes the text.
type Parts struct {
	Server    surface.Server
	Protocol  string
	Tools     []ToolText
	Resources []surface.Resource
	Prompts   []surface.Prompt
}

// NewParts renders s as parts, sorted. s is not modified.
func NewParts(s *surface.Surface) *Parts {
	p := &Parts{Server: s.Server, Protocol: s.ProtocolVersion, Tools: make([]ToolText, len(s.Tools)),
		Resources: slices.Clone(s.Resources), Prompts: slices.Clone(s.Prompts)}
	var buf []byte
	for i, t := range s.Tools {
		buf = AppendTool(buf[:0], t)
		p.Tools[i] = ToolText{Name: t.Name, Text: bytes.Clone(buf)}
	}
	p.Sort()
	return p
}

// Sort puts the entries in the canonical order: tools by name, resources
// by URI, prompts by name, in code-point order.
func (p *Parts) Sort() {
	slices.SortStableFunc(p.Tools, func(a, b ToolText) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(p.Resources, func(a, b surface.Resource) int { return strings.Compare(a.URI, b.URI) })
	slices.SortStableFunc(p.Prompts, func(a, b surface.Prompt) int { return strings.Compare(a.Name, b.Name) })
}

// Marshal returns the canonical snapshot text of s (see the package
// comment). s is not modified.
func Marshal(s *surface.Surface) []byte { return NewParts(s).Bytes() }

// Bytes returns the snapshot text of p, which must be sorted.
func (p *Parts) Bytes() []byte {
	var b bytes.Buffer
	b.Grow(p.size())
	p.WriteTo(&b)
	return b.Bytes()
}

// size is about the length of p's text.
func (p *Parts) size() int {
	n := 256
	for _, t := range p.Tools {
		n += len(t.Text) + 2
	}
	return n
}

// WriteTo writes the snapshot text of p, which must be sorted, to w.
func (p *Parts) WriteTo(w io.Writer) (int64, error) {
	var written int64
	e := &encoder{}
	flush := func() error {
		n, err := w.Write(e.b)
		written += int64(n)
		e.b = e.b[:0]
		return err
	}
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
	if p.Server.IsHTTP() {
		field("url")
		e.str(p.Server.URL)
	} else {
		field("command")
		e.str(p.Server.Command)
		field("args")
		e.list(len(p.Server.Args), 1, func(i int) { e.str(p.Server.Args[i]) })
	}
	if p.Protocol != "" {
		field("protocolVersion")
		e.str(p.Protocol)
	}
	field("tools")
	var err error
	// Tool texts are written as they are, not copied into one buffer.
	e.list(len(p.Tools), 1, func(i int) {
		if err == nil {
			err = flush()
		}
		if err == nil {
			var n int
			n, err = w.Write(p.Tools[i].Text)
			written += int64(n)
		}
	})
	field("resources")
	e.list(len(p.Resources), 1, func(i int) {
		r := p.Resources[i]
		e.item(2, jsonv.M("uri", jsonv.NewString(r.URI)), jsonv.M("name", r.Name),
			jsonv.M("description", r.Description), jsonv.M("mimeType", r.MimeType))
	})
	field("prompts")
	e.list(len(p.Prompts), 1, func(i int) {
		q := p.Prompts[i]
		e.item(2, jsonv.M("name", jsonv.NewString(q.Name)), jsonv.M("description", q.Description),
			jsonv.M("arguments", q.Arguments))
	})
	e.newline(0)
	e.b = append(e.b, '}', '\n')
	if err == nil {
		err = flush()
	}
	return written, err
}

// resourceValue and promptValue are the items as the snapshot holds them.
func resourceValue(r surface.Resource) *jsonv.Value {
	return object(jsonv.M("uri", jsonv.NewString(r.URI)), jsonv.M("name", r.Name),
		jsonv.M("description", r.Description), jsonv.M("mimeType", r.MimeType))
}

func promptValue(p surface.Prompt) *jsonv.Value {
	return object(jsonv.M("name", jsonv.NewString(p.Name)), jsonv.M("description", p.Description),
		jsonv.M("arguments", p.Arguments))
}

// object is an object of the members whose value is not nil.
func object(members ...jsonv.Member) *jsonv.Value {
	o := jsonv.NewObject()
	for _, m := range members {
		if m.Value != nil {
			o.Members = append(o.Members, m)
		}
	}
	return o
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

// newlines is a newline and the indentation of the first levels.
var newlines = "\n" + strings.Repeat(indent, 64)

func (e *encoder) newline(level int) {
	if n := 1 + len(indent)*level; n <= len(newlines) {
		e.b = append(e.b, newlines[:n]...)
		return
	}
	e.b = append(e.b, newlines...)
	for range level - 64 {
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

// hasHigh reports whether s holds DEL or any non-ASCII byte, eight bytes
// at a time: a byte of 0x80 or more has its top bit set, and so has DEL
// plus one (no byte below 0x80 carries into the next).
func hasHigh(s string) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if (w|(w+ones))&tops != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
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

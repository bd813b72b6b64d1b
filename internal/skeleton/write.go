package skeleton

import (
	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// AppendCompact appends s.Value()'s compact text (jsonv's AppendCompact
// form), writing it straight from the records rather than building the
// tree; a nil skeleton is null.
func (s *Skeleton) AppendCompact(dst []byte) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"props":{`...)
	paths, recs := s.orderedRecords()
	for i, p := range paths {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendQuoted(dst, p)
		dst = append(dst, ':')
		if k := s.tm.kind(&recs[i]); k >= 0 {
			dst = append(dst, s.tm.compactText(k, &recs[i])...)
		} else {
			dst = recs[i].appendCompact(dst)
		}
	}
	return append(dst, "}}"...)
}

// AppendIndent appends s.Value() as json.dumps(indent=indent) lays it out
// as a member value at level (pyfmt.AppendIndent of the tree, which is
// pyfmt.AppendIndentRaw of AppendCompact's text), writing it straight
// from the records: the lock writer renders skeletons this way without a
// compact text in between. A nil skeleton is null.
func (s *Skeleton) AppendIndent(dst []byte, indent, level int) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	paths, recs := s.orderedRecords()
	dst = append(pyfmt.Newline(append(dst, '{'), indent, level+1), `"props": `...)
	if len(paths) == 0 {
		dst = append(dst, "{}"...)
	} else {
		dst = append(dst, '{')
		for i, p := range paths {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = pyfmt.Newline(dst, indent, level+2)
			dst = jsonv.AppendQuoted(dst, p)
			dst = append(dst, ": "...)
			if k := s.tm.kind(&recs[i]); k >= 0 {
				dst = append(dst, s.tm.indentText(k, &recs[i], indent, level+2)...)
			} else {
				dst = recs[i].appendIndent(dst, indent, level+2)
			}
		}
		dst = append(pyfmt.Newline(dst, indent, level+1), '}')
	}
	return append(pyfmt.Newline(dst, indent, level), '}')
}

// appendIndent appends the record as AppendIndent lays it out at level.
func (r Record) appendIndent(dst []byte, indent, level int) []byte {
	in := level + 1
	dst = append(pyfmt.Newline(append(dst, '{'), indent, in), `"type": `...)
	switch {
	case r.Type == nil:
		dst = append(dst, "null"...)
	case len(r.Type) == 0:
		dst = append(dst, "[]"...)
	default:
		dst = append(dst, '[')
		for i, t := range r.Type {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonv.AppendQuoted(pyfmt.Newline(dst, indent, in+1), t)
		}
		dst = append(pyfmt.Newline(dst, indent, in), ']')
	}
	if r.Required {
		dst = append(dst, `,`...)
		dst = append(pyfmt.Newline(dst, indent, in), `"required": true,`...)
	} else {
		dst = append(dst, `,`...)
		dst = append(pyfmt.Newline(dst, indent, in), `"required": false,`...)
	}
	dst = append(pyfmt.Newline(dst, indent, in), `"enum": `...)
	if r.Enum == nil {
		dst = append(dst, "null"...)
	} else {
		dst = pyfmt.AppendIndent(dst, r.Enum, indent, in)
	}
	dst = append(pyfmt.Newline(append(dst, ','), indent, in), `"constraints": `...)
	if r.Constraints == nil {
		dst = append(dst, "{}"...)
	} else {
		dst = pyfmt.AppendIndent(dst, r.Constraints, indent, in)
	}
	return append(pyfmt.Newline(dst, indent, level), '}')
}

// appendCompact appends the record as Value renders it, compact.
func (r Record) appendCompact(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = appendTypes(dst, r.Type)
	if r.Required {
		dst = append(dst, `,"required":true,"enum":`...)
	} else {
		dst = append(dst, `,"required":false,"enum":`...)
	}
	if r.Enum == nil {
		dst = append(dst, "null"...)
	} else {
		dst = r.Enum.AppendCompact(dst)
	}
	dst = append(dst, `,"constraints":`...)
	if r.Constraints == nil {
		dst = append(dst, "{}"...)
	} else {
		dst = r.Constraints.AppendCompact(dst)
	}
	return append(dst, '}')
}

// appendTypes appends a type list, or null for nil.
func appendTypes(dst []byte, types []string) []byte {
	if types == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, t := range types {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendQuoted(dst, t)
	}
	return append(dst, ']')
}

// WriteCanonical writes the RFC 8785 text of s.Value() to h, in a digest
// the caller has begun, as an element at depth of the hashed document,
// writing it straight from the records: a record's keys in canonical order
// are constraints, enum, required, type, and the paths' code-point order is
// their UTF-16 order unless a path holds a character from U+E000 up, when
// the tree is built and canonicalized the general way. A nil skeleton is
// null.
func (s *Skeleton) WriteCanonical(h *canon.Hasher, depth int) error {
	if s == nil {
		h.WriteRaw("null")
		return nil
	}
	paths, recs := s.orderedRecords()
	// The props object, its records and their type lists sit up to four
	// levels below the skeleton.
	if depth+4 > canon.MaxDepth || !codePointIsUTF16Order(paths) {
		return h.WriteValue(s.Value(), depth)
	}
	h.WriteRaw(`{"props":{`)
	for i, p := range paths {
		if i > 0 {
			h.WriteRaw(",")
		}
		h.WriteString(p)
		h.WriteRaw(":")
		r := &recs[i]
		if k := s.tm.kind(r); k >= 0 {
			if text := s.tm.canonicalText(k, r); text != nil {
				h.WriteBytes(text)
				continue
			}
		}
		h.WriteRaw(`{"constraints":`)
		if r.Constraints == nil {
			h.WriteRaw("{}")
		} else if err := h.WriteValue(r.Constraints, depth+3); err != nil {
			return err
		}
		h.WriteRaw(`,"enum":`)
		if r.Enum == nil {
			h.WriteRaw("null")
		} else if err := h.WriteValue(r.Enum, depth+3); err != nil {
			return err
		}
		if r.Required {
			h.WriteRaw(`,"required":true,"type":`)
		} else {
			h.WriteRaw(`,"required":false,"type":`)
		}
		if r.Type == nil {
			h.WriteRaw("null")
		} else {
			h.WriteRaw("[")
			for j, t := range r.Type {
				if j > 0 {
					h.WriteRaw(",")
				}
				h.WriteString(t)
			}
			h.WriteRaw("]")
		}
		h.WriteRaw("}")
	}
	h.WriteRaw("}}")
	return nil
}

// orderedPaths returns the record paths in code-point order (Value's).
func (s *Skeleton) orderedPaths() []string {
	if pathsMatch(s.Paths, s.Records) {
		return s.Paths
	}
	return sortedKeys(s.Records)
}

// orderedRecords returns the record paths in code-point order and their
// records in the same order.
func (s *Skeleton) orderedRecords() ([]string, []Record) {
	if len(s.ordered) == len(s.Paths) && len(s.Paths) == len(s.Records) && s.ordered != nil {
		return s.Paths, s.ordered
	}
	paths := s.orderedPaths()
	recs := make([]Record, len(paths))
	for i, p := range paths {
		recs[i] = s.Records[p]
	}
	return paths, recs
}

// codePointIsUTF16Order reports whether sorted paths are also in UTF-16
// order: the orders differ only between a character above U+FFFF and one
// from U+E000 to U+FFFF, whose UTF-8 starts with a byte of 0xEE or more.
func codePointIsUTF16Order(paths []string) bool {
	for _, p := range paths {
		for i := 0; i < len(p); i++ {
			if p[i] >= 0xEE {
				return false
			}
		}
	}
	return true
}

// templates holds the written texts of the records that say nothing but
// their type and required flag: open constraints (the walker's shared
// {"additionalProperties": true}), no enum, and no type or one of the
// seven JSON Schema type names. Such a record's texts depend only on the
// type and the flag, so an Extractor renders each of its sixteen kinds
// once for all the skeletons it makes, and writes a copy after that. The
// key is the record's value, never a pointer into walk memory, so the
// texts stay right across walks.
type templates struct {
	// open is the walker's open constraints object; nil until a walk made
	// it.
	open *jsonv.Value
	// canonical and compact are the RFC 8785 and compact texts of each
	// kind; indent is the AppendIndent text at indentAt (indent, level).
	canonical [16][]byte
	compact   [16][]byte
	indent    [16][]byte
	indentAt  [16][2]int
}

// kind returns r's template index, or -1 when r is not a template record.
func (t *templates) kind(r *Record) int {
	if t == nil || t.open == nil || r.Constraints != t.open || r.Enum != nil {
		return -1
	}
	i := len(jsonTypeNames)
	if r.Type != nil {
		if len(r.Type) != 1 {
			return -1
		}
		if i = jsonTypeIndex(r.Type[0]); i < 0 {
			return -1
		}
	}
	if r.Required {
		return 2*i + 1
	}
	return 2 * i
}

// compactText is appendCompact's text of r, a record of kind k.
func (t *templates) compactText(k int, r *Record) []byte {
	if t.compact[k] == nil {
		t.compact[k] = r.appendCompact(nil)
	}
	return t.compact[k]
}

// indentText is appendIndent's text of r, a record of kind k, at indent
// and level; a writer keeps to one layout, so only the last is kept.
func (t *templates) indentText(k int, r *Record, indent, level int) []byte {
	if at := [2]int{indent, level}; t.indent[k] == nil || t.indentAt[k] != at {
		t.indent[k] = r.appendIndent(t.indent[k][:0], indent, level)
		t.indentAt[k] = at
	}
	return t.indent[k]
}

// canonicalText is the RFC 8785 text of r, a record of kind k, or nil if
// it could not be made (it always can: the record is shallow and holds
// no number).
func (t *templates) canonicalText(k int, r *Record) []byte {
	if t.canonical[k] == nil {
		b, err := canon.Canonical(r.Value())
		if err != nil {
			return nil
		}
		t.canonical[k] = b
	}
	return t.canonical[k]
}

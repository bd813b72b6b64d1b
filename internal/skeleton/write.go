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
		dst = recs[i].appendCompact(dst)
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
			dst = recs[i].appendIndent(dst, indent, level+2)
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

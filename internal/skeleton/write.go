package skeleton

import (
	"math/bits"
	"slices"

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
	paths, recs, slots := s.orderedRecords()
	for i, p := range paths {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendQuoted(dst, p)
		dst = append(dst, ':')
		if t := s.tm.textsFor(&recs[i], i, slots); t != nil {
			dst = append(dst, t.compactText(&recs[i])...)
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
	paths, recs, slots := s.orderedRecords()
	known := s.orderedKeys()
	plain := s.plainPaths()
	dst = append(pyfmt.Newline(append(dst, '{'), indent, level+1), `"props": `...)
	if len(paths) == 0 {
		dst = append(dst, "{}"...)
	} else {
		var lay *layout
		if s.tm != nil {
			lay = s.tm.layoutAt(indent, level+2)
		}
		dst = append(dst, '{')
		for i, p := range paths {
			r := &recs[i]
			switch {
			case lay != nil && plain:
				// The path needs no escapes: the text around it is
				// fixed.
				if i == 0 {
					dst = append(dst, lay.path[1:]...)
				} else {
					dst = append(dst, lay.path...)
				}
				dst = append(append(dst, p...), `": `...)
			case lay != nil:
				if i == 0 {
					dst = append(dst, lay.path[1:len(lay.path)-1]...)
				} else {
					dst = append(dst, lay.path[:len(lay.path)-1]...)
				}
				dst = append(jsonv.AppendQuoted(dst, p), ": "...)
			default:
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = pyfmt.Newline(dst, indent, level+2)
				dst = append(jsonv.AppendQuoted(dst, p), ": "...)
			}
			if t := s.tm.textsFor(r, i, slots); t != nil {
				dst = append(dst, t.indentText(r, indent, level+2)...)
			} else if lay != nil {
				dst = r.appendIndentLaid(dst, indent, level+2, s.tm, lay, keyBits(known, i))
			} else {
				dst = r.appendIndent(dst, indent, level+2)
			}
		}
		dst = append(pyfmt.Newline(dst, indent, level+1), '}')
	}
	return append(pyfmt.Newline(dst, indent, level), '}')
}

// appendIndent appends the record as AppendIndent lays it out at level,
// line by line (appendIndentLaid is the same text from a layout's runs).
func (r Record) appendIndent(dst []byte, indent, level int) []byte {
	in := level + 1
	dst = r.appendIndentHead(dst, indent, level)
	if r.Enum == nil {
		dst = append(dst, "null"...)
	} else {
		dst = pyfmt.AppendIndent(dst, r.Enum, indent, in)
	}
	dst = append(pyfmt.Newline(append(dst, ','), indent, in), `"constraints": `...)
	return r.appendIndentConstraints(dst, indent, level)
}

// layout holds the fixed runs of bytes of a record's indented text at one
// (indent, level), so that a record is written as a few copies of whole
// runs with its variable parts between them, rather than line by line.
// in stands for level+1 blanks times indent, the record's members'
// indentation, and in+1 for that of its constraints' members.
type layout struct {
	at [2]int
	// path is ",\n", the indentation of a record's path (level's) and
	// its opening quote: the text before each path but the first, which
	// drops the comma.
	path []byte
	// keys are ",\n<in+1>\"key\": " for each retained key: the text
	// before a constraint's value; the first drops the comma for "{".
	keys [len(retained)][]byte
	// openTrue and openFalse are "{\n<in+1>\"additionalProperties\": "
	// with true or false: a walked record's constraints' first member.
	openTrue, openFalse []byte
	// item is ",\n<in+1>", the text before an enum's item but the
	// first, which drops the comma for "[".
	item []byte
	// enumEnd closes an enum of items and starts the constraints:
	// "\n<in>],\n<in>\"constraints\": "; consKey is its part from the
	// comma on.
	enumEnd, consKey []byte
	// tail closes constraints with members and the record:
	// "\n<in>}\n<level>}"; close is its part from the second line break
	// on, and empty "{}" and close.
	tail, close, empty []byte
	// head is the head text of the record types that are not one of
	// the kinds' (templates.heads), for the type list headTypes,
	// required flag headReq and enum or not headEnum; headTypes is the
	// list's own copy.
	head      []byte
	headTypes []string
	headReq   bool
	headEnum  bool
}

// layoutAt returns t's layout for indent and level, making it if the last
// one was for another.
func (t *templates) layoutAt(indent, level int) *layout {
	l := &t.lay
	if at := [2]int{indent, level}; l.path == nil || l.at != at {
		l.make(indent, level)
	}
	return l
}

// make fills l for indent and level, reusing its buffers.
func (l *layout) make(indent, level int) {
	in := level + 1
	l.at = [2]int{indent, level}
	l.path = append(pyfmt.Newline(append(l.path[:0], ','), indent, level), '"')
	for k := range retained {
		l.keys[k] = append(pyfmt.Newline(append(l.keys[k][:0], ','), indent, in+1), retainedKeys[k]...)
	}
	l.openTrue = append(append(append(l.openTrue[:0], '{'), l.keys[0][1:]...), "true"...)
	l.openFalse = append(append(append(l.openFalse[:0], '{'), l.keys[0][1:]...), "false"...)
	l.item = pyfmt.Newline(append(l.item[:0], ','), indent, in+1)
	l.enumEnd = append(pyfmt.Newline(append(pyfmt.Newline(l.enumEnd[:0], indent, in), "],"...), indent, in), `"constraints": `...)
	l.consKey = l.enumEnd[1+indent*in+1:]
	l.tail = pyfmt.Newline(append(pyfmt.Newline(l.tail[:0], indent, in), '}'), indent, level)
	l.tail = append(l.tail, '}')
	l.close = l.tail[1+indent*in+1:]
	l.empty = append(append(l.empty[:0], "{}"...), l.close...)
	l.head, l.headTypes = l.head[:0], l.headTypes[:0]
}

// appendIndentLaid is appendIndent with lay's runs of bytes for the
// layout of indent and level and tm's heads; kb is the record's byte of
// Skeleton.keys, or 0.
func (r *Record) appendIndentLaid(dst []byte, indent, level int, tm *templates, lay *layout, kb uint8) []byte {
	in := level + 1
	var head []byte
	if k := r.typeKind(); k >= 0 {
		h := &tm.heads[k]
		if r.Enum == nil {
			h = &tm.headsNoEnum[k]
		}
		if at := [2]int{indent, level}; len(h.text) == 0 || h.at != at {
			h.text = r.appendIndentHead(h.text[:0], indent, level)
			if r.Enum == nil {
				h.text = append(append(h.text, "null"...), lay.consKey...)
			}
			h.at = at
		}
		head = h.text
	} else {
		if len(lay.head) == 0 || lay.headReq != r.Required || lay.headEnum != (r.Enum != nil) || !sameTypes(lay.headTypes, r.Type) {
			lay.head = r.appendIndentHead(lay.head[:0], indent, level)
			if r.Enum == nil {
				lay.head = append(append(lay.head, "null"...), lay.consKey...)
			}
			lay.headTypes = append(lay.headTypes[:0], r.Type...)
			lay.headReq, lay.headEnum = r.Required, r.Enum != nil
		}
		head = lay.head
	}
	dst = append(dst, head...)
	if e := r.Enum; e != nil {
		if e.Kind == jsonv.Array && len(e.Items) > 0 {
			// pyfmt.AppendIndent's layout of an array.
			dst = append(dst, '[')
			for i, it := range e.Items {
				if i == 0 {
					dst = append(dst, lay.item[1:]...)
				} else {
					dst = append(dst, lay.item...)
				}
				dst = appendIndentValue(dst, it, indent, in+1)
			}
			dst = append(dst, lay.enumEnd...)
		} else {
			dst = append(pyfmt.AppendIndent(dst, e, indent, in), lay.consKey...)
		}
	}
	c := r.Constraints
	if c == nil {
		return append(dst, lay.empty...)
	}
	keys, ok := constraintKeys(c, kb)
	if !ok || len(c.Members) == 0 {
		return append(pyfmt.AppendIndent(dst, c, indent, in), lay.close...)
	}
	for j, m := range c.Members {
		k := keys[j]
		v := m.Value
		if j == 0 {
			if k == 0 && v.Kind == jsonv.Bool {
				if v.Bool {
					dst = append(dst, lay.openTrue...)
				} else {
					dst = append(dst, lay.openFalse...)
				}
				continue
			}
			dst = append(append(dst, '{'), lay.keys[k][1:]...)
		} else {
			dst = append(dst, lay.keys[k]...)
		}
		dst = appendIndentValue(dst, v, indent, in+1)
	}
	return append(dst, lay.tail...)
}

// appendIndentValue is pyfmt.AppendIndent of v at indent and level, with
// the commonest scalars written here.
func appendIndentValue(dst []byte, v *jsonv.Value, indent, level int) []byte {
	switch v.Kind {
	case jsonv.String:
		return v.AppendQuotedText(dst)
	case jsonv.Int:
		if t := v.Text; t != "" && (t[0] > '0' || t == "0") {
			// No sign and no leading zero: the literal is the int's
			// text (pyfmt.IntText changes only "-0").
			return append(dst, t...)
		}
	case jsonv.Float:
		if plainRepr(v.Text) {
			return append(dst, v.Text...)
		}
	}
	return pyfmt.AppendIndent(dst, v, indent, level)
}

// plainRepr reports whether a float literal is its own Python repr:
// digits, a point and digits, without sign or exponent, the integer part
// without leading zero (nor 0), the fraction without trailing zero unless
// it is one 0, and 15 significant digits at most, so that the float's
// shortest round-trip digits are the literal's own and its magnitude, from
// 1 up to below 1e15, is where repr writes no exponent (see pyfmt's
// appendPlainFloat, which writes such a literal as it is).
func plainRepr(lit string) bool {
	dot := -1
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c == '.' && dot < 0 {
			dot = i
			continue
		}
		if c < '0' || c > '9' {
			return false
		}
	}
	if dot <= 0 || dot == len(lit)-1 || len(lit) > 16 || lit[0] == '0' {
		return false
	}
	return lit[len(lit)-1] != '0' || dot == len(lit)-2
}

// sameTypes reports whether two type lists are equal.
func sameTypes(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// appendIndentHead appends the record's indented text up to its enum's
// value.
func (r *Record) appendIndentHead(dst []byte, indent, level int) []byte {
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
	return append(pyfmt.Newline(dst, indent, in), `"enum": `...)
}

// appendIndentConstraints appends the record's indented text from its
// constraints' value on.
func (r *Record) appendIndentConstraints(dst []byte, indent, level int) []byte {
	in := level + 1
	if r.Constraints == nil {
		dst = append(dst, "{}"...)
	} else if keys, ok := retainedOrder(r.Constraints); ok && len(r.Constraints.Members) > 0 {
		// pyfmt.AppendIndent's layout, with the keys' quoted text from
		// the table.
		dst = append(dst, '{')
		for j, m := range r.Constraints.Members {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(pyfmt.Newline(dst, indent, in+1), retainedKeys[keys[j]]...)
			dst = pyfmt.AppendIndent(dst, m.Value, indent, in+1)
		}
		dst = append(pyfmt.Newline(dst, indent, in), '}')
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
// the records are written in the paths' UTF-16 order. Only a skeleton
// nested too deep for that is built as a tree and canonicalized the
// general way. A nil skeleton is null.
func (s *Skeleton) WriteCanonical(h *canon.Hasher, depth int) error {
	if s == nil {
		h.WriteRaw("null")
		return nil
	}
	// Slots' canonical texts are not kept: making one (canon.Canonical of
	// the record's tree) costs more than the few records that share it
	// save.
	paths, recs, _ := s.orderedRecords()
	known := s.orderedKeys()
	plain := s.plainPaths()
	// The props object, its records and their type lists sit up to four
	// levels below the skeleton.
	if depth+4 > canon.MaxDepth {
		return h.WriteValue(s.Value(), depth)
	}
	// Plain paths are ASCII, whose code-point order is UTF-16 order.
	var order []int32
	if !plain && !codePointIsUTF16Order(paths) {
		order = utf16Order(paths)
	}
	h.WriteRaw(`{"props":{`)
	for k := range paths {
		i := k
		if order != nil {
			i = int(order[k])
		}
		p := paths[i]
		// Fixed texts between the variable parts are written in one
		// piece each.
		switch {
		case plain:
			// The path needs no escapes.
			if k > 0 {
				h.WriteRaw(`,"`)
			} else {
				h.WriteRaw(`"`)
			}
			h.WriteRaw(p)
			h.WriteRaw(`"`)
		case k > 0:
			h.WriteRaw(",")
			fallthrough
		default:
			h.WriteString(p)
		}
		r := &recs[i]
		if t := s.tm.textsFor(r, i, nil); t != nil {
			if text := t.canonicalText(r); text != nil {
				h.WriteRaw(":")
				h.WriteBytes(text)
				continue
			}
		}
		if r.Constraints == nil || r.Constraints.Kind == jsonv.Object && len(r.Constraints.Members) == 0 {
			h.WriteRaw(`:{"constraints":{}`)
		} else if keys, ok := constraintKeys(r.Constraints, keyBits(known, i)); ok {
			// Retained keys in retained's order are in canonical order
			// and need no escapes: only the values are canonicalized.
			for j, m := range r.Constraints.Members {
				v := m.Value
				if j == 0 {
					if keys[0] == 0 && v.Kind == jsonv.Bool {
						// A walked record's first member, written
						// with the text before it in one piece.
						if v.Bool {
							h.WriteRaw(`:{"constraints":{"additionalProperties":true`)
						} else {
							h.WriteRaw(`:{"constraints":{"additionalProperties":false`)
						}
						continue
					}
					h.WriteRaw(`:{"constraints":{`)
					h.WriteRaw(canonicalKeys[keys[j]][1:])
				} else {
					h.WriteRaw(canonicalKeys[keys[j]])
				}
				if err := h.WriteValue(v, depth+4); err != nil {
					return err
				}
			}
			h.WriteRaw("}")
		} else {
			h.WriteRaw(`:{"constraints":`)
			if err := h.WriteValue(r.Constraints, depth+3); err != nil {
				return err
			}
		}
		if r.Enum == nil {
			if r.Required {
				h.WriteRaw(`,"enum":null,"required":true,"type":`)
			} else {
				h.WriteRaw(`,"enum":null,"required":false,"type":`)
			}
		} else {
			h.WriteRaw(`,"enum":`)
			if err := h.WriteValue(r.Enum, depth+3); err != nil {
				return err
			}
			if r.Required {
				h.WriteRaw(`,"required":true,"type":`)
			} else {
				h.WriteRaw(`,"required":false,"type":`)
			}
		}
		switch {
		case r.Type == nil:
			h.WriteRaw("null}")
		case len(r.Type) == 1:
			if i := jsonTypeIndex(r.Type[0]); i >= 0 {
				h.WriteRaw(jsonTypeLists[i])
				break
			}
			fallthrough
		default:
			h.WriteRaw("[")
			for j, t := range r.Type {
				if j > 0 {
					h.WriteRaw(",")
				}
				h.WriteString(t)
			}
			h.WriteRaw("]}")
		}
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

// orderedRecords returns the record paths in code-point order, their
// records in the same order, and the records' slots (see templates) when
// they are known.
func (s *Skeleton) orderedRecords() ([]string, []Record, []int32) {
	if len(s.ordered) == len(s.Paths) && len(s.Paths) == len(s.Records) && s.ordered != nil {
		if len(s.slots) != len(s.ordered) {
			return s.Paths, s.ordered, nil
		}
		return s.Paths, s.ordered, s.slots
	}
	paths := s.orderedPaths()
	recs := make([]Record, len(paths))
	for i, p := range paths {
		recs[i] = s.Records[p]
	}
	return paths, recs, nil
}

// orderedKeys returns s.keys when the writers read s.ordered (see
// orderedRecords), or else nil.
func (s *Skeleton) orderedKeys() []uint8 {
	if len(s.ordered) == len(s.Paths) && len(s.Paths) == len(s.Records) && s.ordered != nil && len(s.keys) == len(s.ordered) {
		return s.keys
	}
	return nil
}

// plainPaths reports whether the writers read s.ordered (see
// orderedRecords) and every path is plain (see plainPath).
func (s *Skeleton) plainPaths() bool {
	return s.plain && len(s.ordered) == len(s.Paths) && len(s.Paths) == len(s.Records) && s.ordered != nil
}

// keyBits is known[i], or 0 past its end.
func keyBits(known []uint8, i int) uint8 {
	if i < len(known) {
		return known[i]
	}
	return 0
}

// constraintKeys is retainedOrder of c, read from kb, c's byte of
// Skeleton.keys, when that is nonzero: the walk that built c knew its keys.
func constraintKeys(c *jsonv.Value, kb uint8) (keys [len(retained)]int8, ok bool) {
	if kb == 0 || len(c.Members) != bits.OnesCount8(kb) {
		return retainedOrder(c)
	}
	for j := 0; kb != 0; j++ {
		keys[j] = int8(bits.TrailingZeros8(kb))
		kb &= kb - 1
	}
	return keys, true
}

// utf16Order returns the indexes of paths, which are in code-point order,
// in the UTF-16 order of the paths (RFC 8785's key order), or nil when
// that is their order already: the two orders part only between a
// character from U+E000 to U+FFFF and one above U+FFFF at the place where
// two paths first differ, which few neighbours do.
func utf16Order(paths []string) []int32 {
	sorted := true
	for i := 1; i < len(paths) && sorted; i++ {
		sorted = jsonv.CompareUTF16(paths[i-1], paths[i]) < 0
	}
	if sorted {
		return nil
	}
	order := make([]int32, len(paths))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return jsonv.CompareUTF16(paths[a], paths[b]) })
	return order
}

// codePointIsUTF16Order reports whether sorted paths are also in UTF-16
// order: the orders differ only between a character above U+FFFF and one
// from U+E000 to U+FFFF, whose UTF-8 starts with a byte of 0xEE or more.
func codePointIsUTF16Order(paths []string) bool {
	for _, p := range paths {
		// Eight bytes at a time: only a word with a byte from 0x80 up
		// (not ASCII) is looked at byte by byte.
		i := 0
		for ; i+8 <= len(p); i += 8 {
			w := uint64(p[i]) | uint64(p[i+1])<<8 | uint64(p[i+2])<<16 | uint64(p[i+3])<<24 |
				uint64(p[i+4])<<32 | uint64(p[i+5])<<40 | uint64(p[i+6])<<48 | uint64(p[i+7])<<56
			if w&0x8080808080808080 != 0 {
				break
			}
		}
		for ; i < len(p); i++ {
			if p[i] >= 0xEE {
				return false
			}
		}
	}
	return true
}

// templates holds the written texts of records that an Extractor writes
// again and again, so that it renders each once and copies it after that.
//
// Kinds are the records that say nothing but their type and required flag:
// open constraints (the walker's shared {"additionalProperties": true}),
// no enum, and no type or one of jsonTypeNames. Their texts depend only
// on the type and the flag, so they are kept for all the skeletons the
// Extractor makes; the key is the record's value, never a pointer into
// walk memory, so the texts stay right across walks.
//
// Slots are the records of one skeleton made from one node reached
// through $refs, with one required flag: they share their type list, enum
// and constraints, so their texts are the same. A slot is identified by
// the walk that made it and is good only for the skeleton it made, whose
// slots give each record's slot (see walker.put).
type templates struct {
	// open is the walker's open constraints object; nil until a walk made
	// it.
	open  *jsonv.Value
	kinds [2 * (len(jsonTypeNames) + 1)]texts
	slots []texts
	// heads are the indented texts of records of any enum and
	// constraints up to the enum's value, by typeKind; headsNoEnum those
	// of records without an enum, up to the constraints' value. Each is
	// for the layout at.
	heads, headsNoEnum [2 * (len(jsonTypeNames) + 1)]struct {
		text []byte
		at   [2]int
	}
	// lay is the fixed texts of the last layout AppendIndent wrote.
	lay layout
}

// texts are the written texts of a record, each made on first use: the
// RFC 8785 and compact texts, and the AppendIndent text at indentAt
// (indent, level). uses is how many records of its skeleton a slot has.
type texts struct {
	canonical, compact, indent []byte
	indentAt                   [2]int
	uses                       int
	// noCanonical is set when the canonical text is not to be kept (see
	// canonicalText).
	noCanonical bool
}

// reset empties t for another record, keeping its buffers unless they
// grew large (a big enum's), so that one schema does not pin them.
func (t *texts) reset(uses int) {
	*t = texts{canonical: keepSmall(t.canonical), compact: keepSmall(t.compact), indent: keepSmall(t.indent), uses: uses}
}

// keepSmall returns b emptied, or nil when its capacity is large.
func keepSmall(b []byte) []byte {
	if cap(b) > 4<<10 {
		return nil
	}
	return b[:0]
}

// textsFor returns the kept texts for r, the i-th record, or nil when r
// has none; slots gives the records' slots, nil when unknown.
func (t *templates) textsFor(r *Record, i int, slots []int32) *texts {
	if t == nil {
		return nil
	}
	if k := t.kind(r); k >= 0 {
		return &t.kinds[k]
	}
	if i < len(slots) {
		if n := slots[i]; n > 0 && t.slots[n-1].uses > 1 {
			return &t.slots[n-1]
		}
	}
	return nil
}

// kind returns r's kind, or -1 when r is not of one.
func (t *templates) kind(r *Record) int {
	if t.open == nil || r.Constraints != t.open || r.Enum != nil {
		return -1
	}
	return r.typeKind()
}

// typeKind returns the index of r's type (none, or one of jsonTypeNames)
// and required flag among the kinds, or -1 for any other type.
func (r *Record) typeKind() int {
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

// compactText is appendCompact's text of r.
func (t *texts) compactText(r *Record) []byte {
	if len(t.compact) == 0 {
		t.compact = r.appendCompact(t.compact)
	}
	return t.compact
}

// indentText is appendIndent's text of r at indent and level; a writer
// keeps to one layout, so only the last is kept.
func (t *texts) indentText(r *Record, indent, level int) []byte {
	if at := [2]int{indent, level}; len(t.indent) == 0 || t.indentAt != at {
		t.indent = r.appendIndent(t.indent[:0], indent, level)
		t.indentAt = at
	}
	return t.indent
}

// canonicalText is the RFC 8785 text of r, or nil when it is to be
// written the general way: when r's enum or constraints hold arrays or
// objects, whose depth counts against canon.MaxDepth where the record
// sits in the document, or when r has no canonical text (a number
// canonicalization refuses), so that the general way reports the error.
func (t *texts) canonicalText(r *Record) []byte {
	if len(t.canonical) == 0 && !t.noCanonical {
		t.noCanonical = true
		if !shallow(r.Enum) || !shallow(r.Constraints) {
			return nil
		}
		b, err := canon.Canonical(r.Value())
		if err != nil {
			return nil
		}
		t.canonical = append(t.canonical[:0], b...)
		t.noCanonical = false
	}
	if t.noCanonical {
		return nil
	}
	return t.canonical
}

// shallow reports whether v is nil, or an array or object of scalars.
func shallow(v *jsonv.Value) bool {
	if v == nil {
		return true
	}
	for _, it := range v.Items {
		if it != nil && (it.Kind == jsonv.Array || it.Kind == jsonv.Object) {
			return false
		}
	}
	for _, m := range v.Members {
		if m.Value != nil && (m.Value.Kind == jsonv.Array || m.Value.Kind == jsonv.Object) {
			return false
		}
	}
	return true
}

// retainedKeys are the retained keys as an indented object writes them,
// quoted, with the colon and a blank; canonical text drops the blank.
var retainedKeys = [len(retained)]string{`"additionalProperties": `, `"format": `, `"maxLength": `, `"maximum": `, `"minLength": `, `"minimum": `, `"pattern": `}

// canonicalKeys are the retained keys as canonical text writes them after
// another member: a comma, the quoted key and the colon.
var canonicalKeys = [len(retained)]string{`,"additionalProperties":`, `,"format":`, `,"maxLength":`, `,"maximum":`, `,"minLength":`, `,"minimum":`, `,"pattern":`}

// retainedOrder reports whether the members of obj, an object, are
// retained keys, each once and in retained's order (as the walk builds
// constraints), with values, and returns their indices in retained.
func retainedOrder(obj *jsonv.Value) (keys [len(retained)]int8, ok bool) {
	if obj.Kind != jsonv.Object || len(obj.Members) > len(retained) {
		return keys, false
	}
	last := -1
	for j, m := range obj.Members {
		i := retainedIndex(m.Key)
		if i <= last || m.Value == nil {
			return keys, false
		}
		keys[j] = int8(i)
		last = i
	}
	return keys, true
}

// jsonTypeLists are the canonical texts of the one-element type lists of
// jsonTypeNames, with the record's closing brace.
var jsonTypeLists = [len(jsonTypeNames)]string{`["string"]}`, `["integer"]}`, `["number"]}`, `["boolean"]}`, `["object"]}`, `["array"]}`, `["null"]}`}

package jsonv

// Raw is one JSON value kept as its compact text — AppendCompact's form:
// members in document order, numbers as written, no whitespace — instead of
// as a tree. It costs about a third of the value's pretty-printed text,
// against some 70 bytes per value for a tree, and holds no pointers for the
// collector to trace, so a lock of thousands of entries keeps its schema
// skeletons this way and parses one back only when it is needed.
//
// A Raw is made only from a value (RawOf) or from text that parses
// (ParseRaw), so its text is always valid compact JSON. The zero Raw stands
// for an absent value.
type Raw struct {
	text string
}

// RawOf returns v as a Raw; nil gives the zero Raw.
func RawOf(v *Value) Raw {
	if v == nil {
		return Raw{}
	}
	return Raw{text: string(v.AppendCompact(make([]byte, 0, v.CompactLen())))}
}

// RawOfBuf is RawOf that writes the text in *buf first (reused from call to
// call, grown as needed), which spares measuring the value beforehand.
func RawOfBuf(v *Value, buf *[]byte) Raw {
	if v == nil {
		return Raw{}
	}
	*buf = v.AppendCompact((*buf)[:0])
	return Raw{text: string(*buf)}
}

// CompactRaw wraps text that is already compact JSON exactly as
// AppendCompact writes it, for a writer that produces that text without
// building the value (the schema skeleton's); its tests hold it to
// AppendCompact. Anything else breaks the invariant Raw's users rely on.
func CompactRaw(text []byte) Raw { return Raw{text: string(text)} }

// CompactRawString is CompactRaw for text already held as a string.
func CompactRawString(text string) Raw { return Raw{text: text} }

// ParseRaw parses text (any JSON Parse accepts) into a Raw.
func ParseRaw(text []byte, opts Options) (Raw, error) {
	v, err := Parse(text, opts)
	if err != nil {
		return Raw{}, err
	}
	return RawOf(v), nil
}

// IsZero reports whether r is the zero Raw (an absent value).
func (r Raw) IsZero() bool { return r.text == "" }

// IsNull reports whether r is absent or JSON null.
func (r Raw) IsNull() bool { return r.text == "" || r.text == "null" }

// Text returns the compact text; "" for the zero Raw.
func (r Raw) Text() string { return r.text }

// Len returns the length of the compact text.
func (r Raw) Len() int { return len(r.text) }

// rawMaxDepth is the nesting Value accepts when it parses a Raw back: the
// text came from a value that was already accepted, and every parse bounds
// depth by HardMaxDepth at most; a few levels more cover a value embedded in
// a larger one (a schema's enum inside a skeleton record).
const rawMaxDepth = 2 * HardMaxDepth

// Value parses r back into a tree; the zero Raw gives nil. The text is
// valid by construction, so an error can only mean a value too large for
// memory, and is reported rather than hidden.
func (r Raw) Value() (*Value, error) {
	if r.text == "" {
		return nil, nil
	}
	return Parse([]byte(r.text), Options{MaxDepth: rawMaxDepth})
}

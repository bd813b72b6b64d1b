package jsonv

import "fmt"

// skipper is the state Skip keeps from call to call: the keys of the
// objects being skipped, as a stack, for the duplicate-key check.
type skipper struct {
	keys []string
}

// skipValue mirrors Decoder.value, check for check, but keeps nothing of
// what it reads but the keys of the open objects: a member the caller does
// not know costs the memory of its keys, not of its tree (some 80 bytes a
// value, forty times the text of a list of small numbers).
func (d *Decoder) skipValue(depth int) error {
	if depth > d.maxDepth {
		return d.fail("nesting deeper than %d", d.maxDepth)
	}
	d.values++
	if d.maxValues > 0 && d.values > d.maxValues {
		return &ValueLimitError{Limit: d.maxValues}
	}
	c, ok := d.peek()
	if !ok {
		return d.fail("unexpected end of input")
	}
	switch {
	case c == '{':
		return d.skipObject(depth)
	case c == '[':
		return d.skipArray(depth)
	case c == '"':
		return d.skipString()
	case c == '-' || isDigit(c):
		_, err := d.scanNumber()
		d.mark = -1
		return err
	case c == 't':
		return d.scanLiteral("true")
	case c == 'f':
		return d.scanLiteral("false")
	case c == 'n':
		return d.scanLiteral("null")
	default:
		return d.fail("invalid character %s", quoteByte(c))
	}
}

// skipString reads a string literal, checking it as plainStr does.
func (d *Decoder) skipString() error {
	_, plain, err := d.plainString()
	if err != nil {
		return err
	}
	if plain {
		d.mark = -1
		return nil
	}
	_, err = d.escapedString()
	return err
}

// skipArray mirrors Decoder.array.
func (d *Decoder) skipArray(depth int) error {
	d.pos++ // '['
	d.skipSpace()
	if c, ok := d.peek(); ok && c == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		d.skipSpace()
		if err := d.skipValue(depth + 1); err != nil {
			return within(err, PathElem{Index: i, IsIndex: true})
		}
		d.skipSpace()
		c, ok := d.peek()
		if !ok {
			return d.fail("unexpected end of input in array")
		}
		switch c {
		case ',':
			d.skipSeparator()
		case ']':
			d.pos++
			return nil
		default:
			return d.fail("expected ',' or ']' in array")
		}
	}
}

// skipObject mirrors Decoder.object.
func (d *Decoder) skipObject(depth int) error {
	d.pos++ // '{'
	d.skipSpace()
	if c, ok := d.peek(); ok && c == '}' {
		d.pos++
		return nil
	}
	s := &d.skip
	base, hbase := len(s.keys), len(d.keyHashes)
	var seen keySet
	for {
		d.skipSpace()
		if c, ok := d.peek(); !ok || c != '"' {
			return d.fail("expected a string object key")
		}
		key, h, _, err := d.key()
		if err != nil {
			return err
		}
		if d.repeatedKey(key, h, hbase, &seen, func(j int) string { return s.keys[base+j] }) {
			return d.fail("duplicate object key %q", key)
		}
		if seen.seen == nil {
			// Past wideObject keys the map holds them; the stack only
			// serves the narrow objects' hash comparisons.
			s.keys = append(s.keys, key)
		}
		d.skipSpace()
		if c, ok := d.peek(); !ok || c != ':' {
			return d.fail("expected ':' after object key")
		}
		d.skipSeparator()
		d.skipSpace()
		if err := d.skipValue(depth + 1); err != nil {
			return within(err, PathElem{Key: key})
		}
		d.skipSpace()
		c, ok := d.peek()
		if !ok {
			return d.fail("unexpected end of input in object")
		}
		switch c {
		case ',':
			d.skipSeparator()
		case '}':
			d.pos++
			clear(s.keys[base:])
			s.keys = s.keys[:base]
			d.keyHashes = d.keyHashes[:hbase]
			return nil
		default:
			return d.fail("expected ',' or '}' in object")
		}
	}
}

// String reads the string at the current position as Value would, counted
// and checked alike, but returns it without making a Value of it: a
// reader of a long list of strings keeps the strings alone. The value
// there must be a string (see Next); anything else is refused as Value
// refuses it, or else as not a string.
func (d *Decoder) String() (string, error) {
	if kind, ok := d.Next(); !ok || kind != String {
		if _, err := d.Value(); err != nil {
			return "", err
		}
		return "", d.setErr(fmt.Errorf("jsonv: the value at %s is not a string", d.pathString()))
	}
	var err error
	switch {
	case d.depth > d.maxDepth:
		err = d.fail("nesting deeper than %d", d.maxDepth)
	case d.maxValues > 0 && d.values >= d.maxValues:
		d.values++
		err = &ValueLimitError{Limit: d.maxValues}
	}
	if err != nil {
		return "", d.setErr(err)
	}
	d.values++
	s, _, err := d.plainStr()
	if err != nil {
		if pe, ok := err.(*ParseError); ok {
			pe.settle()
		}
		return "", d.setErr(err)
	}
	d.consumed++
	return s, nil
}

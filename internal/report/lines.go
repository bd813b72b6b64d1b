package report

import (
	"bytes"
	"encoding/json"
	"sort"
)

// LineIndex maps report targets (tools/<name>, resources/<uri>,
// prompts/<name>) to the 1-based line of that entry in a lock file's text,
// so a code-scanning alert or annotation opens the lock at the right place.
// The zero value and nil are valid and answer line 1 for everything.
type LineIndex struct {
	lines map[string]int
}

// IndexLock scans lock text and records the line of each entry's identifying
// member: "name" for tools and prompts, "uri" for resources, inside the
// top-level "tools", "resources" and "prompts" arrays.
//
// It walks the JSON token stream rather than matching lines with a regular
// expression: string literals are decoded before they are compared, so an
// escaped or hostile name cannot be confused with another, and any layout of
// the file works. Text that is not valid JSON is indexed up to the first
// error; it never fails.
func IndexLock(text []byte) *LineIndex {
	ix := &LineIndex{lines: map[string]int{}}
	newlines := newlineOffsets(text)

	var stack []lockFrame
	dec := json.NewDecoder(bytes.NewReader(text))
	// UseNumber keeps out-of-range numbers from being an error.
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return ix
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			if k, ok := tok.(string); ok {
				stack[n-1].key = k
				stack[n-1].wantKey = false
				continue
			}
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				via := ""
				if n := len(stack); n > 0 && stack[n-1].obj {
					via = stack[n-1].key
				}
				stack = append(stack, lockFrame{obj: d == '{', wantKey: d == '{', via: via})
			default:
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				valueDone(stack)
			}
			continue
		}
		if s, ok := tok.(string); ok && len(stack) == 3 && stack[0].obj && !stack[1].obj && stack[2].obj {
			if prefix, field := sectionField(stack[1].via); prefix != "" && stack[2].key == field {
				target := prefix + s
				if _, seen := ix.lines[target]; !seen {
					// InputOffset is just past the literal; a JSON string
					// never spans lines, so its last byte's line is its line.
					ix.lines[target] = lineAt(newlines, dec.InputOffset()-1)
				}
			}
		}
		valueDone(stack)
	}
}

// lockFrame is one open JSON container during IndexLock's walk. via is the
// key the container was opened under in its parent object ("" in arrays).
type lockFrame struct {
	obj     bool
	wantKey bool
	key     string
	via     string
}

// valueDone records that the innermost object has consumed a member value
// and expects a key next.
func valueDone(stack []lockFrame) {
	if n := len(stack); n > 0 && stack[n-1].obj {
		stack[n-1].wantKey = true
	}
}

// sectionField returns the target prefix and identifying member of a
// top-level entry array.
func sectionField(section string) (prefix, field string) {
	switch section {
	case "tools":
		return "tools/", "name"
	case "resources":
		return "resources/", "uri"
	case "prompts":
		return "prompts/", "name"
	}
	return "", ""
}

// newlineOffsets returns the byte offsets of every '\n' in text.
func newlineOffsets(text []byte) []int {
	var offs []int
	for i, c := range text {
		if c == '\n' {
			offs = append(offs, i)
		}
	}
	return offs
}

// lineAt returns the 1-based line holding byte offset off.
func lineAt(newlines []int, off int64) int {
	return sort.SearchInts(newlines, int(off)) + 1
}

// Line returns the line of target in the indexed lock, or 1 when the target
// is not an entry of the lock (launch/command, pin/…, lock/…, entries added
// since the pin) or the index is nil.
func (ix *LineIndex) Line(target string) int {
	if ix == nil {
		return 1
	}
	if n, ok := ix.lines[target]; ok {
		return n
	}
	return 1
}

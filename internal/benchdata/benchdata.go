// Package benchdata generates the synthetic MCP surfaces warden's
// benchmarks run on: tools with realistic input schemas (10-30 properties,
// nesting, $defs and $refs, enums, constraints) and descriptions of
// 200-2,000 characters with some non-ASCII text, in the conformance corpus's
// surface shape that `warden pin --surface` reads. The output is a pure
// function of its arguments, so every run measures the same bytes.
package benchdata

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

var words = strings.Fields("read write the file path to a directory from remote server and return its contents as text with optional encoding überprüfen données 日本語 fetch query records limit offset sort order by field name value")

func sentence(r *rand.Rand, minChars, maxChars int) string {
	n := minChars + r.IntN(maxChars-minChars+1)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// Surface returns the surface JSON of n tools, launched as "node server.js"
// (about 4.2 KB a tool). When changed reports true for tool i (changed may
// be nil), that tool differs structurally from its unchanged form — its
// path properties' maxLength is raised, one more optional unconstrained
// property is declared and its description is reworded — while every other
// tool is byte for byte the same, so two surfaces with different changed
// sets drift exactly in the tools that differ.
func Surface(n int, changed func(i int) bool) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.Grow(n * 4300)
	b.WriteString(`{"command": "node", "args": ["server.js"], "tools": [`)
	for i := 0; i < n; i++ {
		c := changed != nil && changed(i)
		if i > 0 {
			b.WriteByte(',')
		}
		desc := sentence(r, 200, 2000)
		if c {
			desc = "Changed: " + desc
		}
		fmt.Fprintf(&b, `{"name": "tool_%05d_read_file", "description": %q, "inputSchema": {"type": "object", "$defs": {"mode": {"type": "string", "enum": ["fast", "safe", "thorough"], "maxLength": 16}}, "properties": {`, i, desc)
		props := 10 + r.IntN(21)
		for p := 0; p < props; p++ {
			if p > 0 {
				b.WriteByte(',')
			}
			desc := sentence(r, 20, 120)
			switch p % 5 {
			case 0:
				maxLen := 64 + p
				if c {
					maxLen += 4096
				}
				fmt.Fprintf(&b, `"path_%d": {"type": "string", "description": %q, "maxLength": %d, "pattern": "^[a-z/]+$"}`, p, desc, maxLen)
			case 1:
				fmt.Fprintf(&b, `"limit_%d": {"type": "integer", "minimum": 1, "maximum": %d.0, "description": %q}`, p, 100+p, desc)
			case 2:
				fmt.Fprintf(&b, `"mode_%d": {"$ref": "#/$defs/mode"}`, p)
			case 3:
				fmt.Fprintf(&b, `"opts_%d": {"type": "object", "additionalProperties": false, "properties": {"deep": {"type": ["string", "null"], "enum": ["a", "b", null, 1, 2.5]}, "list": {"type": "array", "items": {"type": "string", "format": "uri"}}}}`, p)
			default:
				fmt.Fprintf(&b, `"flag_%d": {"type": "boolean", "default": false, "description": %q}`, p, desc)
			}
		}
		if c {
			b.WriteString(`,"extra": {"type": "string"}`)
		}
		b.WriteString(`}, "required": ["path_0"]}, "annotations": {"readOnlyHint": true}}`)
	}
	b.WriteString(`], "resources": [], "prompts": []}`)
	return []byte(b.String())
}

// EveryTenth is a changed set for Surface: tools 0, 10, 20 and so on.
func EveryTenth(i int) bool { return i%10 == 0 }

// PlainDecimal returns a random number literal written as a plain decimal
// (-?digits.digits), for tests of the writers' plain-decimal shortcuts
// around their limits: up to 17 significant digits before and after the
// point, a third of them of the form 0.000ddd with up to maxZeros zeros
// after the point, either sign, trailing zeros now and then.
func PlainDecimal(r *rand.Rand, maxZeros int) string {
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteByte('-')
	}
	if r.IntN(3) == 0 {
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", r.IntN(maxZeros+1)))
		writeDigits(r, &b, 1+r.IntN(17))
	} else {
		writeDigits(r, &b, 1+r.IntN(17))
		b.WriteByte('.')
		writeDigits(r, &b, 1+r.IntN(17))
	}
	return b.String()
}

// writeDigits writes n random digits, the first not zero and the last
// zero a third of the time.
func writeDigits(r *rand.Rand, b *strings.Builder, n int) {
	for i := range n {
		d := byte('0' + r.IntN(10))
		if i == 0 && d == '0' {
			d = '1'
		}
		if i == n-1 && r.IntN(3) == 0 {
			d = '0'
		}
		b.WriteByte(d)
	}
}

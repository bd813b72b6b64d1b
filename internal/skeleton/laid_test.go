package skeleton

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// laidValues are constraint values for TestLaidConstraints: ints (a
// negative zero among them), floats whose Python repr differs from the
// literal, strings needing escapes, a boolean, null and nested values.
var laidValues = []string{
	`7`, `-0`, `0`, `1234567890123456789012`, `-3`,
	`101.0`, `1e2`, `0.5`, `-0.0`, `1e-7`, `1.5e300`, `0.00012`, `123456789012345678.5`,
	`"^[a-z]+$"`, `"a\"b\\c\n\u00e9\u2028\u0001"`, `""`,
	`false`, `true`, `null`,
	`{"b":1,"a":[1.50,{}]}`, `[]`, `{}`, `["x",[2.0]]`,
}

// TestLaidConstraints holds an Extractor's writers (its layout texts,
// kept heads and the walk's known constraint keys) to Value's tree on
// records with every set of retained keys, values of every kind, enums
// and type lists, in one skeleton and across reused walks, at the
// layouts checkWritersMatch uses (the lock's indent 2 and level 3 among
// them).
func TestLaidConstraints(t *testing.T) {
	types := []string{``, `"type":"string",`, `"type":["null","string"],`, `"type":["integer","string"],`, `"type":"Integer",`, `"type":[],`}
	enums := []string{``, `"enum":["b","a",null],`, `"enum":[2,1.0,"x\u00e9",{"z":[1]},[true]],`, `"enum":[],`, `"enum":[null],`}
	var x Extractor
	for round := range 3 {
		var props []string
		var req []string
		for mask := range 1 << len(retained) {
			var members []string
			for i, k := range retained {
				if mask&(1<<i) != 0 {
					members = append(members, fmt.Sprintf(`"%s":%s`, k, laidValues[(mask+i*5+round)%len(laidValues)]))
				}
			}
			name := fmt.Sprintf("p%03d", mask)
			node := "{" + types[(mask+round)%len(types)] + enums[(mask/3+round)%len(enums)] + strings.Join(members, ",") + "}"
			node = strings.Replace(node, ",}", "}", 1)
			props = append(props, fmt.Sprintf(`"%s":%s`, name, node))
			if mask%3 == round {
				req = append(req, `"`+name+`"`)
			}
			// Neighbours of one type list that is not a kind's, with
			// and without an enum and required, for the kept head.
			q := fmt.Sprintf("q%03d", mask)
			qe := ``
			if mask%4 < 2 {
				qe = `"enum":["a",null],`
			}
			props = append(props, fmt.Sprintf(`"%s":{"type":["null","string"],%s"maxLength":%d}`, q, qe, mask))
			if (mask+round)%2 == 0 {
				req = append(req, `"`+q+`"`)
			}
		}
		schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
		v := parse(t, schema)
		checkAgainstTree(t, x.Extract(v), v, fmt.Sprintf("round %d", round))
		// A small schema between, so that the next walk reuses what this
		// one left.
		w := parse(t, `{"properties":{"a":{"type":["null","string"],"maxLength":3},"b":{"pattern":"\\d","format":"x"}}}`)
		checkAgainstTree(t, x.Extract(w), w, "small")
	}
	// Each retained key alone and all together, each value, one record
	// per walk.
	for _, val := range laidValues {
		for _, k := range retained {
			v := parse(t, fmt.Sprintf(`{"properties":{"a":{"type":"string","%s":%s}}}`, k, val))
			checkAgainstTree(t, x.Extract(v), v, k+" "+val)
		}
		var all []string
		for _, k := range retained {
			all = append(all, fmt.Sprintf(`"%s":%s`, k, val))
		}
		v := parse(t, `{"properties":{"a":{"enum":["q"],`+strings.Join(all, ",")+`}}}`)
		checkAgainstTree(t, x.Extract(v), v, "all "+val)
	}
}

// TestCodePointIsUTF16Order holds the word-at-a-time scan to a byte loop
// on paths with characters of every UTF-8 length at offsets around the
// word boundaries.
func TestCodePointIsUTF16Order(t *testing.T) {
	slow := func(paths []string) bool {
		for _, p := range paths {
			for i := 0; i < len(p); i++ {
				if p[i] >= 0xEE {
					return false
				}
			}
		}
		return true
	}
	for _, c := range []string{"a", "\u00e9", "\u0800", "\ud7ff", "\ue000", "\uffff", "\U00010000", "\x7f"} {
		for pre := range 20 {
			for post := range 10 {
				p := strings.Repeat("x", pre) + c + strings.Repeat("y", post)
				for _, paths := range [][]string{{p}, {"plain.path.longer", p}, {p, "z"}} {
					if got, want := codePointIsUTF16Order(paths), slow(paths); got != want {
						t.Fatalf("codePointIsUTF16Order(%q) = %v, want %v", paths, got, want)
					}
				}
			}
		}
	}
}

// TestRetainedIndexNearMisses: a key one byte away from a retained key,
// or a prefix or extension of one, is not retained.
func TestRetainedIndexNearMisses(t *testing.T) {
	for _, k := range retained {
		for i := range len(k) {
			for _, c := range []byte{'a', 'i', 'p', 'x', 'L', 0} {
				b := []byte(k)
				if b[i] == c {
					continue
				}
				b[i] = c
				if got := retainedIndex(string(b)); got != -1 {
					t.Errorf("retainedIndex(%q) = %d", b, got)
				}
			}
		}
		for _, m := range []string{k[:len(k)-1], k + "s", " " + k} {
			if got := retainedIndex(m); got != -1 {
				t.Errorf("retainedIndex(%q) = %d", m, got)
			}
		}
	}
}

// TestAppendIndentValue holds appendIndentValue's own scalars (ints,
// floats that are their own repr) to pyfmt.AppendIndent on number
// literals around plainRepr's limits.
func TestAppendIndentValue(t *testing.T) {
	lits := []string{
		"0", "-0", "7", "-7", "10", "1234567890123456789012",
		"0.0", "-0.0", "1.0", "101.0", "1.5", "1.50", "1.00", "10.0", "100.05", "0.5", "0.0001", "0.00001",
		"1e2", "1E2", "1.5e3", "-1.5",
		"99999999999999.9", "999999999999999.9", "123456789012345.0", "1234567890123456.0",
		"12345678901234.5", "1.23456789012345", "1.234567890123456", "9007199254740993.0",
		"1.7976931348623157e308", "1e400", "-1e400", "5e-324",
	}
	for _, lit := range lits {
		v, err := jsonv.Parse([]byte(lit), jsonv.Options{})
		if err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		for _, level := range []int{0, 4} {
			if got, want := string(appendIndentValue(nil, v, 2, level)), string(pyfmt.AppendIndent(nil, v, 2, level)); got != want {
				t.Errorf("appendIndentValue(%s) = %s, want %s", lit, got, want)
			}
		}
	}
	// Hand-built literals the parser would refuse.
	for _, v := range []*jsonv.Value{{Kind: jsonv.Int, Text: "00"}, {Kind: jsonv.Int, Text: "-00"}, {Kind: jsonv.Float, Text: "01.5"}, {Kind: jsonv.Float, Text: "1..5"}, {Kind: jsonv.Float, Text: "1."}, {Kind: jsonv.Float, Text: ".5"}, {Kind: jsonv.Float, Text: "00.5"}} {
		if got, want := string(appendIndentValue(nil, v, 2, 1)), string(pyfmt.AppendIndent(nil, v, 2, 1)); got != want {
			t.Errorf("appendIndentValue(%s) = %s, want %s", v.Text, got, want)
		}
	}
}

// TestPlainPath holds plainPath to a byte loop, with every byte value at
// offsets around the word boundaries, and the writers to Value's tree on
// skeletons whose paths need escapes or sort differently in UTF-16.
func TestPlainPath(t *testing.T) {
	slow := func(p string) bool {
		for i := 0; i < len(p); i++ {
			if c := p[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	for c := range 256 {
		for pre := range 18 {
			for _, post := range []int{0, 1, 7, 8, 9} {
				p := strings.Repeat("x", pre) + string([]byte{byte(c)}) + strings.Repeat("~", post)
				if got, want := plainPath(p), slow(p); got != want {
					t.Fatalf("plainPath(%q) = %v, want %v", p, got, want)
				}
			}
		}
	}
	var x Extractor
	for _, k := range []string{`a\"b`, `a\\b`, `\u00e9`, `\ue000`, `\ud800\udc00`, `\n`, `\u001f`, `\u007f`, `long_prefix_key\"`, `long_prefix_key_\u00e9x`, `plain_key_long_enough`} {
		s := `{"properties":{"` + k + `":{"type":"object","properties":{"x":{"type":"string","maxLength":1}}},"b":{"type":"integer"},"\uffff":{"enum":["a"]}}}`
		v := parse(t, s)
		checkAgainstTree(t, x.Extract(v), v, s)
		w := parse(t, `{"properties":{"plain":{"type":"string"}}}`)
		checkAgainstTree(t, x.Extract(w), w, "plain after "+k)
	}
}

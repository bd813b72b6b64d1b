package skeleton

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// checkAgainstTree holds a skeleton from a reused Extractor to a fresh
// Extract of the same schema rendered the general way, through Value's
// tree: the same paths, records and Incomplete flag, and the same compact,
// indented and canonical texts.
func checkAgainstTree(t *testing.T, sk *Skeleton, v *jsonv.Value, what string) {
	t.Helper()
	fresh := Extract(v)
	if !slices.Equal(sk.Paths, fresh.Paths) || sk.Incomplete != fresh.Incomplete || len(sk.Records) != len(fresh.Records) {
		t.Fatalf("%s: paths %q (incomplete %v, %d records), fresh Extract %q (%v, %d)", what, sk.Paths, sk.Incomplete, len(sk.Records), fresh.Paths, fresh.Incomplete, len(fresh.Records))
	}
	for p, r := range fresh.Records {
		if got, want := sk.Records[p].Value().Compact(), r.Value().Compact(); got != want {
			t.Fatalf("%s: Records[%q] = %s, want %s", what, p, got, want)
		}
	}
	tree := fresh.Value()
	want := tree.Compact()
	if got := string(sk.AppendCompact(nil)); got != want {
		t.Fatalf("%s: AppendCompact\n got %s\nwant %s", what, got, want)
	}
	// A skeleton read back from its text is written the same way too.
	back, err := FromValue(parse(t, want))
	if err != nil {
		t.Fatalf("%s: FromValue: %v", what, err)
	}
	checkWritersMatch(t, back, tree, what+" (read back)")
	checkWritersMatch(t, sk, tree, what)
}

// checkWritersMatch holds sk's writers to tree, its Value.
func checkWritersMatch(t *testing.T, sk *Skeleton, tree *jsonv.Value, what string) {
	t.Helper()
	if got, want := string(sk.AppendCompact(nil)), tree.Compact(); got != want {
		t.Fatalf("%s: AppendCompact\n got %s\nwant %s", what, got, want)
	}
	for _, at := range [][2]int{{2, 3}, {2, 0}, {4, 1}, {2, 3}} {
		wantIndent := string(pyfmt.AppendIndent(nil, tree, at[0], at[1]))
		if got := string(sk.AppendIndent(nil, at[0], at[1])); got != wantIndent {
			t.Fatalf("%s: AppendIndent(%d, %d)\n got %s\nwant %s", what, at[0], at[1], got, wantIndent)
		}
	}
	var h, g canon.Hasher
	h.Begin()
	werr := sk.WriteCanonical(&h, 1)
	g.Begin()
	gerr := g.WriteValue(tree, 1)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: WriteCanonical error %v, tree's %v", what, werr, gerr)
	}
	if werr == nil && h.Sum() != g.Sum() {
		t.Fatalf("%s: WriteCanonical differs from the tree's canonical text", what)
	}
}

// TestExtractorReuse runs sequences of schemas through one Extractor,
// each one's records differing from the one before only in a type, a
// required flag, an enum or a constraint, so that a text or record kept
// from an earlier walk (or an earlier record of the same walk) and
// wrongly reused shows.
func TestExtractorReuse(t *testing.T) {
	sequences := [][]string{
		// Template records: open constraints, no enum; only the type
		// and the required flag tell them apart.
		{
			`{"properties":{"a":{"type":"string"}}}`,
			`{"properties":{"a":{"type":"integer"}}}`,
			`{"properties":{"a":{"type":"integer"}},"required":["a"]}`,
			`{"properties":{"a":{"type":["integer"]}},"required":["a"]}`,
			`{"properties":{"a":{"type":["integer","null"]}},"required":["a"]}`,
			`{"properties":{"a":{"type":["null","integer"]}},"required":["a"]}`,
			`{"properties":{"a":{"type":"Integer"}},"required":["a"]}`,
			`{"properties":{"a":{}},"required":["a"]}`,
			`{"properties":{"a":{}}}`,
			`{"properties":{"a":true}}`,
			`{"properties":{"a":{"type":"string","enum":["x"]}}}`,
			`{"properties":{"a":{"type":"string","enum":["y"]}}}`,
			`{"properties":{"a":{"type":"string","enum":[]}}}`,
			`{"properties":{"a":{"type":"string","enum":null}}}`,
			`{"properties":{"a":{"type":"string","additionalProperties":true}}}`,
			`{"properties":{"a":{"type":"string","additionalProperties":false}}}`,
			`{"properties":{"a":{"type":"string","format":"uri"}}}`,
			`{"properties":{"a":{"type":"string"}}}`,
		},
		// Every JSON type, required and not, then the same again.
		func() []string {
			var out []string
			for range 2 {
				for _, typ := range jsonTypeNames {
					for _, req := range []string{`[]`, `["p"]`} {
						out = append(out, fmt.Sprintf(`{"type":%q,"properties":{"p":{"type":%q},"q":{"type":[%q]}},"required":%s}`, typ, typ, typ, req))
					}
				}
			}
			return out
		}(),
		// A $ref'd node used with required true and false, in one walk
		// and across walks.
		{
			`{"properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"},"c":{"$ref":"#/$defs/d"}},"required":["b"],"$defs":{"d":{"type":"string","enum":["x","y"],"maxLength":3}}}`,
			`{"properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"},"c":{"$ref":"#/$defs/d"}},"required":["a","c"],"$defs":{"d":{"type":"string","enum":["x","z"],"maxLength":3}}}`,
			`{"properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"}},"required":["a"],"$defs":{"d":{"type":"string"}}}`,
			`{"properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"}},"required":["b"],"$defs":{"d":{"type":"integer"}}}`,
			`{"properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/e"}},"required":["b"],"$defs":{"d":{"type":"integer"},"e":{"type":"integer","minimum":1}}}`,
		},
		// Paths that come out unsorted ("a-b" sorts before "a.x" but is
		// walked after it) or more than once (a property "a.b" and a
		// nested a.b; "$root" as a key), with last-wins records.
		{
			`{"properties":{"a":{"properties":{"x":{"type":"string"}}},"a-b":{"type":"integer"}}}`,
			`{"properties":{"a":{"properties":{"b":{"type":"string"}}},"a.b":{"type":"integer"}},"required":["a.b"]}`,
			`{"properties":{"a":{"properties":{"b":{"type":"string"}},"required":["b"]},"a.b":{"type":"string"}}}`,
			`{"properties":{"$root":{"type":"integer"},"a":{"items":{"type":"string"}},"a[]":{"type":"null"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"}}}`,
		},
	}
	for i, seq := range sequences {
		var x Extractor
		for round := range 2 {
			for j, s := range seq {
				v := parse(t, s)
				checkAgainstTree(t, x.Extract(v), v, fmt.Sprintf("sequence %d round %d schema %d %s", i, round, j, s))
			}
		}
	}
}

// TestExtractorReuseBench runs the benchmark's schemas and the writer
// seeds through one Extractor, in both orders.
func TestExtractorReuseBench(t *testing.T) {
	var schemas []string
	schemas = append(schemas, writerSeeds...)
	schemas = append(schemas, benchSchema, diamond(6), refChain(20))
	var x Extractor
	for range 2 {
		for _, s := range schemas {
			v := parse(t, s)
			checkAgainstTree(t, x.Extract(v), v, s)
		}
		slices.Reverse(schemas)
	}
}

// TestRetainedKeys checks that each retained key, alone, is kept under
// its own name.
func TestRetainedKeys(t *testing.T) {
	for _, k := range retained {
		got := extractText(t, `{"`+k+`":7}`)
		cons := `{"additionalProperties":true,"` + k + `":7}`
		if k == "additionalProperties" {
			cons = `{"additionalProperties":7}`
		}
		if want := props("$root", rec("null", false, "null", cons)); got != want {
			t.Errorf("%s: got %s, want %s", k, got, want)
		}
	}
	for i, k := range retained {
		if retainedIndex(k) != i || retainedKeys[i] != `"`+k+`": ` {
			t.Errorf("retained[%d] = %q: index %d, written %q", i, k, retainedIndex(k), retainedKeys[i])
		}
	}
	if got, want := extractText(t, `{"maxlength":1,"Pattern":"x","minimum ":2}`), props("$root", anyRec); got != want {
		t.Errorf("near misses: got %s, want %s", got, want)
	}
}

// TestJSONTypeLists checks the table of written one-type lists.
func TestJSONTypeLists(t *testing.T) {
	for i, name := range jsonTypeNames {
		if jsonTypeIndex(name) != i || jsonTypeLists[i] != `["`+name+`"]}` {
			t.Errorf("jsonTypeNames[%d] = %q: index %d, written %q", i, name, jsonTypeIndex(name), jsonTypeLists[i])
		}
	}
}

// TestNormEnumLong holds normEnum to the first version on enums longer
// than its insertion sort takes, with members sharing long prefixes.
func TestNormEnumLong(t *testing.T) {
	for _, n := range []int{15, 16, 17, 40} {
		var items []string
		for i := range n {
			items = append(items, fmt.Sprintf(`"prefix_%02d"`, (i*7)%n), fmt.Sprintf("%d", n-i), fmt.Sprintf(`"prefix_%s"`, strings.Repeat("x", i%3)))
		}
		s := "[" + strings.Join(items, ",") + "]"
		v := parse(t, s)
		if got, want := normEnum(v).Compact(), normEnumSlow(v).Compact(); got != want {
			t.Errorf("normEnum(%s) = %s, want %s", s, got, want)
		}
	}
}

// TestWritersFromValue holds the writers to Value's tree on skeletons read
// from a lock, whose constraints the walk did not build: empty, keys out
// of order or repeated, other keys, nested values.
func TestWritersFromValue(t *testing.T) {
	for _, c := range []string{
		`{}`, `{"additionalProperties":true}`, `{"maxLength":1,"format":"x"}`,
		`{"x":1}`, `{"additionalProperties":{"b":1,"a":[1.50,{}]},"pattern":"\u00e9"}`,
		`{"$ref":"#/x"}`, `{"_truncated":true}`, `{"minimum":1e2,"pattern":null}`,
	} {
		for _, typ := range []string{`null`, `[]`, `["string"]`, `["a","b"]`} {
			for _, enum := range []string{`null`, `[]`, `[1,"a",{"z":null,"y":2}]`} {
				text := `{"props":{"p":{"type":` + typ + `,"required":true,"enum":` + enum + `,"constraints":` + c + `}}}`
				sk, err := FromValue(parse(t, text))
				if err != nil {
					t.Fatalf("%s: %v", text, err)
				}
				checkWritersMatch(t, sk, sk.Value(), text)
			}
		}
	}
	// A hand-built record may repeat a key.
	dup := jsonv.NewObject(jsonv.M("format", jsonv.NewString("x")), jsonv.M("format", jsonv.NewString("y")))
	sk := &Skeleton{Paths: []string{"p"}, Records: map[string]Record{"p": {Constraints: dup}}}
	checkWritersMatch(t, sk, sk.Value(), "repeated format")
}

// TestExtractHandBuiltConstraints: in a hand-built node, the last of a
// repeated retained key wins, and a nil value stands for none.
func TestExtractHandBuiltConstraints(t *testing.T) {
	str := jsonv.NewString
	for _, c := range []struct {
		members []jsonv.Member
		want    string
	}{
		{[]jsonv.Member{jsonv.M("format", str("x")), jsonv.M("format", nil)}, open},
		{[]jsonv.Member{jsonv.M("format", nil), jsonv.M("format", str("x"))}, `{"additionalProperties":true,"format":"x"}`},
		{[]jsonv.Member{jsonv.M("pattern", str("p")), jsonv.M("additionalProperties", nil), jsonv.M("format", str("f"))}, `{"additionalProperties":true,"format":"f","pattern":"p"}`},
		{[]jsonv.Member{jsonv.M("additionalProperties", jsonv.NewBool(false)), jsonv.M("minimum", nil)}, `{"additionalProperties":false}`},
	} {
		got := Extract(jsonv.NewObject(c.members...)).Value().Compact()
		if want := props("$root", rec("null", false, "null", c.want)); got != want {
			t.Errorf("%v: got %s, want %s", c.members, got, want)
		}
	}
}

// TestChildPathsLong: the children's paths are the same whether they are
// cut from one string or, past maxChildPaths, made one by one.
func TestChildPathsLong(t *testing.T) {
	for _, n := range []int{1, maxChildPaths/2 - 8, maxChildPaths/2 - 2, maxChildPaths / 2, maxChildPaths} {
		k := strings.Repeat("k", n)
		schema := `{"properties":{"` + k + `":{"properties":{"a":{"items":{"type":"string"}},"b":{}},"items":{"properties":{"c":{}}}}}}`
		want := []string{"$root", k, k + ".a", k + ".a[]", k + ".b", k + "[]", k + "[].c"}
		sk := Extract(parse(t, schema))
		if !slices.Equal(sk.Paths, want) {
			t.Errorf("key of %d bytes: paths %q", n, sk.Paths)
		}
		for _, p := range want {
			if _, ok := sk.Records[p]; !ok {
				t.Errorf("key of %d bytes: no record for %q", n, p)
			}
		}
	}
}

// pointerBySplit is walker.pointer as first written, splitting the
// fragment into a list of segments.
func pointerBySplit(w *walker, frag string) *jsonv.Value {
	f := pyfmt.Unquote(frag)
	if f == "" {
		return nil
	}
	segs := strings.Split(f, "/")
	if segs[0] != "" {
		return nil
	}
	cur := w.root
	for _, seg := range segs[1:] {
		seg = strings.ReplaceAll(seg, "~1", "/")
		seg = strings.ReplaceAll(seg, "~0", "~")
		switch cur.Kind {
		case jsonv.Object:
			cur = w.member(cur, seg)
		case jsonv.Array:
			i, ok := arrayIndex(seg, len(cur.Items))
			if !ok {
				return nil
			}
			cur = cur.Items[i]
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
	}
	if cur.Kind != jsonv.Object {
		return nil
	}
	return cur
}

func TestPointerMatchesSplit(t *testing.T) {
	root := parse(t, `{"":{"":{},"a":{}},"a":{"":{"x":{}},"b":[{},{"c":{}}],"a/b":{},"~":{}},"s":"x"}`)
	w := walker{root: root}
	for _, frag := range []string{"", "/", "//", "///", "a", "/a", "/a/", "/a//", "/a//x", "//a", "/a/b", "/a/b/1", "/a/b/1/c",
		"/a/b/1/", "/a/a~1b", "/a/~0", "/a%2Fb", "/s", "/s/", "/a/b/2", "x/a", "/%2F", "/a/%7E0"} {
		if got, want := w.pointer(frag), pointerBySplit(&w, frag); got != want {
			t.Errorf("pointer(%q) = %v, want %v", frag, got, want)
		}
	}
}

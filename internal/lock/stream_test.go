package lock

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/skeleton"
	"github.com/wardenlock/warden/internal/surface"
)

// streamLocks are locks of every shape the writer and reader must handle.
func streamLocks(t *testing.T) map[string]*Lock {
	t.Helper()
	locks := map[string]*Lock{"demo": buildDemo(t)}
	v1 := buildDemo(t)
	v1.SchemaVersion = 1
	for i := range v1.Tools {
		v1.Tools[i].SchemaSkeleton = jsonv.Raw{}
		v1.Tools[i].HasV4 = false
	}
	locks["v1"] = v1
	insp := buildDemo(t)
	insp.Tools[0].Inspection = jsonv.NewObject(jsonv.M("may_return_urls", jsonv.NewBool(true)), jsonv.M("x", jsonv.NewArray()))
	locks["inspection"] = insp
	for _, l := range []*Lock{v1, insp} {
		for i := range l.Tools {
			if err := resealTool(l, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	locks["url"] = urlLock(t, "https://example.com/mcp")
	gen := genLock(t, 40)
	gen.Findings = []Finding{
		{RuleID: "R", Severity: "low", Target: "tools/x", Message: "m", Snippet: "s"},
		{RuleID: "R2", Severity: "high", Target: "tools/\"q\" é", Message: "line\nbreak \u2028 \\ tab\t", Snippet: "\x01\x7f 日本"},
	}
	locks["generated"] = gen
	return locks
}

// genSurface is the surface of n generated tools (see genSurfaceJSON).
func genSurface(t testing.TB, n int) *surface.Surface {
	t.Helper()
	v, err := jsonv.Parse(genSurfaceJSON(n), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// genLock builds the lock of n generated tools (see genSurfaceJSON).
func genLock(t testing.TB, n int) *Lock {
	t.Helper()
	l, err := Build(genSurface(t, n))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestMarshalMatchesTree holds the streaming writer to the tree it
// replaces: json.dumps(indent=2) of ToValue, byte for byte.
func TestMarshalMatchesTree(t *testing.T) {
	for name, l := range streamLocks(t) {
		want := append(pyfmt.DumpsIndent(ToValue(l), 2), '\n')
		if got := Marshal(l); !bytes.Equal(got, want) {
			t.Errorf("%s: Marshal differs from the tree's text", name)
		}
		path := filepath.Join(t.TempDir(), "warden.lock")
		if err := WriteFile(path, l); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
			t.Errorf("%s: WriteFile differs from the tree's text", name)
		}
		// Read back, from a file and from bytes, it is the same lock.
		back, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := Marshal(back); !bytes.Equal(got, want) {
			t.Errorf("%s: ReadFile → Marshal changed the text", name)
		}
		if err := Verify(back); err != nil {
			t.Errorf("%s: read back, does not verify: %v", name, err)
		}
	}
}

// TestVerifyMemoFollowsEdits: Verify trusts the body digest remembered at
// read or build time only while the fields it came from are unchanged. An
// edit of any field of the body, in place or by replacement, is caught.
func TestVerifyMemoFollowsEdits(t *testing.T) {
	edits := map[string]func(t *Tool){
		"name":                func(t *Tool) { t.Name += "x" },
		"description_hash":    func(t *Tool) { t.DescriptionHash = "sha256:00" },
		"input_schema_hash":   func(t *Tool) { t.InputSchemaHash = "sha256:00" },
		"capability in place": func(t *Tool) { t.Capabilities[0] = "shell-exec" },
		"capabilities":        func(t *Tool) { t.Capabilities = append(t.Capabilities, "sql-query") },
		"inspection":          func(t *Tool) { t.Inspection = jsonv.NewObject() },
		"schema_skeleton":     func(t *Tool) { t.SchemaSkeleton = jsonv.RawOf(jsonv.NewObject()) },
		"skeleton to null":    func(t *Tool) { t.SchemaSkeleton = jsonv.Raw{} },
		"v4 dropped":          func(t *Tool) { t.HasV4 = false },
		"annotations_hash":    func(t *Tool) { t.AnnotationsHash = "sha256:00" },
		"output_schema_hash":  func(t *Tool) { t.OutputSchemaHash = "sha256:00" },
		"output skeleton":     func(t *Tool) { t.OutputSchemaSkeleton = jsonv.RawOf(jsonv.NewObject()) },
	}
	fresh := map[string]func() *Lock{
		"built": func() *Lock { return buildDemo(t) },
		"read": func() *Lock {
			l, err := Parse(Marshal(buildDemo(t)))
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	}
	for how, mk := range fresh {
		if err := Verify(mk()); err != nil {
			t.Fatalf("%s lock does not verify: %v", how, err)
		}
		for name, edit := range edits {
			l := mk()
			edit(&l.Tools[1]) // write_file: has a capability
			if err := Verify(l); err == nil || !strings.Contains(err.Error(), "$.tools[1]") {
				t.Errorf("%s lock, %s edited: Verify = %v", how, name, err)
			}
		}
		// The inspection block is a tree: edited in place, it is caught.
		l := mk()
		l.Tools[0].Inspection = jsonv.NewObject(jsonv.M("may_return_urls", jsonv.NewBool(false)))
		if err := resealTool(l, 0); err != nil {
			t.Fatal(err)
		}
		l.Tools[0].Inspection.Set("may_return_urls", jsonv.NewBool(true))
		if err := Verify(l); err == nil {
			t.Errorf("%s lock: inspection edited in place after sealing, Verify passed", how)
		}
	}
}

// resealTool recomputes one entry's digest and the overall digest.
func resealTool(l *Lock, i int) error {
	d, err := canon.Hash(ToolBody(l.Tools[i], l.SchemaVersion))
	if err != nil {
		return err
	}
	l.Tools[i].EntryDigest = d
	l.OverallDigest, err = OverallDigest(l)
	return err
}

// TestReadAnyMemberOrder: a lock whose members come in another order (the
// entries before schema_version, say) reads as the same lock.
func TestReadAnyMemberOrder(t *testing.T) {
	l := buildDemo(t)
	doc := ToValue(l)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(doc.Members), func(i, j int) {
		doc.Members[i], doc.Members[j] = doc.Members[j], doc.Members[i]
	})
	// Put the entries first for certain.
	for i, m := range doc.Members {
		if m.Key == "tools" {
			doc.Members[0], doc.Members[i] = doc.Members[i], doc.Members[0]
		}
	}
	back, err := Parse(pyfmt.DumpsIndent(doc, 2))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Marshal(back), Marshal(l)) {
		t.Fatal("reordered lock reads differently")
	}
	if err := Verify(back); err != nil {
		t.Fatal(err)
	}
}

// TestBuilderOrderIndependent: entries added in any order make the same lock.
func TestBuilderOrderIndependent(t *testing.T) {
	s := genSurface(t, 30)
	want, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder()
	tools := append([]surface.Tool(nil), s.Tools...)
	rand.New(rand.NewPCG(5, 6)).Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
	for _, tool := range tools {
		if err := b.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.SetServer(s.Server); err != nil {
		t.Fatal(err)
	}
	got, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Marshal(got), Marshal(want)) {
		t.Fatal("shuffled entries give another lock")
	}
	if _, err := NewBuilder().Finish(); err == nil {
		t.Fatal("a lock without a server identity was finished")
	}
}

// TestParseSkipsAfterRefusal: after a structural refusal the rest of the
// document is still read, so that a JSON-level problem later on is the one
// reported, as when the document was parsed whole first.
func TestParseSkipsAfterRefusal(t *testing.T) {
	good := string(Marshal(buildDemo(t)))
	bad := strings.Replace(good, `"warden_version": "1.2.3",`, `"warden_version": 7,`, 1)
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "$.warden_version: must be a string") {
		t.Fatalf("structural refusal: %v", err)
	}
	if _, err := Parse([]byte(bad + "x")); err == nil || !strings.Contains(err.Error(), "unexpected data after the JSON value") {
		t.Fatalf("JSON-level refusal later on: %v", err)
	}
}

// checkBuiltDigest holds a freshly built tool's entry digest and compact
// skeletons, written straight from the skeleton records, to the tree path:
// the hash of toolObject with the skeletons' Value trees, and RawOf them.
func checkBuiltDigest(t *testing.T, tool surface.Tool) {
	t.Helper()
	e, err := BuildTool(tool)
	if err != nil {
		return
	}
	in := tool.InputSchema
	if in == nil {
		in = jsonv.NewNull()
	}
	skel := skeleton.Extract(in).Value()
	var out *jsonv.Value
	if !tool.OutputSchema.IsNull() {
		out = skeleton.Extract(tool.OutputSchema).Value()
	}
	want, err := canon.Hash(toolObject(e, skel, out, false))
	if err != nil {
		t.Fatalf("tool %q: the tree path refuses what the direct one took: %v", tool.Name, err)
	}
	if e.EntryDigest != want {
		t.Fatalf("tool %q: entry digest %s, tree path %s", tool.Name, e.EntryDigest, want)
	}
	if e.SchemaSkeleton != jsonv.RawOf(skel) || e.OutputSchemaSkeleton != jsonv.RawOf(out) {
		t.Fatalf("tool %q: compact skeletons differ from the trees'", tool.Name)
	}
	// A Builder that built another tool first (its buffers reused) builds
	// the same entry.
	b := NewBuilder()
	other, err := jsonv.Parse([]byte(`{"type":"object","properties":{"zz":{"enum":["q",1]},"a":{"$ref":"#/$defs/d"}},"$defs":{"d":{"maxLength":3}}}`), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.AddTool(surface.Tool{Name: "\x00other", InputSchema: other, OutputSchema: other}); err != nil {
		t.Fatal(err)
	}
	if err := b.AddTool(tool); err != nil {
		t.Fatalf("tool %q: a Builder refuses what BuildTool took: %v", tool.Name, err)
	}
	got := b.l.Tools[1]
	if got.EntryDigest != e.EntryDigest || got.SchemaSkeleton != e.SchemaSkeleton || got.OutputSchemaSkeleton != e.OutputSchemaSkeleton {
		t.Fatalf("tool %q: a reused Builder builds another entry", tool.Name)
	}
}

func TestBuiltDigestMatchesTree(t *testing.T) {
	for _, text := range []string{demoSurface, string(genSurfaceJSON(50))} {
		v, err := jsonv.Parse([]byte(text), jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := surface.FromVector(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range s.Tools {
			checkBuiltDigest(t, tool)
		}
	}
}

func FuzzBuiltDigest(f *testing.F) {
	f.Add("t", `{"type":"object","properties":{"a":{"type":"string","enum":["x",1.50,{"b":1,"a":2}]}}}`, `{"type":"object"}`)
	f.Add("read_file", `{"properties":{"\ue000":{},"\ud83d\ude00":{"maximum":1e2}}}`, `null`)
	f.Add("x", `7`, `{"properties":{"o":{"$ref":"#/$defs/d"}},"$defs":{"d":{"minimum":-0}}}`)
	f.Fuzz(func(t *testing.T, name, input, output string) {
		in, err := jsonv.Parse([]byte(input), jsonv.Options{})
		if err != nil {
			return
		}
		out, err := jsonv.Parse([]byte(output), jsonv.Options{})
		if err != nil {
			return
		}
		checkBuiltDigest(t, surface.Tool{Name: name, InputSchema: in, OutputSchema: out})
	})
}

// checkWorkersAgree: reading with tool workers gives the lock, or the
// error, of reading with none.
func checkWorkersAgree(t *testing.T, data []byte) {
	t.Helper()
	opts := jsonv.Options{MaxDepth: canon.MaxDepth}
	want, werr := decodeOn(jsonv.NewBytesDecoder(data, opts), 0)
	for _, n := range []int{1, 3} {
		got, gerr := decodeOn(jsonv.NewBytesDecoder(data, opts), n)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("%d workers: error %v, none: %v", n, gerr, werr)
		}
		if werr == nil && !bytes.Equal(Marshal(got), Marshal(want)) {
			t.Fatalf("%d workers read another lock", n)
		}
	}
	if werr != nil {
		return
	}
	// The digests remembered while reading (around transcoded skeletons)
	// are those of the entries' bodies.
	for i, tool := range want.Tools {
		if tool.memo == nil {
			continue
		}
		d, err := canon.Hash(ToolBody(tool, want.SchemaVersion))
		if err != nil || d != tool.memo.digest {
			t.Fatalf("tools[%d]: remembered digest %s, body's %s (%v)", i, tool.memo.digest, d, err)
		}
	}
}

// TestReadMemoMatchesBody: skeletons stored in any key order, with floats,
// escapes and astral keys, on v1, v3 and v4 entries with and without
// inspection blocks: the digest remembered while reading is the body's.
func TestReadMemoMatchesBody(t *testing.T) {
	for name, l := range streamLocks(t) {
		text := Marshal(l)
		checkWorkersAgree(t, text)
		// The same document with every object's members reversed.
		v, err := jsonv.Parse(text, jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var reverse func(v *jsonv.Value)
		reverse = func(v *jsonv.Value) {
			slices.Reverse(v.Members)
			for _, m := range v.Members {
				reverse(m.Value)
			}
			for _, it := range v.Items {
				reverse(it)
			}
		}
		reverse(v)
		checkWorkersAgree(t, []byte(v.Compact()))
		back, err := Parse([]byte(v.Compact()))
		if err != nil {
			t.Fatalf("%s reversed: %v", name, err)
		}
		if err := Verify(back); err != nil {
			t.Fatalf("%s reversed: %v", name, err)
		}
	}
	odd := strings.NewReplacer(`"maxLength": 64`, `"maxLength": 6.4e1`, `"path_0"`, `"pa\u0074h_0"`).Replace(string(Marshal(genLock(t, 5))))
	checkWorkersAgree(t, []byte(odd))
}

// TestReadWorkersKeepDocumentOrder: with tool entries checked on other
// goroutines, the refusal reported is still the first in document order.
func TestReadWorkersKeepDocumentOrder(t *testing.T) {
	l := genLock(t, 40)
	good := string(Marshal(l))
	tool := func(i int) string { return `"name": "` + l.Tools[i].Name + `"` }
	cases := map[string]struct{ text, want string }{
		"tool, then findings": {
			strings.Replace(strings.Replace(good, tool(5), `"name": 5`, 1), `"findings": []`, `"findings": [7]`, 1),
			"$.tools[5].name: must be a string"},
		"server, then a tool": {
			strings.Replace(strings.Replace(good, `"command": "node"`, `"command": 1`, 1), tool(30), `"name": 5`, 1),
			"$.server.command: must be a string"},
		"two tools": {
			strings.Replace(strings.Replace(good, tool(30), `"name": 5`, 1), tool(12), `"name": []`, 1),
			"$.tools[12].name: must be a string"},
		"tool, then bad JSON": {
			strings.Replace(good, tool(3), `"name": 5`, 1) + "]",
			"not a valid lock document"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			checkWorkersAgree(t, []byte(tc.text))
			_, err := Parse([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	checkWorkersAgree(t, []byte(good))
}

// TestReadWorkersReportEarliestFailure: with two bad tools the error names
// the first whatever the workers' scheduling. A worker that took the first
// off the queue but checked it after another worker had found the second
// used to skip it, reporting tools[30].
func TestReadWorkersReportEarliestFailure(t *testing.T) {
	l := genLock(t, 40)
	good := string(Marshal(l))
	tool := func(i int) string { return `"name": "` + l.Tools[i].Name + `"` }
	text := []byte(strings.Replace(strings.Replace(good, tool(30), `"name": 5`, 1), tool(12), `"name": []`, 1))
	opts := jsonv.Options{MaxDepth: canon.MaxDepth}
	for i := 0; i < 300; i++ {
		_, err := decodeOn(jsonv.NewBytesDecoder(text, opts), 8)
		if err == nil || !strings.Contains(err.Error(), "$.tools[12].name") {
			t.Fatalf("run %d: err = %v, want the error at tools[12]", i, err)
		}
	}
}

func TestAbsenceDigests(t *testing.T) {
	for want, v := range map[string]*jsonv.Value{
		emptyStringDigest: jsonv.NewString(""),
		emptyObjectDigest: jsonv.NewObject(),
		emptyArrayDigest:  jsonv.NewArray(),
		nullDigest:        jsonv.NewNull(),
	} {
		if got, err := canon.Hash(v); err != nil || got != want {
			t.Errorf("hash(%s) = %s, %v; want %s", v.Compact(), got, err, want)
		}
	}
}

// TestWriteFileChecked: a failing check leaves the path as it was; a
// passing one writes the lock.
func TestWriteFileChecked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warden.lock")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := buildDemo(t)
	refused := errors.New("refused")
	if err := WriteFileChecked(path, l, func() error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("a refused write replaced the file: %q", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	if err := WriteFileChecked(path, l, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, Marshal(l)) {
		t.Fatal("the checked write wrote something else")
	}
}

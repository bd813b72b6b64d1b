package lock

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// hostileBase is a valid lock with an entry of every kind and a finding,
// the text the hostile locks are made from.
func hostileBase(t *testing.T) string {
	t.Helper()
	const doc = `{"command": "node", "args": ["s.js"],
	 "tools": [{"name": "t0", "description": "d", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}],
	 "resources": [{"uri": "file:///a", "name": "a"}],
	 "prompts": [{"name": "p", "arguments": []}]}`
	l := buildFrom(t, doc)
	l.Findings = []Finding{{RuleID: "R", Severity: "low", Target: "tools/t0", Message: "m", Snippet: "s"}}
	return string(Marshal(l))
}

// buildFrom builds the lock of a surface document, with a pin.
func buildFrom(t *testing.T, doc string) *Lock {
	t.Helper()
	v, err := jsonv.Parse([]byte(doc), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l.Pin = NewPin(PinInfo{Version: "dev", Actor: "a"}, l.OverallDigest)
	return l
}

// payloads are members a few megabytes long whose trees would cost forty
// times their text: small values, tiny containers, many keys.
func payloads(size int) map[string]string {
	rep := func(open, item, close string) string {
		n := size / (len(item) + 1)
		return open + strings.Repeat(item+",", n) + item + close
	}
	var keys strings.Builder
	keys.WriteByte('{')
	for i := 0; keys.Len() < size; i++ {
		fmt.Fprintf(&keys, `"%x":0,`, i)
	}
	keys.WriteString(`"":0}`)
	return map[string]string{
		"zeros":   rep("[", "0", "]"),
		"lists":   rep("[", "[]", "]"),
		"objects": rep("[", "{}", "]"),
		"nested":  rep("[", "[[[[[[0]]]]]]", "]"),
		"strings": rep("[", `"a"`, "]"),
		"keys":    keys.String(),
	}
}

// insertAfter puts `"zz": payload,` into text right after the first
// occurrence of anchor, which opens an object.
func insertAfter(t *testing.T, text, anchor, payload string) string {
	t.Helper()
	i := strings.Index(text, anchor)
	if i < 0 {
		t.Fatalf("no %q in the lock", anchor)
	}
	i += len(anchor)
	return text[:i] + `"zz": ` + payload + `, ` + text[i:]
}

// readMeasured writes text to a file, reads and verifies it as check does,
// and returns the outcome and the peak heap growth while it ran.
func readMeasured(t *testing.T, text string) (error, uint64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "warden.lock")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	peak := peakHeapDuring(func() {
		var l *Lock
		if l, err = ReadFile(path); err == nil {
			err = Verify(l)
		}
	})
	return err, peak
}

// checkPeak fails when reading cost more than ten times the file (and a
// few megabytes for the runtime and the reader's fixed buffers).
func checkPeak(t *testing.T, size int, peak uint64) {
	t.Helper()
	const slack = 8 << 20
	if peak > 10*uint64(size)+slack {
		t.Fatalf("reading %d bytes peaked at %d bytes of heap (%.1f times the file)", size, peak, float64(peak)/float64(size))
	}
	t.Logf("%d bytes: peak heap %.1f times the file", size, float64(peak)/float64(size))
}

// TestReadHostileUnknownMembers puts a large member nobody knows in every
// object of a lock: the top level, the server, each kind of entry, a
// finding. The lock still reads and verifies (unknown members are
// ignored), and reading it costs a few times its size, where the
// members' trees cost some forty times (1.9 GB for 20 MB).
func TestReadHostileUnknownMembers(t *testing.T) {
	base := hostileBase(t)
	anchors := map[string]string{
		"top":      "{",
		"server":   `"server": {`,
		"tool":     `"tools": [` + "\n    {",
		"resource": `"resources": [` + "\n    {",
		"prompt":   `"prompts": [` + "\n    {",
		"finding":  `"findings": [` + "\n    {",
	}
	for shape, payload := range payloads(6 << 20) {
		for where, anchor := range anchors {
			t.Run(where+"/"+shape, func(t *testing.T) {
				text := insertAfter(t, base, anchor, payload)
				err, peak := readMeasured(t, text)
				if err != nil {
					t.Fatalf("the lock was refused: %v", err)
				}
				checkPeak(t, len(text), peak)
			})
		}
	}
}

// TestReadHostileKeptMembers aims at the members a lock reader keeps as
// trees (the pin, with the keys of other writers, its pinner and
// attestations; a tool's inspection block) and at lists it keeps
// (capabilities, the server's arguments): each is bounded, and a lock
// past the bound is refused with one line naming the member, at the
// memory of the bound, not of the member.
func TestReadHostileKeptMembers(t *testing.T) {
	base := hostileBase(t)
	zeros := "[" + strings.Repeat("0,", 3<<20) + "0]"
	strs := "[" + strings.Repeat(`"a",`, 2<<20) + `"a"]`
	tests := []struct {
		name, text, want string
	}{
		{"pin", insertAfter(t, base, `"pin": {`, zeros), "$.pin holds more than 65536 JSON values"},
		{"pinner", insertAfter(t, base, `"pinner": {`, zeros), "$.pin holds more than 65536 JSON values"},
		{"attestation", strings.Replace(base, `"attestations": []`, `"attestations": [{"actor": "a", "created_at": "c", "bound_digest": "b", "zz": `+zeros+`}]`, 1), "$.pin holds more than 65536 JSON values"},
		{"inspection", strings.Replace(base, `"capabilities": [],`, `"capabilities": [], "inspection": {"zz": `+zeros+`},`, 1), "$.tools[0].inspection holds more than 4096 JSON values"},
		{"capabilities", strings.Replace(base, `"capabilities": [],`, `"capabilities": `+strs+`,`, 1), "$.tools[0].capabilities: has more than 1024 items"},
		{"capability not a string", strings.Replace(base, `"capabilities": [],`, `"capabilities": `+zeros+`,`, 1), "$.tools[0].capabilities[0]: must be a string, found integer"},
		{"name not a string", strings.Replace(base, `"name": "t0"`, `"name": `+zeros, 1), "$.tools[0].name: must be a string, found array"},
		{"skeleton not an object", strings.Replace(base, `"output_schema_skeleton": null`, `"output_schema_skeleton": `+zeros, 1), "$.tools[0].output_schema_skeleton: must be an object or null, found array"},
		{"args", strings.Replace(base, `"s.js"`, strings.Repeat(`"a",`, 1<<16)+`"s.js"`, 1), "$.server.args: has more than 65536 items"},
		{"tools not a list", strings.Replace(base, `"tools": [`, `"tools": {"zz": `+zeros+`}, "x": [`, 1), "$.tools: must be an array, found object"},
		{"document not an object", zeros, "$: must be an object, found array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err, peak := readMeasured(t, tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error = %v, want one line with %q", err, tc.want)
			}
			checkPeak(t, len(tc.text), peak)
		})
	}
}

// TestReadHostileKnownBulk reads valid locks whose bulk is in members
// the reader must read: many small tools, a schema skeleton with a long
// enum, many resources, prompts and findings. Each costs a few times
// its text.
func TestReadHostileKnownBulk(t *testing.T) {
	many := func(n int, item func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item(i)
		}
		return strings.Join(parts, ",")
	}
	enum := many(1<<20, func(i int) string { return fmt.Sprint(i % 10) })
	docs := map[string]string{
		"tools": `{"command": "node", "tools": [` + many(20_000, func(i int) string { return fmt.Sprintf(`{"name": "%x"}`, i) }) + `]}`,
		"enum":  `{"command": "node", "tools": [{"name": "t", "inputSchema": {"properties": {"a": {"enum": [` + enum + `]}}}}]}`,
		"resources": `{"command": "node", "resources": [` + many(100_000, func(i int) string { return fmt.Sprintf(`{"uri": "%x"}`, i) }) + `],
		 "prompts": [` + many(100_000, func(i int) string { return fmt.Sprintf(`{"name": "%x"}`, i) }) + `]}`,
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			l := buildFrom(t, doc)
			if name == "resources" {
				for i := range 100_000 {
					l.Findings = append(l.Findings, Finding{RuleID: "R", Severity: "low", Target: fmt.Sprint(i), Message: "m", Snippet: ""})
				}
			}
			text := string(Marshal(l))
			err, peak := readMeasured(t, text)
			if err != nil {
				t.Fatal(err)
			}
			checkPeak(t, len(text), peak)
		})
	}
}

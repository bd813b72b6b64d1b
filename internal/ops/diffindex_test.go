package ops

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

// diffSurface is a small surface whose tools have input and output
// schemas and annotations, with edit applied to the text of tool i.
func diffSurface(edit func(i int, tool string) string) string {
	var b strings.Builder
	b.WriteString(`{"tools": [`)
	for i := 0; i < 12; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		tool := fmt.Sprintf(`{"name": "t%02d_write_file", "description": "writes sk-%024d", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "enum": ["a", "b%d"]}, "content": {"type": "string"}}, "required": ["path"]}, "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}, "annotations": {"readOnlyHint": false}}`, (i*5)%12, i, i)
		if edit != nil {
			tool = edit(i, tool)
		}
		b.WriteString(tool)
	}
	b.WriteString(`], "resources": [{"uri": "file:///r"}], "prompts": [{"name": "p"}], "command": "node", "args": ["s.js"]}`)
	return b.String()
}

// TestDiffTakesEntriesFromA checks that a diff, whose B takes from A the
// entries whose text A holds, reports what comparing the two locks read
// the plain way reports, and still refuses a B whose entry was tampered
// with.
func TestDiffTakesEntriesFromA(t *testing.T) {
	dir := t.TempDir()
	pin := func(name string, edit func(int, string) string) string {
		surf := filepath.Join(dir, name+".json")
		if err := os.WriteFile(surf, []byte(diffSurface(edit)), 0o644); err != nil {
			t.Fatal(err)
		}
		l := filepath.Join(dir, name+".lock")
		if _, err := Pin(context.Background(), PinOptions{Surface: surf, LockPath: l, Version: "test", NoSnapshot: true}); err != nil {
			t.Fatal(err)
		}
		return l
	}
	a := pin("a", nil)
	third := func(f func(string) string) func(int, string) string {
		return func(i int, s string) string {
			if i == 3 {
				return f(s)
			}
			return s
		}
	}
	for name, b := range map[string]string{
		"same": pin("same", nil),
		"schema": pin("schema", third(func(s string) string {
			return strings.Replace(s, `"content": {"type": "string"}`, `"content": {"type": "integer"}`, 1)
		})),
		"description": pin("description", third(func(s string) string { return strings.Replace(s, `"writes `, `"deletes `, 1) })),
		"renamed":     pin("renamed", third(func(s string) string { return strings.Replace(s, `_write_file"`, `_write_files"`, 1) })),
	} {
		res, err := Diff(context.Background(), a, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		la, err1 := lock.ReadFile(a)
		lb, err2 := lock.ReadFile(b)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if want := drift.Compare(la, lb); !reflect.DeepEqual(res.Drift, want) || (name == "same") != (len(want) == 0) {
			t.Errorf("%s: drift\n got %v\nwant %v", name, res.Drift, want)
		}
	}
	// A tampered entry in B: its text is not A's, so it is read and
	// checked, and B is refused.
	text, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	tb := filepath.Join(dir, "tampered.lock")
	at := bytes.LastIndex(text, []byte(`"schema_skeleton"`))
	k := bytes.Index(text[at:], []byte(`"string"`))
	if at < 0 || k < 0 {
		t.Fatalf("no string type in a schema skeleton:\n%s", text)
	}
	tampered := append(append(append([]byte{}, text[:at+k]...), `"number"`...), text[at+k+len(`"string"`):]...)
	if err := os.WriteFile(tb, tampered, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Diff(context.Background(), a, tb); err == nil || !strings.Contains(err.Error(), "tampered.lock does not verify") {
		t.Fatalf("err = %v, want B refused as not verifying", err)
	}
}

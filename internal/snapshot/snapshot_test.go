package snapshot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// sample is a surface file with what a snapshot must keep exactly: number
// literals, explicit nulls, unknown keys inside values, unsorted entries,
// non-ASCII and invisible characters.
const sample = `{"tools": [
 {"name": "zeta", "description": "Writes a file.\nSecond line \"quoted\"", "inputSchema": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b", 1.0, 1e2, null]}, "n": {"type": "integer", "minimum": -0, "x-vendor": {"deep": [true, false]}}}, "required": ["mode"]}, "annotations": {"readOnlyHint": false, "destructiveHint": null}, "ignored": 1},
 {"name": "alpha", "description": null, "inputSchema": {}, "outputSchema": {"type": "object"}},
 {"name": "émoji🙂", "description": "bidi \u202e here, zero\u200bwidth, DEL \u007f"}
], "resources": [{"uri": "file:///b", "name": "b", "mimeType": null}, {"uri": "file:///a", "description": "A"}],
 "prompts": [{"name": "p2", "arguments": [{"name": "x", "required": true}]}, {"name": "p1", "description": "d"}],
 "command": "node", "args": ["server.js", "--flag"], "protocolVersion": "2025-06-18"}`

func sampleSurface(t *testing.T, text string) *surface.Surface {
	t.Helper()
	v, err := jsonv.Parse([]byte(text), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// lockOf builds the lock a pin of s writes, with its protocol version.
func lockOf(t *testing.T, s *surface.Surface) *lock.Lock {
	t.Helper()
	l, err := lock.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l.Pin.MCPProtocolVersion = s.ProtocolVersion
	return l
}

func TestPath(t *testing.T) {
	cases := []struct{ lock, want string }{
		{"warden.lock", "warden.surface.json"},
		{"dir/warden.lock", "dir/warden.surface.json"},
		{"locks/github.warden.lock", "locks/github.warden.surface.json"},
		{"x.lock", "x.surface.json"},
		{"/a/b/x.y.lock", "/a/b/x.y.surface.json"},
		{".lock", ".lock.surface.json"},
		{"lockfile", "lockfile.surface.json"},
		{"dir.lock/file", "dir.lock/file.surface.json"},
	}
	for _, c := range cases {
		if got := Path(c.lock); got != c.want {
			t.Errorf("Path(%q) = %q, want %q", c.lock, got, c.want)
		}
	}
}

// TestRoundTrip: a snapshot reads back as the surface it was written
// from, verifies against that surface's lock, and writes the same bytes
// again; its order and format are canonical.
func TestRoundTrip(t *testing.T) {
	s := sampleSurface(t, sample)
	text := Marshal(s)
	snap, err := Decode(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, text)
	}
	if err := Verify(snap, lockOf(t, s)); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if again := Marshal(snap.Surface); !bytes.Equal(again, text) {
		t.Fatalf("rewrite differs:\n%s\n---\n%s", text, again)
	}
	for _, want := range []string{
		"\n  \"command\": \"node\",\n  \"args\": [\n    \"server.js\",\n",
		`"enum": [` + "\n",
		"\n              \"a\",\n              \"b\",\n",
		"1.0,\n", "1e2,\n", "null\n", `"minimum": -0,`,
		`"x-vendor": {`,
		`"description": "Writes a file.\nSecond line \"quoted\"",`,
		`"destructiveHint": null`,
		`bidi \u202e here, zero\u200bwidth, DEL \u007f`,
		`"name": "émoji🙂"`,
	} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("snapshot lacks %q:\n%s", want, text)
		}
	}
	if bytes.Contains(text, []byte("ignored")) {
		t.Errorf("snapshot keeps an item member the lock does not hash")
	}
	order := []string{`"alpha"`, `"zeta"`, `"émoji🙂"`, `"file:///a"`, `"file:///b"`, `"p1"`, `"p2"`}
	last := -1
	for _, o := range order {
		i := bytes.Index(text, []byte(o))
		if i < last {
			t.Errorf("%s is out of code-point order", o)
		}
		last = i
	}
	if !bytes.HasSuffix(text, []byte("}\n")) {
		t.Errorf("snapshot does not end in a newline")
	}
}

// TestVerifyRefusesTampering: each edit of a verified snapshot is refused
// with the first difference named.
func TestVerifyRefusesTampering(t *testing.T) {
	s := sampleSurface(t, sample)
	l := lockOf(t, s)
	text := string(Marshal(s))
	cases := []struct{ name, old, new, want string }{
		{"description", `Writes a file.`, `Writes a fil3.`, `tool "zeta": description_hash`},
		{"enum value", "\"b\",\n", "\"c\",\n", `tool "zeta": input_schema_hash`},
		{"number literal", "1e2,", "100,", `tool "zeta": schema_skeleton`},
		{"annotation", `"readOnlyHint": false`, `"readOnlyHint": true`, `tool "zeta": annotations_hash`},
		{"unknown key in item", `"name": "alpha",`, `"name": "alpha", "extra": 1,`, `$.tools[0].extra is not part of a surface`},
		{"unknown key at top", `"command": "node",`, `"command": "node", "note": "trust me",`, `$.note is not part of a surface`},
		{"unknown key in schema", `"type": "integer",`, `"type": "integer", "format": "x",`, `tool "zeta": input_schema_hash`},
		{"server", `"server.js"`, `"evil.js"`, `server: command_digest`},
		{"protocol", `"2025-06-18"`, `"2024-11-05"`, `protocolVersion`},
		{"resource mime", `"mimeType": null`, `"mimeType": "text/plain"`, `resource "file:///b": mime_type`},
		{"prompt args", `"required": true`, `"required": false`, `prompt "p2": arguments_hash`},
		{"tool renamed", `"name": "alpha"`, `"name": "alpha2"`, `tool "alpha" is in the lock but not in the snapshot`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(text, c.old) {
				t.Fatalf("sample lacks %q", c.old)
			}
			snap, err := Decode(strings.NewReader(strings.Replace(text, c.old, c.new, 1)))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			err = Verify(snap, l)
			var me *MismatchError
			if !errors.As(err, &me) || !strings.HasPrefix(err.Error(), "snapshot does not match lock: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify = %v, want a mismatch naming %q", err, c.want)
			}
		})
	}
	t.Run("tool removed", func(t *testing.T) {
		cut := *s
		cut.Tools = cut.Tools[:1]
		snap, err := Decode(bytes.NewReader(Marshal(&cut)))
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(snap, l); err == nil || !strings.Contains(err.Error(), `is in the lock but not in the snapshot`) {
			t.Fatalf("Verify = %v", err)
		}
	})
	t.Run("old schema", func(t *testing.T) {
		snap, _ := Decode(strings.NewReader(text))
		old := *l
		old.SchemaVersion = 3
		if err := Verify(snap, &old); err == nil || !strings.Contains(err.Error(), "schema_version 3") {
			t.Fatalf("Verify = %v", err)
		}
	})
}

func TestDecodeRefuses(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"not json", `{"tools": [`, "not a valid snapshot"},
		{"not object", `[]`, "not a JSON object"},
		{"repeated key", `{"command": "a", "command": "b"}`, "not a valid snapshot"},
		{"no server", `{"tools": []}`, "names no server"},
		{"tools not array", `{"command": "a", "tools": {}}`, "tools is not an array"},
		{"item not object", `{"command": "a", "tools": [1]}`, "$.tools[0] is not an object"},
		{"repeated tool", `{"command": "a", "tools": [{"name": "x"}, {"name": "x"}]}`, "$.tools[1] repeats an identity"},
		{"bad tool", `{"command": "a", "tools": [{"name": 1}]}`, "$.tools[0]"},
		{"trailing", `{"command": "a"} x`, "not a valid snapshot"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Decode = %v, want %q", err, c.want)
			}
		})
	}
}

func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(context.Background(), filepath.Join(dir, "none.surface.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := ReadFile(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := filepath.Join(dir, "s.surface.json")
	os.WriteFile(p, Marshal(sampleSurface(t, sample)), 0o644)
	if _, err := ReadFile(ctx, p); err == nil {
		t.Errorf("cancelled read succeeded")
	}
	if _, err := ReadFile(context.Background(), p); err != nil {
		t.Errorf("read: %v", err)
	}
}

func TestScreen(t *testing.T) {
	secret := "ghp_" + strings.Repeat("A1b2", 9)
	s := sampleSurface(t, strings.Replace(sample, `"Writes a file.`, `"Writes a file with `+secret+`.`, 1))
	err := NewParts(s).Screen(nil)
	var se *SecretError
	if !errors.As(err, &se) {
		t.Fatalf("Screen = %v", err)
	}
	msg := err.Error()
	if strings.Contains(msg, secret) || !strings.Contains(msg, "$.tools[1].description") || !strings.Contains(msg, "--allow-secret-in-snapshot") {
		t.Fatalf("message does not name where without the value: %s", msg)
	}
	if err := NewParts(sampleSurface(t, sample)).Screen(nil); err != nil {
		t.Fatalf("clean: %v", err)
	}
	// A key that is a secret is named by its place, never spelled.
	keyed := sampleSurface(t, strings.Replace(sample, `"x-vendor":`, `"`+secret+`":`, 1))
	err = NewParts(keyed).Screen(nil)
	if err == nil || strings.Contains(err.Error(), secret[:12]) || !strings.Contains(err.Error(), "$.tools[1].inputSchema.properties.n[\"(a key)\"] (WRD-SEC-GITHUB") {
		t.Fatalf("secret key: %v", err)
	}
	handed := func(v string) bool { return v == "d" }
	if err := NewParts(sampleSurface(t, sample)).Screen(handed); err == nil || !strings.Contains(err.Error(), "$.prompts[0].description (a value handed") {
		t.Fatalf("handed: %v", err)
	}
	// The launch is the lock's to screen.
	if err := NewParts(sampleSurface(t, strings.Replace(sample, `"--flag"`, `"`+secret+`"`, 1))).Screen(func(v string) bool { return v == "--flag" }); err != nil {
		t.Fatalf("launch screened: %v", err)
	}
}

// TestStage: a staged snapshot replaces the file only on Commit; Discard
// leaves it as it was; a symbolic link is never written through.
func TestStage(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "warden.surface.json")
	os.WriteFile(p, []byte("old"), 0o644)
	st, err := Stage(p, bytes.NewReader([]byte("new")))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("staging replaced the file")
	}
	st.Discard()
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("discard changed the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("discard left %d files", len(ents))
	}
	st, _ = Stage(p, bytes.NewReader([]byte("new")))
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("commit did not replace the file")
	}
	link := filepath.Join(dir, "link.surface.json")
	os.Symlink(p, link)
	if _, err := Stage(link, bytes.NewReader([]byte("x"))); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("symlink: %v", err)
	}
	if err := Remove(link); err == nil {
		t.Fatalf("Remove removed a link")
	}
	if err := Remove(p); err != nil || Exists(p) {
		t.Fatalf("Remove: %v", err)
	}
	if err := Remove(p); err != nil {
		t.Fatalf("Remove of nothing: %v", err)
	}

	// A rename that fails (a directory took the path after staging)
	// removes the staged file and says the old snapshot is still there.
	st, err = Stage(p, bytes.NewReader([]byte("new")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(); err == nil || !strings.Contains(err.Error(), "could not be removed either") {
		t.Fatalf("Commit over a directory: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 { // the link and the directory
		t.Fatalf("a failed commit left %d entries", len(ents))
	}
}

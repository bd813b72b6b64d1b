package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/surface"
)

// updateEnv makes TestOwnVectors rewrite vectors/ instead of checking it.
const updateEnv = "WARDEN_UPDATE_VECTORS"

// ownCase is one case warden's own corpus carries, defined here so that its
// expected values are derived by the same code path a reader would check.
// Every expectation that is not a digest (capabilities, refusals) is written
// by hand in the definition; digests are computed.
type ownCase struct {
	name, kind, description string
	// body builds the kind-specific members (without id/kind/description).
	body func(t *testing.T) []jsonv.Member
}

func parseT(t *testing.T, s string) *jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(s), jsonv.Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

// digestCase builds a digest case from a surface, asserting the hand-written
// capabilities before recording the computed entries.
func digestCase(surfaceJSON string, wantCaps map[string]string) func(t *testing.T) []jsonv.Member {
	return func(t *testing.T) []jsonv.Member {
		sv := parseT(t, surfaceJSON)
		s, err := surface.FromVector(sv)
		if err != nil {
			t.Fatal(err)
		}
		l, err := lock.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range l.Tools {
			want, ok := wantCaps[tool.Name]
			if !ok {
				t.Fatalf("no expected capabilities written for tool %q", tool.Name)
			}
			if got := strings.Join(tool.Capabilities, ","); got != want {
				t.Fatalf("tool %q capabilities = %q, want %q", tool.Name, got, want)
			}
		}
		doc := lock.ToValue(l)
		return []jsonv.Member{
			jsonv.M("surface", sv),
			jsonv.M("expect", jsonv.NewObject(
				jsonv.M("server", jsonv.NewObject(jsonv.M("command_digest", jsonv.NewString(l.Server.CommandDigest)))),
				jsonv.M("tools", doc.Get("tools")),
				jsonv.M("resources", doc.Get("resources")),
				jsonv.M("prompts", doc.Get("prompts")),
				jsonv.M("overall_digest", jsonv.NewString(l.OverallDigest)),
			)),
		}
	}
}

func errorExpect() jsonv.Member {
	return jsonv.M("expect", jsonv.NewObject(jsonv.M("error", jsonv.NewBool(true))))
}

// validLockText is a small, valid, self-consistent lock document.
func validLock(t *testing.T) *lock.Lock {
	s, err := surface.FromVector(parseT(t, `{"command": "node", "args": ["server.js"], "tools": [{"name": "echo", "description": "Echo text.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}], "resources": [], "prompts": []}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l.WardenVersion = "0.0.0"
	l.Pin = lock.Pin{CreatedAt: "2026-01-01T00:00:00Z", WardenVersion: "0.0.0", MCPProtocolVersion: "2025-06-18"}
	return l
}

const validSurface = `{"command": "node", "args": ["server.js"], "tools": [{"name": "echo", "description": "Echo text.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}], "resources": [], "prompts": []}`

func lockText(edit func(string) string) func(t *testing.T) []jsonv.Member {
	return func(t *testing.T) []jsonv.Member {
		text := string(lock.Marshal(validLock(t)))
		if _, err := lock.Parse([]byte(text)); err != nil {
			t.Fatalf("the unedited lock must be valid: %v", err)
		}
		return []jsonv.Member{errorExpect(), jsonv.M("lock_text", jsonv.NewString(edit(text)))}
	}
}

func lockEdit(edit func(doc *jsonv.Value)) func(t *testing.T) []jsonv.Member {
	return func(t *testing.T) []jsonv.Member {
		doc := lock.ToValue(validLock(t))
		edit(doc)
		return []jsonv.Member{errorExpect(), jsonv.M("lock", doc)}
	}
}

// verifyRefused builds a lock_verify case: a valid lock edited by edit
// without resealing its digests. The case asserts that the edit leaves the
// lock readable, so that it exercises the self-check and not the reader.
func verifyRefused(l func(t *testing.T) *lock.Lock, edit func(doc *jsonv.Value)) func(t *testing.T) []jsonv.Member {
	return func(t *testing.T) []jsonv.Member {
		base := l(t)
		if err := lock.Verify(base); err != nil {
			t.Fatalf("the unedited lock must verify: %v", err)
		}
		doc := lock.ToValue(base)
		edit(doc)
		if _, err := lock.Parse(doc.AppendCompact(nil)); err != nil {
			t.Fatalf("the edited lock must still be readable: %v", err)
		}
		return []jsonv.Member{errorExpect(), jsonv.M("lock_verify", doc)}
	}
}

// validURLLock is a small, valid, self-consistent lock for a streamable
// HTTP server.
func validURLLock(t *testing.T) *lock.Lock {
	s, err := surface.FromVector(parseT(t, `{"url": "https://mcp.example.com/mcp", "tools": [{"name": "echo", "description": "Echo text."}], "resources": [], "prompts": []}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l.WardenVersion = "0.0.0"
	l.Pin = lock.Pin{CreatedAt: "2026-01-01T00:00:00Z", WardenVersion: "0.0.0", MCPProtocolVersion: "2025-06-18"}
	return l
}

func surfaceRefused(surfaceJSON string) func(t *testing.T) []jsonv.Member {
	return func(t *testing.T) []jsonv.Member {
		return []jsonv.Member{errorExpect(), jsonv.M("surface", parseT(t, surfaceJSON))}
	}
}

func nested(depth int) *jsonv.Value {
	v := jsonv.NewArray()
	for i := 0; i < depth; i++ {
		v = jsonv.NewArray(v)
	}
	return v
}

func ownCases() []ownCase {
	return []ownCase{
		{"tokenizer-edge-cases", "digest", "Capability tokenizer edge cases: Python lower-casing of U+0130, U+001C-001F and NBSP as delimiters, acronym and camel boundaries, whole-token matching.",
			digestCase(`{"command": "node", "args": ["s.js"], "tools": [
{"name": "l\u0130st", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
{"name": "READfile", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
{"name": "read\u001cfile", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
{"name": "get\u00a0list", "inputSchema": {"type": "object", "properties": {"src": {"type": "string"}}}},
{"name": "HTTPServer", "inputSchema": {"type": "object", "properties": {}}},
{"name": "shelter", "inputSchema": {"type": "object", "properties": {"scripted": {"type": "string"}}}},
{"name": "writeFile", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}},
{"name": "store", "inputSchema": {"type": "object", "properties": {"destPath": {"type": "string"}, "payloadBytes": {"type": "string"}}}},
{"name": "runQuery", "inputSchema": {"type": "object", "properties": {"nested": {"type": "object", "properties": {"sql": {"type": "string"}}}}}},
{"name": "open\u212Aey", "inputSchema": {"type": "object", "properties": {"file": {"type": "string"}}}}
], "resources": [], "prompts": []}`, map[string]string{
				"lİst":          "",
				"READfile":      "",
				"read\x1cfile":  "fs-read",
				"get\u00a0list": "fs-read",
				"HTTPServer":    "http-request",
				"shelter":       "",
				"writeFile":     "fs-write",
				"store":         "fs-write",
				"runQuery":      "sql-query",
				"open\u212Aey":  "",
			})},
		{"non-object-input-schema", "digest", "A present inputSchema that is not an object hashes as {} and yields the empty skeleton, whatever its type.",
			digestCase(`{"command": "node", "args": ["s.js"], "tools": [
{"name": "a_string", "inputSchema": "object"},
{"name": "b_array", "inputSchema": [{"type": "object"}]},
{"name": "c_number", "inputSchema": 5},
{"name": "d_true", "inputSchema": true},
{"name": "e_null", "inputSchema": null}
], "resources": [], "prompts": []}`, map[string]string{"a_string": "", "b_array": "", "c_number": "", "d_true": "", "e_null": ""})},
		{"entry-sorting-code-point", "digest", "Entries sort by code point (UTF-8 byte order), not by UTF-16 units: U+E000 sorts before the astral U+1F600 in tools, resources and prompts, while JCS key order inside entries stays UTF-16.",
			digestCase(`{"command": "node", "args": ["s.js"], "tools": [
{"name": "\ud83d\ude00-tool", "inputSchema": {"type": "object", "properties": {"\ud83d\ude00": {"type": "string"}, "\ue000": {"type": "string"}}}},
{"name": "\ue000-tool"},
{"name": "Z-tool"},
{"name": "a-tool"}
], "resources": [{"uri": "x://\ud83d\ude00"}, {"uri": "x://\ue000"}, {"uri": "x://a"}],
"prompts": [{"name": "\ud83d\ude00"}, {"name": "\ue000"}]}`, map[string]string{"😀-tool": "", "\ue000-tool": "", "Z-tool": "", "a-tool": ""})},
		{"lock-depth-512-accepted", "drift", "A lock document whose deepest element sits at depth 512 (in an unknown pin key) is read; the unchanged surface gives no drift.",
			func(t *testing.T) []jsonv.Member {
				l := validLock(t)
				// pin is at depth 1, the extra key's value at depth 2.
				l.Pin.Extra = []jsonv.Member{jsonv.M("x-deep", nested(510))}
				doc := lock.ToValue(l)
				if d := jsonv.MaxDepth(doc); d != 512 {
					t.Fatalf("depth = %d, want 512", d)
				}
				return []jsonv.Member{jsonv.M("lock", doc), jsonv.M("surface", parseT(t, validSurface)), jsonv.M("expect", jsonv.NewArray())}
			}},
		{"lock-depth-513-rejected", "malformed", "A lock document with one element at depth 513 is refused.",
			func(t *testing.T) []jsonv.Member {
				l := validLock(t)
				l.Pin.Extra = []jsonv.Member{jsonv.M("x-deep", nested(511))}
				return []jsonv.Member{errorExpect(), jsonv.M("lock_text", jsonv.NewString(string(lock.Marshal(l))))}
			}},
		{"lock-duplicate-key", "malformed", "A lock with a repeated object key is refused (Python's json would keep the last one silently).",
			lockText(func(s string) string {
				return strings.Replace(s, `"warden_version": "0.0.0",`, `"warden_version": "0.0.0", "warden_version": "9.9.9",`, 1)
			})},
		{"lock-duplicate-key-in-entry", "malformed", "A repeated key inside a tool entry is refused.",
			lockText(func(s string) string {
				return strings.Replace(s, `"name": "echo",`, `"name": "echo", "name": "other",`, 1)
			})},
		{"lock-nan", "malformed", "NaN is not JSON; a lock holding it is refused.",
			lockText(func(s string) string { return strings.Replace(s, `"pin": {`, `"pin": {"x-n": NaN, `, 1) })},
		{"lock-infinity", "malformed", "Infinity is not JSON; a lock holding it is refused.",
			lockText(func(s string) string { return strings.Replace(s, `"pin": {`, `"pin": {"x-n": -Infinity, `, 1) })},
		{"lock-bom", "malformed", "A lock starting with a UTF-8 byte order mark is refused.",
			lockText(func(s string) string { return "\ufeff" + s })},
		{"lock-lone-surrogate", "malformed", "A lock holding an unpaired surrogate escape is refused.",
			lockText(func(s string) string { return strings.Replace(s, `"pin": {`, `"pin": {"x-s": "\ud800", `, 1) })},
		{"lock-trailing-data", "malformed", "Anything but whitespace after the document is refused.",
			lockText(func(s string) string { return s + "{}\n" })},
		{"schema-version-float", "malformed", "schema_version written as a float (4.0) is refused: it must be a JSON integer.",
			lockText(func(s string) string { return strings.Replace(s, `"schema_version": 4,`, `"schema_version": 4.0,`, 1) })},
		{"schema-version-string-digit", "malformed", "schema_version written as a string (\"4\") is refused.",
			lockEdit(func(d *jsonv.Value) { d.Set("schema_version", jsonv.NewString("4")) })},
		{"schema-version-zero", "malformed", "schema_version 0 is not a format level.",
			lockEdit(func(d *jsonv.Value) { d.Set("schema_version", jsonv.NewInt(0)) })},
		{"schema-version-bool", "malformed", "schema_version true is refused.",
			lockEdit(func(d *jsonv.Value) { d.Set("schema_version", jsonv.NewBool(true)) })},
		{"approved-not-boolean", "malformed", "pin.approved must be a JSON boolean; \"yes\" is refused.",
			lockEdit(func(d *jsonv.Value) { d.Get("pin").Set("approved", jsonv.NewString("yes")) })},
		{"resource-missing-mime-type", "malformed", "A resource entry must carry mime_type (null allowed).",
			lockEdit(func(d *jsonv.Value) {
				d.Set("resources", jsonv.NewArray(jsonv.NewObject(
					jsonv.M("uri", jsonv.NewString("file:///x")), jsonv.M("name", jsonv.NewNull()),
					jsonv.M("description_hash", jsonv.NewString("sha256:0")), jsonv.M("entry_digest", jsonv.NewString("sha256:0")))))
			})},
		{"capabilities-not-strings", "malformed", "A tool's capabilities must be an array of strings.",
			lockEdit(func(d *jsonv.Value) { d.Get("tools").Items[0].Set("capabilities", jsonv.NewArray(jsonv.NewInt(1))) })},
		{"findings-not-array", "malformed", "findings must be an array.",
			lockEdit(func(d *jsonv.Value) { d.Set("findings", jsonv.NewObject()) })},
		{"lock-not-object", "malformed", "A lock document must be a JSON object.",
			func(t *testing.T) []jsonv.Member {
				return []jsonv.Member{errorExpect(), jsonv.M("lock_text", jsonv.NewString("[]"))}
			}},
		{"verify-command-edited", "malformed", "warden extension (lock_verify): server.command was edited and command_digest kept; the self-check recomputes command_digest from the stored launch and refuses the lock (the reference's check would report no drift).",
			verifyRefused(validLock, func(d *jsonv.Value) { d.Get("server").Set("command", jsonv.NewString("bash")) })},
		{"verify-args-edited", "malformed", "warden extension (lock_verify): an argument in server.args was edited and command_digest kept; refused.",
			verifyRefused(validLock, func(d *jsonv.Value) {
				d.Get("server").Set("args", jsonv.NewStrings([]string{"server.js", "--allow-all"}))
			})},
		{"verify-url-edited", "malformed", "warden extension (lock_verify): server.url of an HTTP server's lock was edited and command_digest (hash of {\"url\"}) kept; refused.",
			verifyRefused(validURLLock, func(d *jsonv.Value) { d.Get("server").Set("url", jsonv.NewString("https://evil.example/mcp")) })},
		{"verify-url-server-with-command", "malformed", "warden extension (lock_verify): an HTTP server's lock given a command, which its command_digest (hash of {\"url\"}) does not cover; refused.",
			verifyRefused(validURLLock, func(d *jsonv.Value) { d.Get("server").Set("command", jsonv.NewString("node")) })},
		{"verify-entry-edited", "malformed", "warden extension (lock_verify): a tool's description_hash was edited and its entry_digest and the overall digest kept; refused.",
			verifyRefused(validLock, func(d *jsonv.Value) {
				d.Get("tools").Items[0].Set("description_hash", jsonv.NewString("sha256:"+strings.Repeat("0", 64)))
			})},
		{"surface-annotations-string", "malformed", "warden extension: a surface whose tool annotations are present, non-null and not an object is refused by the builder (SPEC §7.1).",
			surfaceRefused(`{"command": "node", "args": [], "tools": [{"name": "t", "annotations": "yes"}], "resources": [], "prompts": []}`)},
		{"surface-annotations-array", "malformed", "warden extension: annotations given as an array are refused.",
			surfaceRefused(`{"command": "node", "args": [], "tools": [{"name": "t", "annotations": [{"readOnlyHint": true}]}], "resources": [], "prompts": []}`)},
		{"surface-output-schema-boolean", "malformed", "warden extension: an outputSchema that is a boolean schema (true) is refused: non-null values must be objects.",
			surfaceRefused(`{"command": "node", "args": [], "tools": [{"name": "t", "outputSchema": true}], "resources": [], "prompts": []}`)},
		{"surface-deep-schema", "malformed", "warden extension: an inputSchema nested past depth 512 from its own root is refused, never hashed.",
			func(t *testing.T) []jsonv.Member {
				s := parseT(t, `{"command": "node", "args": [], "tools": [{"name": "t"}], "resources": [], "prompts": []}`)
				s.Get("tools").Items[0].Set("inputSchema", jsonv.NewObject(jsonv.M("default", nested(512))))
				return []jsonv.Member{errorExpect(), jsonv.M("surface", s)}
			}},
		{"int-above-safe-range", "malformed", "An integer literal above 2^53-1 is outside RFC 8785's domain and refused.",
			func(t *testing.T) []jsonv.Member {
				return []jsonv.Member{errorExpect(), jsonv.M("input_json", jsonv.NewString(`{"maximum": 9007199254740992}`))}
			}},
		{"non-finite-float", "malformed", "A float literal that overflows to infinity is refused.",
			func(t *testing.T) []jsonv.Member {
				return []jsonv.Member{errorExpect(), jsonv.M("input_json", jsonv.NewString(`[1e400]`))}
			}},
		{"max-safe-integer", "canonical", "2^53-1 written as an integer is inside the domain; the same magnitude plus one written as a float is accepted and rounds.",
			func(t *testing.T) []jsonv.Member {
				in := parseT(t, `[9007199254740991, -9007199254740991, 9007199254740993.0, 1E2, 0.1e1]`)
				c, err := canon.Canonical(in)
				if err != nil {
					t.Fatal(err)
				}
				if string(c) != `[9007199254740991,-9007199254740991,9007199254740992,100,1]` {
					t.Fatalf("canonical = %s", c)
				}
				return []jsonv.Member{jsonv.M("input", in), jsonv.M("expect", jsonv.NewObject(
					jsonv.M("jcs", jsonv.NewString(string(c))), jsonv.M("sha256", jsonv.NewString(canon.HashBytes(c)))))}
			}},
	}
}

// ownDir is warden's own corpus, at the repository root.
func ownDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func caseFileName(kind, name string) string { return kind + "-" + name + ".json" }

// TestOwnVectors regenerates the cases defined above and checks the files in
// vectors/ match byte for byte (WARDEN_UPDATE_VECTORS=1 rewrites them), then
// checks the manifest lists every case file, and runs the corpus.
func TestOwnVectors(t *testing.T) {
	dir := ownDir(t)
	update := os.Getenv(updateEnv) == "1"
	for _, c := range ownCases() {
		members := append([]jsonv.Member{
			jsonv.M("id", jsonv.NewString(c.kind+"/"+c.name)),
			jsonv.M("kind", jsonv.NewString(c.kind)),
			jsonv.M("description", jsonv.NewString(c.description)),
		}, c.body(t)...)
		text := append(pyfmt.DumpsIndent(jsonv.NewObject(members...), 2), '\n')
		path := filepath.Join(dir, "cases", caseFileName(c.kind, c.name))
		if update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, text, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, text) {
			t.Errorf("%s is missing or stale (regenerate with %s=1 go test ./internal/conformance -run TestOwnVectors)", path, updateEnv)
		}
	}
	manifest := buildManifest(t, dir)
	mpath := filepath.Join(dir, "manifest.json")
	if update {
		if err := os.WriteFile(mpath, manifest, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if got, err := os.ReadFile(mpath); err != nil || !bytes.Equal(got, manifest) {
		t.Errorf("%s is missing or stale (regenerate with %s=1)", mpath, updateEnv)
	}
	results, err := Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("%s", FailureLine(r))
		}
	}
}

// buildManifest lists every case file in vectors/cases in the reference's
// order: by kind (canonical, digest, drift, malformed), then by name.
func buildManifest(t *testing.T, dir string) []byte {
	files, err := filepath.Glob(filepath.Join(dir, "cases", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, k := range Kinds {
		rank[k] = i
	}
	type entry struct{ id, kind, file string }
	var entries []entry
	for _, f := range files {
		base := filepath.Base(f)
		kind, name, ok := strings.Cut(strings.TrimSuffix(base, ".json"), "-")
		if _, known := rank[kind]; !ok || !known {
			t.Fatalf("case file %s is not named <kind>-<name>.json", base)
		}
		entries = append(entries, entry{kind + "/" + name, kind, "cases/" + base})
	}
	sort.Slice(entries, func(i, j int) bool {
		if rank[entries[i].kind] != rank[entries[j].kind] {
			return rank[entries[i].kind] < rank[entries[j].kind]
		}
		return entries[i].id < entries[j].id
	})
	vectors := make([]*jsonv.Value, len(entries))
	for i, e := range entries {
		vectors[i] = jsonv.NewObject(jsonv.M("id", jsonv.NewString(e.id)), jsonv.M("kind", jsonv.NewString(e.kind)), jsonv.M("file", jsonv.NewString(e.file)))
	}
	m := jsonv.NewObject(
		jsonv.M("format", jsonv.NewString("mcp-lock-v1")),
		jsonv.M("schema_version", jsonv.NewInt(lock.CurrentSchemaVersion)),
		jsonv.M("generator", jsonv.NewString("internal/conformance/own_vectors_test.go")),
		jsonv.M("count", jsonv.NewInt(int64(len(vectors)))),
		jsonv.M("vectors", jsonv.NewArray(vectors...)),
	)
	return append(pyfmt.DumpsIndent(m, 2), '\n')
}

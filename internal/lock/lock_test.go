package lock

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/surface"
)

const demoSurface = `{"command": "node", "args": ["server.js", "--flag"], "tools": [
 {"name": "write_file", "description": "Write a file.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 4096}, "content": {"type": "string"}}, "required": ["path", "content"]}, "annotations": {"destructiveHint": true}},
 {"name": "echo", "description": "Échos — non-ASCII stays literal", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "maximum": 5.0}}}, "outputSchema": {"type": "object"}}
], "resources": [{"uri": "file:///etc/motd", "name": "motd", "mimeType": "text/plain"}], "prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}`

// demoSurfaceOf is the demo surface, parsed.
func demoSurfaceOf(t testing.TB) *surface.Surface {
	t.Helper()
	v, err := jsonv.Parse([]byte(demoSurface), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func buildDemo(t testing.TB) *Lock {
	t.Helper()
	s := demoSurfaceOf(t)
	l, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l.WardenVersion = "1.2.3"
	l.Pin = NewPin(PinInfo{Version: "1.2.3", ProtocolVersion: "2025-06-18", Now: time.Date(2026, 6, 6, 14, 22, 5, 0, time.UTC), Approver: "ci-bot"}, l.OverallDigest)
	return l
}

func TestBuildSortsAndVerifies(t *testing.T) {
	l := buildDemo(t)
	if l.Tools[0].Name != "echo" || l.Tools[1].Name != "write_file" {
		t.Fatalf("tools not sorted: %s, %s", l.Tools[0].Name, l.Tools[1].Name)
	}
	if got := strings.Join(l.Tools[1].Capabilities, ","); got != "fs-write" {
		t.Errorf("write_file capabilities = %s", got)
	}
	if err := Verify(l); err != nil {
		t.Fatalf("fresh lock does not verify: %v", err)
	}
	if *l.Pin.ApprovedDigest != l.OverallDigest || !l.Pin.Approved {
		t.Error("approval not bound to the overall digest")
	}
}

func TestMarshalFormat(t *testing.T) {
	data := Marshal(buildDemo(t))
	if !bytes.HasSuffix(data, []byte("}\n")) || bytes.HasSuffix(data, []byte("\n\n")) {
		t.Error("lock must end with exactly one newline")
	}
	for _, want := range []string{
		"{\n  \"schema_version\": 4,\n  \"warden_version\": \"1.2.3\",\n  \"server\": {\n    \"command\": \"node\",",
		`"description_hash"`, `"Échos`[:0], `"maximum": 5.0`,
		`"url": null,`, `"output_schema_skeleton": null,`,
		"\"pin\": {\n    \"created_at\": \"2026-06-06T14:22:05Z\",\n    \"warden_version\": \"1.2.3\",\n    \"mcp_protocol_version\": \"2025-06-18\",\n    \"approved\": true,\n    \"approver\": \"ci-bot\",",
		`"rotation_count": 0`, `"attestations": [`, `"role": "approver"`,
	} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("lock text lacks %q", want)
		}
	}
	// Tool key order is the reference's.
	i1 := bytes.Index(data, []byte(`"capabilities"`))
	i2 := bytes.Index(data, []byte(`"schema_skeleton"`))
	i3 := bytes.Index(data, []byte(`"annotations_hash"`))
	i4 := bytes.Index(data, []byte(`"entry_digest"`))
	if !(i1 < i2 && i2 < i3 && i3 < i4) {
		t.Error("tool keys are not in the reference order")
	}
}

func TestRoundTripIsByteStable(t *testing.T) {
	data := Marshal(buildDemo(t))
	l, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if again := Marshal(l); !bytes.Equal(again, data) {
		t.Fatalf("read→write changed the lock:\n%s\nvs\n%s", again, data)
	}
	if err := Verify(l); err != nil {
		t.Fatal(err)
	}
}

// TestReferenceLocksRoundTrip takes every lock in the reference corpus's
// drift cases, renders it the way the reference writes a lock (json.dumps
// indent=2 of the same object), and requires warden to read it and write the
// identical bytes back.
func TestReferenceLocksRoundTrip(t *testing.T) {
	dir := os.Getenv("WARDEN_VECTORS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "vectors")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "cases", "drift-*.json"))
	if len(files) == 0 {
		t.Skipf("no reference corpus at %s", dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := jsonv.Parse(data, jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		text := append(pyfmt.DumpsIndent(c.Get("lock"), 2), '\n')
		l, err := Parse(text)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		if got := Marshal(l); !bytes.Equal(got, text) {
			t.Errorf("%s: rewrite differs from the reference's bytes", filepath.Base(f))
		}
	}
}

func TestParseRefusesWithPath(t *testing.T) {
	good := string(Marshal(buildDemo(t)))
	tests := []struct {
		name, text, want string
	}{
		{"missing pin", strings.Replace(good, `"pin": {`, `"pinx": {`, 1), `$: missing required key "pin"`},
		{"tools not array", strings.Replace(good, `"tools": [`, `"tools": {"x": [`, 1)[:0] + `{"schema_version": 4, "warden_version": "", "server": {"command_digest": "x"}, "tools": {}, "resources": [], "prompts": [], "findings": [], "overall_digest": "x", "pin": {"created_at": "", "warden_version": "", "mcp_protocol_version": ""}}`, `$.tools: must be an array`},
		{"version above", strings.Replace(good, `"schema_version": 4`, `"schema_version": 5`, 1), `newer than this warden implements`},
		{"version string", strings.Replace(good, `"schema_version": 4`, `"schema_version": "three"`, 1), `$.schema_version: must be an integer`},
		{"missing entry digest", strings.Replace(good, `"entry_digest"`, `"entry_digestx"`, 1), `$.tools[0]: missing required key "entry_digest"`},
		{"v4 commitment", strings.Replace(good, `"annotations_hash"`, `"annotations_hashx"`, 1), `missing required v4 commitment "annotations_hash"`},
		{"capability type", strings.Replace(good, `"fs-write"`, `7`, 1), `$.tools[1].capabilities[0]: must be a string`},
		{"duplicate", strings.Replace(good, `"overall_digest":`, `"pin": 1, "overall_digest":`, 1), `duplicate object key "pin"`},
		{"resource name missing", strings.Replace(good, `"name": "motd",`, ``, 1), `$.resources[0]: missing required key "name"`},
		{"attestation note", strings.Replace(good, `"note": null`, `"note": "`+strings.Repeat("n", 1001)+`"`, 1), `$.pin.attestations[0].note: longer than 1000`},
		{"invalid json", `{not json`, `not a valid lock document`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestReadFileNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warden.lock")
	if err := os.WriteFile(path, []byte(`{"schema_version": 4}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	if err == nil || !strings.Contains(err.Error(), "read lock "+path+": $: missing required key") {
		t.Fatalf("error = %v", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "absent.lock")); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestUnknownPinKeysKept(t *testing.T) {
	good := string(Marshal(buildDemo(t)))
	text := strings.Replace(good, `"rotation_count": 0`, `"rotation_count": 0,
    "x-vendor": {"signed": true}`, 1)
	l, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Pin.Extra) != 1 || l.Pin.Extra[0].Key != "x-vendor" {
		t.Fatalf("extra pin keys = %+v", l.Pin.Extra)
	}
	if !bytes.Contains(Marshal(l), []byte(`"x-vendor": {`)) {
		t.Error("unknown pin key dropped on rewrite")
	}
	// And pin never reaches the digest.
	if err := Verify(l); err != nil {
		t.Fatal(err)
	}
}

func TestOlderLevelsKeptAsRecorded(t *testing.T) {
	l := buildDemo(t)
	l.SchemaVersion = 3
	for i := range l.Tools {
		l.Tools[i].HasV4 = false
	}
	text := Marshal(l)
	if bytes.Contains(text, []byte("annotations_hash")) {
		t.Fatal("a v3 lock must not grow v4 commitments")
	}
	back, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if back.SchemaVersion != 3 || back.Tools[0].HasV4 {
		t.Fatalf("v3 lock silently upgraded: version %d, HasV4 %v", back.SchemaVersion, back.Tools[0].HasV4)
	}
	if !bytes.Equal(Marshal(back), text) {
		t.Fatal("v3 round trip changed bytes")
	}
}

func TestVerifyDetectsTampering(t *testing.T) {
	l := buildDemo(t)
	l.Tools[1].Capabilities = []string{}
	if err := Verify(l); err == nil || !strings.Contains(err.Error(), "$.tools[1].entry_digest") {
		t.Fatalf("tampered capabilities: %v", err)
	}
	l = buildDemo(t)
	l.OverallDigest = "sha256:00"
	if err := Verify(l); err == nil || !strings.Contains(err.Error(), "overall_digest") {
		t.Fatalf("tampered overall digest: %v", err)
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "warden.lock")
	if err := WriteFile(path, buildDemo(t)); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	// A write into a missing directory fails and creates nothing.
	if err := WriteFile(filepath.Join(dir, "nope", "warden.lock"), buildDemo(t)); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

func TestBuildRefuses(t *testing.T) {
	for name, s := range map[string]string{
		"annotations string":   `{"tools": [{"name": "t", "annotations": "yes"}]}`,
		"output schema array":  `{"tools": [{"name": "t", "outputSchema": []}]}`,
		"big integer":          `{"tools": [{"name": "t", "inputSchema": {"maximum": 9007199254740992}}]}`,
		"resource name number": `{"resources": [{"uri": "u", "name": 5}]}`,
	} {
		v, err := jsonv.Parse([]byte(s), jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sf, err := surface.FromVector(v)
		if err != nil {
			continue // refused even earlier: fine
		}
		if _, err := Build(sf); err == nil {
			t.Errorf("%s: Build accepted it", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(demoSurface))
	f.Add([]byte(`{"schema_version": 4, "warden_version": "", "server": {"command_digest": "x"}, "tools": [], "resources": [], "prompts": [], "findings": [], "overall_digest": "x", "pin": {"created_at": "", "warden_version": "", "mcp_protocol_version": ""}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWorkersAgree(t, data)
		l, err := Parse(data)
		if err != nil {
			return
		}
		// Whatever is accepted writes out, reads back, and writes the same.
		out := Marshal(l)
		l2, err := Parse(out)
		if err != nil {
			t.Fatalf("rewritten lock does not read back: %v\n%s", err, out)
		}
		if !bytes.Equal(Marshal(l2), out) {
			t.Fatal("read→write→read is not stable")
		}
	})
}

// TestSortToolsStable holds sortToolsStable to slices.SortStableFunc on
// lists with repeated names, sorted, reversed and shuffled.
func TestSortToolsStable(t *testing.T) {
	names := []string{"b", "a", "c", "a", "é", "b", "a", "", "zz", "z"}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, {3, 7, 1, 9, 0, 4, 8, 2, 6, 5}, {1, 3, 6, 0, 5, 2, 4, 7, 8, 9}} {
		var tools []Tool
		for k, i := range order {
			tools = append(tools, Tool{Name: names[i], EntryDigest: fmt.Sprint(k)})
		}
		want := slices.Clone(tools)
		slices.SortStableFunc(want, func(x, y Tool) int { return strings.Compare(x.Name, y.Name) })
		got := sortToolsStable(slices.Clone(tools))
		for i := range want {
			if got[i].Name != want[i].Name || got[i].EntryDigest != want[i].EntryDigest {
				t.Fatalf("order %v: got %v, want %v", order, got, want)
			}
		}
	}
}

// TestSortToolsStableKeys holds sortToolsStable to slices.SortStableFunc on
// names that its sixteen-byte keys cannot tell apart alone: a shared
// prefix of sixteen bytes and more, NUL bytes (which pad the key too),
// repeated names, and bytes above 0x7f.
func TestSortToolsStableKeys(t *testing.T) {
	parts := []string{"", "\x00", "a", "b", "0123456789abcdef", "0123456789abcde", "é", "\xff", "zz"}
	r := rand.New(rand.NewPCG(16, 27))
	for range 500 {
		var tools []Tool
		for k := range 1 + r.IntN(30) {
			var name string
			for range r.IntN(4) {
				name += parts[r.IntN(len(parts))]
			}
			tools = append(tools, Tool{Name: name, EntryDigest: fmt.Sprint(k)})
		}
		want := slices.Clone(tools)
		slices.SortStableFunc(want, func(x, y Tool) int { return strings.Compare(x.Name, y.Name) })
		got := sortToolsStable(slices.Clone(tools))
		for i := range want {
			if got[i].Name != want[i].Name || got[i].EntryDigest != want[i].EntryDigest {
				t.Fatalf("at %d: got %q (%s), want %q (%s)", i, got[i].Name, got[i].EntryDigest, want[i].Name, want[i].EntryDigest)
			}
		}
	}
}

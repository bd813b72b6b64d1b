package drift

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/surface"
)

// update rewrites this package's own drift cases in vectors/cases/:
//
//	go test ./internal/drift -run TestOwnCases -update
var update = flag.Bool("update", false, "rewrite the drift-*.json cases this package owns under vectors/cases")

// ownCase is one drift case of warden's own corpus. The baseline lock is
// built with lock.Build from the baseline surface (so every digest is real),
// then hand-mutated and resealed; the expected items are written here
// literally, never computed by Compare, so the file pins the rule rather
// than whatever the engine happens to do.
type ownCase struct {
	name        string
	description string
	baseline    string // surface JSON of the pinned server
	current     string // surface JSON observed later; "" means unchanged
	// mutate edits the freshly built baseline lock; every digest is then
	// recomputed, so each case is a self-consistent lock.
	mutate func(t testing.TB, l *lock.Lock)
	expect []string // "class|severity|target|detail"
}

const echoSurface = `{"command": "python", "args": ["server.py"], "tools": [
  {"name": "t", "description": "Echo text.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 64}}, "required": ["text"]}}
], "resources": [], "prompts": []}`

// oneTool is a surface with one tool "t" whose inputSchema is schema.
func oneTool(schema string) string {
	return `{"command": "python", "args": ["server.py"], "tools": [{"name": "t", "inputSchema": ` + schema + `}], "resources": [], "prompts": []}`
}

const unexplainedItem = "digest-mismatch-unexplained|high|lock/overall_digest|null"

var ownCases = []ownCase{
	{
		name: "duplicate-tool-name",
		description: "Baseline lists tool t twice (an older revision first); name-keyed indexing keeps the last, which matches the surface, " +
			"so only the overall digest differs -> digest-mismatch-unexplained (high, SPEC §8; not emitted by the reference).",
		baseline: echoSurface,
		mutate: func(t testing.TB, l *lock.Lock) {
			older, err := lock.BuildTool(surface.Tool{Name: "t", Description: jsonv.NewString("Echo text (old).")})
			if err != nil {
				t.Fatal(err)
			}
			l.Tools = append([]lock.Tool{older}, l.Tools...)
		},
		expect: []string{unexplainedItem},
	},
	{
		name: "tampered-skeleton",
		description: "The stored schema_skeleton was edited (maxLength 64 -> 4096) and the digests resealed, but input_schema_hash is unchanged; " +
			"no tool item is possible, so the overall digest mismatch is reported as digest-mismatch-unexplained (high).",
		baseline: echoSurface,
		mutate: func(t testing.TB, l *lock.Lock) {
			sk, err := l.Tools[0].SchemaSkeleton.Value()
			if err != nil {
				t.Fatal(err)
			}
			c := sk.Get("props").Get("text").Get("constraints")
			if c == nil {
				t.Fatal("skeleton has no props.text.constraints")
			}
			c.Set("maxLength", jsonv.NewInt(4096))
			l.Tools[0].SchemaSkeleton = jsonv.RawOf(sk)
		},
		expect: []string{unexplainedItem},
	},
	{
		name: "approved-null-approved-digest",
		description: "Approved v3 baseline whose approved_digest is null, surface unchanged: neither schema-version-migrated (approved) nor " +
			"unapproved-change (no digest) applies, so digest-mismatch-unexplained (high) keeps the verdict from being clean.",
		baseline: echoSurface,
		mutate: func(t testing.TB, l *lock.Lock) {
			toV3(l)
			l.Pin.Approved = true
			l.Pin.Approver = ptr("reviewer@example.invalid")
			l.Pin.ApprovedAt = ptr("2026-01-01T00:00:00Z")
		},
		expect: []string{unexplainedItem},
	},
	{
		name:        "legacy-unapproved-migration",
		description: "Unapproved v3 baseline, surface unchanged -> schema-version-migrated (low) alone; the advisory explains the mismatch, so no digest-mismatch-unexplained.",
		baseline:    echoSurface,
		mutate:      func(t testing.TB, l *lock.Lock) { toV3(l) },
		expect:      []string{"schema-version-migrated|low|pin/approved_digest|null"},
	},
	{
		name:        "enum-zero-false-cosmetic",
		description: "enum [0] -> [false] is equal under Python ==, so no enum item; the skeleton is otherwise identical -> schema-cosmetic-modified (low).",
		baseline:    oneTool(`{"type": "object", "properties": {"flag": {"enum": [0]}}}`),
		current:     oneTool(`{"type": "object", "properties": {"flag": {"enum": [false]}}}`),
		expect:      []string{"schema-cosmetic-modified|low|tools/t|null"},
	},
	{
		name:        "enum-duplicate-widened",
		description: "enum [a, b] -> [a, b, a]: equal member sets but not Python-equal lists, which the reference classifies as widened (high), counting raw lengths.",
		baseline:    oneTool(`{"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b"]}}}`),
		current:     oneTool(`{"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b", "a"]}}}`),
		expect:      []string{"schema-enum-widened|high|tools/t|enum 2→3 values"},
	},
	{
		name:        "additional-props-true-to-schema",
		description: "additionalProperties absent (true) -> a schema object: open to a different open value is no item -> schema-cosmetic-modified (low).",
		baseline:    oneTool(`{"type": "object", "properties": {"text": {"type": "string"}}}`),
		current:     oneTool(`{"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": {"type": "string"}}`),
		expect:      []string{"schema-cosmetic-modified|low|tools/t|null"},
	},
	{
		name:        "additional-props-false-to-schema",
		description: "additionalProperties false -> a schema object opens the object: schema-additional-props-opened (high) with the Python repr of the new value.",
		baseline:    oneTool(`{"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": false}`),
		current:     oneTool(`{"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": {"type": "string"}}`),
		expect:      []string{"schema-additional-props-opened|high|tools/t|additionalProperties False→{'type': 'string'}"},
	},
	{
		name: "bound-int-float-equal",
		description: "maxLength 5 -> 5.0 (plus a description, so the schema hash changes) is numerically equal, so no bound item " +
			"-> schema-cosmetic-modified (low).",
		baseline: oneTool(`{"type": "object", "properties": {"code": {"type": "string", "maxLength": 5}}}`),
		current:  oneTool(`{"type": "object", "properties": {"code": {"type": "string", "maxLength": 5.0, "description": "ISO code"}}}`),
		expect:   []string{"schema-cosmetic-modified|low|tools/t|null"},
	},
	{
		name: "bound-int-float-no-drift",
		description: "maxLength 5 -> 5.0 alone: JCS writes both as 5, so every hash and the overall digest are unchanged -> no drift, " +
			"even though the stored skeleton keeps the literal 5.",
		baseline: oneTool(`{"type": "object", "properties": {"code": {"type": "string", "maxLength": 5}}}`),
		current:  oneTool(`{"type": "object", "properties": {"code": {"type": "string", "maxLength": 5.0}}}`),
		expect:   []string{},
	},
	{
		name:        "ref-secret-redacted",
		description: "A remote input-schema $ref changes to one containing 'secret': only that side is redacted in the schema-modified (high) detail.",
		baseline:    oneTool(`{"type": "object", "properties": {"cfg": {"$ref": "https://example.com/schemas/config.json"}}}`),
		current:     oneTool(`{"type": "object", "properties": {"cfg": {"$ref": "https://example.com/schemas/client_secret.json"}}}`),
		expect:      []string{"schema-modified|high|tools/t|$ref https://example.com/schemas/config.json→<redacted>"},
	},
	{
		name:        "detail-cut-40",
		description: "Detail values longer than 40 code points are cut to 40 and marked with U+2026; the non-ASCII character counts as one code point.",
		baseline:    oneTool(`{"type": "object", "properties": {"spec": {"$ref": "https://schémas.example.com/shared/v1/common.json#/definitions/Path"}}}`),
		current:     oneTool(`{"type": "object", "properties": {"spec": {"$ref": "https://schémas.example.com/shared/v2/common.json#/definitions/Path"}}}`),
		expect:      []string{"schema-modified|high|tools/t|$ref https://schémas.example.com/shared/v1/co…→https://schémas.example.com/shared/v2/co…"},
	},
	{
		name:        "truncated-cycle",
		description: "A string property becomes a cyclic local $ref: the truncated marker appears (schema-modified, _truncated None→True) and the type set becomes any (broadened).",
		baseline:    oneTool(`{"type": "object", "properties": {"node": {"type": "string"}}}`),
		current:     oneTool(`{"type": "object", "properties": {"node": {"$ref": "#/$defs/loop"}}, "$defs": {"loop": {"$ref": "#/$defs/loop"}}}`),
		expect: []string{
			"schema-modified|high|tools/t|_truncated None→True",
			"schema-type-broadened|high|tools/t|type ['string']→any",
		},
	},
	{
		name:        "description-and-annotations",
		description: "Description and annotations both change: an annotations change does not suppress description-modified (only input-schema and capability changes do).",
		baseline:    `{"command": "python", "args": ["server.py"], "tools": [{"name": "t", "description": "Old.", "annotations": {"readOnlyHint": true}}], "resources": [], "prompts": []}`,
		current:     `{"command": "python", "args": ["server.py"], "tools": [{"name": "t", "description": "New.", "annotations": {"readOnlyHint": false}}], "resources": [], "prompts": []}`,
		expect: []string{
			"description-modified|low|tools/t|null",
			"tool-annotations-modified|high|tools/t|null",
		},
	},
}

// toV3 turns a freshly built v4 lock into a genuine v3 one: no v4
// commitments on any tool.
func toV3(l *lock.Lock) {
	l.SchemaVersion = 3
	for i := range l.Tools {
		t := &l.Tools[i]
		t.HasV4 = false
		t.AnnotationsHash, t.OutputSchemaHash, t.OutputSchemaSkeleton = "", "", jsonv.Raw{}
	}
}

// reseal recomputes every entry digest and the overall digest at the lock's
// own schema_version, as a consistent (if hostile) writer would.
func reseal(l *lock.Lock) error {
	for i := range l.Tools {
		d, err := canon.Hash(lock.ToolBody(l.Tools[i], l.SchemaVersion))
		if err != nil {
			return fmt.Errorf("tool %d: %w", i, err)
		}
		l.Tools[i].EntryDigest = d
	}
	for i := range l.Resources {
		d, err := canon.Hash(lock.ResourceBody(l.Resources[i]))
		if err != nil {
			return fmt.Errorf("resource %d: %w", i, err)
		}
		l.Resources[i].EntryDigest = d
	}
	for i := range l.Prompts {
		d, err := canon.Hash(lock.PromptBody(l.Prompts[i]))
		if err != nil {
			return fmt.Errorf("prompt %d: %w", i, err)
		}
		l.Prompts[i].EntryDigest = d
	}
	d, err := lock.OverallDigest(l)
	if err != nil {
		return err
	}
	l.OverallDigest = d
	return nil
}

// corpusPin is the pin block the reference corpus uses.
func corpusPin() lock.Pin {
	one, zero := 1, 0
	return lock.Pin{
		CreatedAt: "2026-01-01T00:00:00Z", WardenVersion: "0.0.0", MCPProtocolVersion: "2025-06-18",
		HasProvenanceVersion: true, ProvenanceVersion: &one,
		HasPinner: true, Pinner: nil,
		HasAttestations: true, Attestations: []*jsonv.Value{},
		HasRotatedAt:     true,
		HasRotationCount: true, RotationCount: &zero,
	}
}

// render builds the case file bytes: 2-space JSON with literal UTF-8 and a
// trailing newline, keys in the corpus order.
func (oc ownCase) render(t testing.TB) []byte {
	t.Helper()
	base := js(t, oc.baseline)
	s, err := surface.FromVector(base)
	if err != nil {
		t.Fatalf("baseline surface: %v", err)
	}
	l, err := lock.Build(s)
	if err != nil {
		t.Fatalf("build baseline: %v", err)
	}
	l.WardenVersion = "0.0.0"
	l.Pin = corpusPin()
	if oc.mutate != nil {
		oc.mutate(t, l)
		if err := reseal(l); err != nil {
			t.Fatalf("reseal: %v", err)
		}
	}
	cur := base
	if oc.current != "" {
		cur = js(t, oc.current)
	}
	expect := make([]*jsonv.Value, len(oc.expect))
	for i, e := range oc.expect {
		f := strings.SplitN(e, "|", 4)
		detail := jsonv.NewNull()
		if f[3] != "null" {
			detail = jsonv.NewString(f[3])
		}
		expect[i] = jsonv.NewObject(
			jsonv.M("drift_class", jsonv.NewString(f[0])),
			jsonv.M("severity", jsonv.NewString(f[1])),
			jsonv.M("target", jsonv.NewString(f[2])),
			jsonv.M("detail", detail),
		)
	}
	doc := jsonv.NewObject(
		jsonv.M("id", jsonv.NewString("drift/"+oc.name)),
		jsonv.M("kind", jsonv.NewString("drift")),
		jsonv.M("description", jsonv.NewString(oc.description)),
		jsonv.M("lock", lock.ToValue(l)),
		jsonv.M("surface", cur),
		jsonv.M("expect", jsonv.NewArray(expect...)),
	)
	return append(pyfmt.DumpsIndent(doc, 2), '\n')
}

// TestOwnCases checks that each of this package's case files is exactly what
// the generator produces (so its digests are real and current), and with
// -update rewrites them. The expectations themselves are exercised by
// TestOwnDriftVectors.
func TestOwnCases(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "vectors", "cases")
	names := map[string]bool{}
	for _, oc := range ownCases {
		t.Run(oc.name, func(t *testing.T) {
			if names[oc.name] {
				t.Fatalf("duplicate case name %q", oc.name)
			}
			names[oc.name] = true
			data := oc.render(t)
			path := filepath.Join(dir, "drift-"+oc.name+".json")
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			onDisk, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (regenerate with: go test ./internal/drift -run TestOwnCases -update)", err)
			}
			if !bytes.Equal(onDisk, data) {
				t.Errorf("%s is stale (regenerate with: go test ./internal/drift -run TestOwnCases -update)", path)
			}
			// The engine must agree with the literal expectation.
			dc, err := loadDriftCase(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := itemStrings(Compare(dc.baseline, dc.current)); !slices.Equal(got, oc.expect) {
				t.Errorf("Compare =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(oc.expect, "\n  "))
			}
		})
	}
}

package drift

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
)

// Skeleton texts used by the hand-built locks below.
const (
	skEmpty   = `{"props": {}}`
	skString  = `{"props": {"$root": {"type": ["object"], "required": false, "enum": null, "constraints": {"additionalProperties": true}}, "x": {"type": ["string"], "required": false, "enum": null, "constraints": {"additionalProperties": true}}}}`
	skString2 = `{"props": {"$root": {"type": ["object"], "required": false, "enum": null, "constraints": {"additionalProperties": true}}, "x": {"type": ["null", "string"], "required": false, "enum": null, "constraints": {"additionalProperties": true}}}}`
	skAdded   = `{"props": {"$root": {"type": ["object"], "required": false, "enum": null, "constraints": {"additionalProperties": true}}, "x": {"type": ["string"], "required": false, "enum": null, "constraints": {"additionalProperties": true}}, "y": {"type": ["integer"], "required": true, "enum": null, "constraints": {"additionalProperties": true}}}}`
)

func ptr(s string) *string { return &s }

// tl is a v4 tool entry with neutral field hashes; tests change the fields
// they are about.
func tl(t testing.TB, name string) lock.Tool {
	return lock.Tool{
		Name:             name,
		DescriptionHash:  "sha256:desc",
		InputSchemaHash:  "sha256:in",
		Capabilities:     []string{},
		SchemaSkeleton:   raw(t, skEmpty),
		HasV4:            true,
		AnnotationsHash:  NullHash,
		OutputSchemaHash: NullHash,
		EntryDigest:      "sha256:entry-" + name,
	}
}

// lk is a lock at schema_version sv whose overall digest is digest.
func lk(sv int, digest string, tools ...lock.Tool) *lock.Lock {
	return &lock.Lock{
		SchemaVersion: sv,
		Server:        lock.Server{Command: "node", Args: []string{}, CommandDigest: "sha256:cmd"},
		Tools:         tools,
		Resources:     []lock.Resource{},
		Prompts:       []lock.Prompt{},
		OverallDigest: digest,
	}
}

func itemStrings(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		d := "null"
		if it.Detail != nil {
			d = *it.Detail
		}
		out[i] = fmt.Sprintf("%s|%s|%s|%s", it.Class, it.Severity, it.Target, d)
	}
	return out
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name string
		// mod edits the baseline b and the current c, which start as a v4
		// lock with one tool "t" and different overall digests.
		mod  func(b, c *lock.Lock)
		want []string
	}{
		{"fast path on equal digests skips everything", func(b, c *lock.Lock) {
			c.OverallDigest = b.OverallDigest
			c.Server.CommandDigest = "sha256:other"
			b.Pin = lock.Pin{Approved: true, ApprovedDigest: ptr("sha256:stale")}
		}, nil},
		{"nothing explains the mismatch", func(b, c *lock.Lock) {}, []string{
			"digest-mismatch-unexplained|high|lock/overall_digest|null"}},
		{"server identity", func(b, c *lock.Lock) { c.Server.CommandDigest = "sha256:other" }, []string{
			"server-identity|critical|launch/command|null"}},
		{"tool added and removed, sorted", func(b, c *lock.Lock) {
			b.Tools = append(b.Tools, tl(t, "z"), tl(t, "b"))
			c.Tools = append(c.Tools, tl(t, "y"), tl(t, "a"))
		}, []string{
			"tool-added|high|tools/a|null",
			"tool-removed|medium|tools/b|null",
			"tool-added|high|tools/y|null",
			"tool-removed|medium|tools/z|null",
		}},
		{"duplicate baseline name: last wins", func(b, c *lock.Lock) {
			first := tl(t, "t")
			first.DescriptionHash = "sha256:older"
			b.Tools = []lock.Tool{first, tl(t, "t")}
		}, []string{"digest-mismatch-unexplained|high|lock/overall_digest|null"}},
		{"duplicate baseline name: last differs", func(b, c *lock.Lock) {
			last := tl(t, "t")
			last.DescriptionHash = "sha256:older"
			b.Tools = []lock.Tool{tl(t, "t"), last}
		}, []string{"description-modified|low|tools/t|null"}},
		{"description only", func(b, c *lock.Lock) { c.Tools[0].DescriptionHash = "sha256:new" }, []string{
			"description-modified|low|tools/t|null"}},
		{"description suppressed by capability change", func(b, c *lock.Lock) {
			c.Tools[0].DescriptionHash = "sha256:new"
			c.Tools[0].Capabilities = []string{"fs-read", "shell-exec"}
			b.Tools[0].Capabilities = []string{"http-request"}
		}, []string{
			"capability-added|high|tools/t|null",
			"capability-added|high|tools/t|null",
			"capability-removed|medium|tools/t|null",
		}},
		{"capabilities compare as sets", func(b, c *lock.Lock) {
			b.Tools[0].Capabilities = []string{"fs-read", "fs-read"}
			c.Tools[0].Capabilities = []string{"fs-read"}
			c.Tools[0].DescriptionHash = "sha256:new"
		}, []string{"description-modified|low|tools/t|null"}},
		{"description suppressed by schema change", func(b, c *lock.Lock) {
			c.Tools[0].DescriptionHash = "sha256:new"
			c.Tools[0].InputSchemaHash = "sha256:new"
		}, []string{"schema-cosmetic-modified|low|tools/t|null"}},
		{"description not suppressed by annotations or inspection", func(b, c *lock.Lock) {
			c.Tools[0].DescriptionHash = "sha256:new"
			c.Tools[0].AnnotationsHash = "sha256:ann"
			b.Tools[0].Inspection = js(t, `{}`)
		}, []string{
			"description-modified|low|tools/t|null",
			"inspection-policy-modified|medium|tools/t|null",
			"tool-annotations-modified|high|tools/t|null",
		}},
		{"inspection python equality", func(b, c *lock.Lock) {
			b.Tools[0].Inspection = js(t, `{"may_return_urls": true, "secret_echo_applies": 1}`)
			c.Tools[0].Inspection = js(t, `{"secret_echo_applies": true, "may_return_urls": 1.0}`)
		}, []string{"digest-mismatch-unexplained|high|lock/overall_digest|null"}},
		{"inspection value change", func(b, c *lock.Lock) {
			b.Tools[0].Inspection = js(t, `{"may_return_urls": false}`)
			c.Tools[0].Inspection = js(t, `{"may_return_urls": true}`)
		}, []string{"inspection-policy-modified|medium|tools/t|null"}},
		{"schema without baseline skeleton", func(b, c *lock.Lock) {
			b.Tools[0].SchemaSkeleton = jsonv.Raw{}
			c.Tools[0].InputSchemaHash = "sha256:new"
		}, []string{"schema-modified|high|tools/t|null"}},
		{"unreadable baseline skeleton fails closed", func(b, c *lock.Lock) {
			b.Tools[0].SchemaSkeleton = raw(t, `{"props": {"x": {"type": "string", "required": false, "enum": null, "constraints": {}}}}`)
			c.Tools[0].InputSchemaHash = "sha256:new"
		}, []string{"schema-modified|high|tools/t|null"}},
		{"skeleton without props reads as empty, like the reference's model default", func(b, c *lock.Lock) {
			b.Tools[0].SchemaSkeleton = raw(t, `{}`)
			c.Tools[0].InputSchemaHash = "sha256:new"
		}, []string{"schema-cosmetic-modified|low|tools/t|null"}},
		{"non-object baseline skeleton fails closed", func(b, c *lock.Lock) {
			b.Tools[0].SchemaSkeleton = raw(t, `[]`)
			c.Tools[0].InputSchemaHash = "sha256:new"
		}, []string{"schema-modified|high|tools/t|null"}},
		{"unreadable current output skeleton fails closed", func(b, c *lock.Lock) {
			b.Tools[0].OutputSchemaHash, b.Tools[0].OutputSchemaSkeleton = "sha256:o1", raw(t, skEmpty)
			c.Tools[0].OutputSchemaHash, c.Tools[0].OutputSchemaSkeleton = "sha256:o2", raw(t, `{"props": {"x": {"constraints": null}}}`)
		}, []string{"schema-out-modified|high|tools/t|null"}},
		{"tampered skeleton with unchanged schema hash", func(b, c *lock.Lock) {
			b.Tools[0].SchemaSkeleton = raw(t, skString)
			b.Tools[0].EntryDigest = "sha256:tampered"
		}, []string{"digest-mismatch-unexplained|high|lock/overall_digest|null"}},
		{"structural schema items", func(b, c *lock.Lock) {
			b.Tools[0].SchemaSkeleton = raw(t, skString)
			c.Tools[0].SchemaSkeleton = raw(t, skAdded)
			c.Tools[0].InputSchemaHash = "sha256:new"
			c.Tools[0].Capabilities = []string{"sql-query"}
		}, []string{
			"capability-added|high|tools/t|null",
			"schema-required-added|medium|tools/t|new required constrained",
		}},
		{"v4 annotations", func(b, c *lock.Lock) { c.Tools[0].AnnotationsHash = "sha256:ann" }, []string{
			"tool-annotations-modified|high|tools/t|null"}},
		{"legacy baseline invents no metadata drift", func(b, c *lock.Lock) {
			b.SchemaVersion = 3
			b.Tools[0].HasV4 = false
			b.Tools[0].AnnotationsHash, b.Tools[0].OutputSchemaHash = "", ""
			c.Tools[0].AnnotationsHash = "sha256:ann"
			c.Tools[0].OutputSchemaHash = "sha256:out"
		}, []string{"schema-version-migrated|low|pin/approved_digest|null"}},
		{"output schema added", func(b, c *lock.Lock) {
			c.Tools[0].OutputSchemaHash = "sha256:out"
			c.Tools[0].OutputSchemaSkeleton = raw(t, skString)
		}, []string{"schema-out-added|high|tools/t|null"}},
		{"output schema removed", func(b, c *lock.Lock) {
			b.Tools[0].OutputSchemaHash = "sha256:out"
			b.Tools[0].OutputSchemaSkeleton = raw(t, skString)
		}, []string{"schema-out-removed|high|tools/t|null"}},
		{"output schema without skeleton", func(b, c *lock.Lock) {
			b.Tools[0].OutputSchemaHash = "sha256:out"
			c.Tools[0].OutputSchemaHash = "sha256:out2"
			c.Tools[0].OutputSchemaSkeleton = raw(t, skString)
		}, []string{"schema-out-modified|high|tools/t|null"}},
		{"output schema cosmetic", func(b, c *lock.Lock) {
			b.Tools[0].OutputSchemaHash = "sha256:out"
			b.Tools[0].OutputSchemaSkeleton = raw(t, skString)
			c.Tools[0].OutputSchemaHash = "sha256:out2"
			c.Tools[0].OutputSchemaSkeleton = raw(t, skString)
		}, []string{"schema-out-cosmetic-modified|low|tools/t|null"}},
		{"output schema structural, renamed", func(b, c *lock.Lock) {
			b.Tools[0].OutputSchemaHash = "sha256:out"
			b.Tools[0].OutputSchemaSkeleton = raw(t, skString)
			c.Tools[0].OutputSchemaHash = "sha256:out2"
			c.Tools[0].OutputSchemaSkeleton = raw(t, skString2)
		}, []string{"schema-out-type-broadened|high|tools/t|type ['string']→['null', 'string']"}},
		{"input and output items sort by class", func(b, c *lock.Lock) {
			b.Tools[0].SchemaSkeleton = raw(t, skString)
			c.Tools[0].SchemaSkeleton = raw(t, skString2)
			c.Tools[0].InputSchemaHash = "sha256:new"
			b.Tools[0].OutputSchemaHash = "sha256:out"
			b.Tools[0].OutputSchemaSkeleton = raw(t, skString)
			c.Tools[0].OutputSchemaHash = "sha256:out2"
			c.Tools[0].OutputSchemaSkeleton = raw(t, skAdded)
		}, []string{
			"schema-out-required-added|medium|tools/t|new required constrained",
			"schema-type-broadened|high|tools/t|type ['string']→['null', 'string']",
		}},
		{"resources and prompts", func(b, c *lock.Lock) {
			b.Resources = []lock.Resource{{URI: "r://1", EntryDigest: "a"}, {URI: "r://3", EntryDigest: "x"}}
			c.Resources = []lock.Resource{{URI: "r://2", EntryDigest: "b"}, {URI: "r://3", EntryDigest: "y"}}
			b.Prompts = []lock.Prompt{{Name: "p", EntryDigest: "a"}, {Name: "q", EntryDigest: "q"}}
			c.Prompts = []lock.Prompt{{Name: "p", EntryDigest: "b"}, {Name: "o", EntryDigest: "o"}}
		}, []string{
			"prompt-added|medium|prompts/o|null",
			"prompt-modified|low|prompts/p|null",
			"prompt-removed|low|prompts/q|null",
			"resource-removed|low|resources/r://1|null",
			"resource-added|medium|resources/r://2|null",
			"resource-modified|low|resources/r://3|null",
		}},
		{"unapproved change sorts before entries", func(b, c *lock.Lock) {
			b.Pin = lock.Pin{Approved: true, ApprovedDigest: ptr(b.OverallDigest)}
			c.Tools[0].DescriptionHash = "sha256:new"
		}, []string{
			"unapproved-change|high|pin/approved_digest|null",
			"description-modified|low|tools/t|null",
		}},
		{"approval equal to current digest is not unapproved", func(b, c *lock.Lock) {
			b.Pin = lock.Pin{Approved: true, ApprovedDigest: ptr(c.OverallDigest)}
		}, []string{"digest-mismatch-unexplained|high|lock/overall_digest|null"}},
		{"approved_digest ignored when not approved", func(b, c *lock.Lock) {
			b.Pin = lock.Pin{Approved: false, ApprovedDigest: ptr(b.OverallDigest)}
			c.Tools[0].DescriptionHash = "sha256:new"
		}, []string{"description-modified|low|tools/t|null"}},
		{"unapproved legacy baseline", func(b, c *lock.Lock) {
			b.SchemaVersion = 3
			b.Pin = lock.Pin{Approved: false, ApprovedDigest: ptr(b.OverallDigest)}
		}, []string{"schema-version-migrated|low|pin/approved_digest|null"}},
		{"approved legacy baseline", func(b, c *lock.Lock) {
			b.SchemaVersion = 2
			b.Pin = lock.Pin{Approved: true, ApprovedDigest: ptr(b.OverallDigest)}
		}, []string{
			"schema-version-migrated|low|pin/approved_digest|null",
			"unapproved-change|high|pin/approved_digest|null",
		}},
		{"approved legacy baseline without approved_digest", func(b, c *lock.Lock) {
			b.SchemaVersion = 3
			b.Pin = lock.Pin{Approved: true}
		}, []string{"digest-mismatch-unexplained|high|lock/overall_digest|null"}},
		{"approved same level: no advisory", func(b, c *lock.Lock) {
			b.Pin = lock.Pin{Approved: true, ApprovedDigest: ptr(b.OverallDigest)}
		}, []string{"unapproved-change|high|pin/approved_digest|null"}},
		{"target order", func(b, c *lock.Lock) {
			c.Server.CommandDigest = "sha256:other"
			b.Pin = lock.Pin{Approved: true, ApprovedDigest: ptr(b.OverallDigest)}
			c.Prompts = []lock.Prompt{{Name: "p"}}
			c.Resources = []lock.Resource{{URI: "r"}}
			c.Tools = append(c.Tools, tl(t, "u"))
		}, []string{
			"server-identity|critical|launch/command|null",
			"unapproved-change|high|pin/approved_digest|null",
			"prompt-added|medium|prompts/p|null",
			"resource-added|medium|resources/r|null",
			"tool-added|high|tools/u|null",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := lk(4, "sha256:base", tl(t, "t"))
			c := lk(4, "sha256:cur", tl(t, "t"))
			tc.mod(b, c)
			got := itemStrings(Compare(b, c))
			if !slices.Equal(got, tc.want) {
				t.Errorf("Compare =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestCompareNil(t *testing.T) {
	l := lk(4, "sha256:x")
	for _, pair := range [][2]*lock.Lock{{nil, l}, {l, nil}, {nil, nil}} {
		got := itemStrings(Compare(pair[0], pair[1]))
		want := []string{"digest-mismatch-unexplained|high|lock/overall_digest|null"}
		if !slices.Equal(got, want) {
			t.Errorf("Compare(%v, %v) = %v, want %v", pair[0] != nil, pair[1] != nil, got, want)
		}
	}
}

// TestMessages pins the human sentences (reference-behaviour §4.6).
func TestMessages(t *testing.T) {
	b := lk(4, "sha256:base", tl(t, "t"), tl(t, "gone"), tl(t, "o"), tl(t, "d"))
	c := lk(4, "sha256:cur", tl(t, "t"), tl(t, "new"), tl(t, "o"), tl(t, "d"))
	b.Server.CommandDigest = "sha256:old"
	b.Pin = lock.Pin{Approved: true, ApprovedDigest: ptr("sha256:base")}
	b.SchemaVersion = 3
	b.Tools[0].SchemaSkeleton = raw(t, skString)
	c.Tools[0].SchemaSkeleton = raw(t, skString2)
	c.Tools[0].InputSchemaHash = "sha256:new"
	c.Tools[0].Capabilities = []string{"fs-read"}
	b.Tools[0].Inspection = js(t, `{}`)
	b.Tools[2].OutputSchemaHash = "sha256:o1"
	b.Tools[2].OutputSchemaSkeleton = raw(t, skString)
	c.Tools[2].OutputSchemaHash = "sha256:o2"
	c.Tools[2].OutputSchemaSkeleton = raw(t, skAdded)
	c.Tools[2].AnnotationsHash = "sha256:ann"
	c.Tools[3].DescriptionHash = "sha256:new"
	b.Resources = []lock.Resource{{URI: "r://1"}}
	c.Prompts = []lock.Prompt{{Name: "p"}}
	var got []string
	for _, it := range Compare(b, c) {
		got = append(got, it.Class+": "+it.Message)
	}
	want := []string{
		"server-identity: Server launch command/args changed since pin (you are pinning a different launch)",
		"schema-version-migrated: Lock schema version migrated v3→v4; the approved_digest changed because the lock's schema-format upgraded (e.g. opaque $ref leaves are now resolved). This advisory does NOT by itself excuse or downgrade the accompanying 'unapproved-change' finding: that finding is real and the operator must review it and re-pin to re-attest the surface under schema v4.",
		"unapproved-change: Surface changed since approval; approved_digest no longer matches the current surface",
		"prompt-added: Prompt 'p' added",
		"resource-removed: Resource 'r://1' removed",
		"description-modified: Tool 'd' description changed",
		"tool-removed: Tool 'gone' removed since pin",
		"tool-added: Tool 'new' added since pin",
		"schema-out-required-added: Tool 'o' outputSchema schema-out-required-added at 'y'",
		"tool-annotations-modified: Tool 'o' annotations changed (server declarations, not authority)",
		"capability-added: Tool 't' gained capability 'fs-read'",
		"inspection-policy-modified: Tool 't' inspection policy changed (security-relevant relaxation/tightening)",
		"schema-type-broadened: Tool 't' schema schema-type-broadened at 'x'",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestMessagesFallbacks pins the sentences of items without a path.
func TestMessagesFallbacks(t *testing.T) {
	tests := []struct {
		name string
		mod  func(b, c *lock.Lock)
		want string
	}{
		{"schema-modified", func(b, c *lock.Lock) {
			b.Tools[0].SchemaSkeleton = jsonv.Raw{}
			c.Tools[0].InputSchemaHash = "x"
		}, "Tool 't' inputSchema changed"},
		{"schema-cosmetic-modified", func(b, c *lock.Lock) { c.Tools[0].InputSchemaHash = "x" },
			"Tool 't' inputSchema changed cosmetically (no structural change)"},
		{"schema-out-added", func(b, c *lock.Lock) { c.Tools[0].OutputSchemaHash = "x" }, "Tool 't' outputSchema added"},
		{"schema-out-removed", func(b, c *lock.Lock) { b.Tools[0].OutputSchemaHash = "x" }, "Tool 't' outputSchema removed"},
		{"schema-out-modified", func(b, c *lock.Lock) {
			b.Tools[0].OutputSchemaHash = "x"
			c.Tools[0].OutputSchemaHash = "y"
		}, "Tool 't' outputSchema changed"},
		{"schema-out-cosmetic-modified", func(b, c *lock.Lock) {
			b.Tools[0].OutputSchemaHash, b.Tools[0].OutputSchemaSkeleton = "x", raw(t, skEmpty)
			c.Tools[0].OutputSchemaHash, c.Tools[0].OutputSchemaSkeleton = "y", raw(t, skEmpty)
		}, "Tool 't' outputSchema changed cosmetically (no structural change)"},
		{"capability-removed", func(b, c *lock.Lock) { b.Tools[0].Capabilities = []string{"sql-query"} },
			"Tool 't' lost capability 'sql-query'"},
		{"resource-modified", func(b, c *lock.Lock) {
			b.Resources = []lock.Resource{{URI: "u", EntryDigest: "1"}}
			c.Resources = []lock.Resource{{URI: "u", EntryDigest: "2"}}
		}, "Resource 'u' modified"},
		{"resource-added", func(b, c *lock.Lock) { c.Resources = []lock.Resource{{URI: "u"}} }, "Resource 'u' added"},
		{"prompt-removed", func(b, c *lock.Lock) { b.Prompts = []lock.Prompt{{Name: "p"}} }, "Prompt 'p' removed"},
		{"prompt-modified", func(b, c *lock.Lock) {
			b.Prompts = []lock.Prompt{{Name: "p", EntryDigest: "1"}}
			c.Prompts = []lock.Prompt{{Name: "p", EntryDigest: "2"}}
		}, "Prompt 'p' modified"},
		{"schema-version-migrated", func(b, c *lock.Lock) { b.SchemaVersion = 1 },
			"Legacy lock does not commit tool annotations/outputSchema; review and re-pin under schema v4"},
		{"digest-mismatch-unexplained", func(b, c *lock.Lock) {}, UnexplainedMessage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := lk(4, "sha256:base", tl(t, "t"))
			c := lk(4, "sha256:cur", tl(t, "t"))
			tc.mod(b, c)
			items := Compare(b, c)
			if len(items) != 1 || items[0].Class != tc.name || items[0].Message != tc.want {
				t.Errorf("got %+v, want one %s item with message %q", items, tc.name, tc.want)
			}
		})
	}
}

func TestSetDiff(t *testing.T) {
	many := func(prefix string, n int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, fmt.Sprintf("%s%02d", prefix, i))
		}
		return out
	}
	tests := []struct {
		name           string
		b, c           []string
		added, removed []string
	}{
		{"equal", []string{"a"}, []string{"a"}, nil, nil},
		{"duplicates are one member", []string{"a", "a"}, []string{"a"}, nil, nil},
		{"order ignored", []string{"b", "a"}, []string{"a", "b"}, nil, nil},
		{"added and removed sorted", []string{"z", "m"}, []string{"b", "a", "m", "a"}, []string{"a", "b"}, []string{"z"}},
		{"long lists use maps", append(many("x", 20), "old"), append(many("x", 20), "new2", "new1", "new1"), []string{"new1", "new2"}, []string{"old"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, r := setDiff(tc.b, tc.c)
			if !slices.Equal(a, tc.added) || !slices.Equal(r, tc.removed) {
				t.Errorf("setDiff = %v, %v; want %v, %v", a, r, tc.added, tc.removed)
			}
		})
	}
}

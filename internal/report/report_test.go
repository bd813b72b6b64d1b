package report

import (
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

// strp returns a pointer to s, for drift details.
func strp(s string) *string { return &s }

// sampleFindings and sampleDrift are a small mixed result used by several
// tests; the tool names are deliberately unfriendly.
func sampleFindings() []lock.Finding {
	return []lock.Finding{
		{RuleID: "WRD-SUP-NPX-UNPINNED", Severity: "high", Target: "launch/command",
			Message: "Unpinned npx package (resolves latest at run)", Snippet: "some-server"},
		{RuleID: "WRD-CAP-SHELL", Severity: "critical", Target: "tools/run_shell",
			Message: "Tool derives capability 'shell-exec' (name token 'shell')", Snippet: "name token 'shell'"},
	}
}

func sampleDrift() []drift.Item {
	return []drift.Item{
		{Class: "schema-enum-widened", Severity: "high", Target: "tools/get_weather",
			Detail: strp("enum 2→3 values"), Message: "Tool 'get_weather' schema schema-enum-widened at 'units'"},
		{Class: "tool-added", Severity: "high", Target: "tools/delete_note",
			Message: "Tool 'delete_note' added since pin"},
		{Class: "description-modified", Severity: "low", Target: "tools/get_weather",
			Message: "Tool 'get_weather' description changed"},
		{Class: "tool-removed", Severity: "medium", Target: "tools/search",
			Message: "Tool 'search' removed since pin"},
	}
}

func TestLevelAndSeverityMaps(t *testing.T) {
	tests := []struct {
		sev, level, security, command string
	}{
		{"critical", "error", "9.5", "error"},
		{"high", "error", "8.0", "error"},
		{"medium", "warning", "5.5", "warning"},
		{"low", "note", "2.0", "notice"},
		{"bogus", "warning", "5.5", "warning"},
		{"", "warning", "5.5", "warning"},
	}
	for _, tt := range tests {
		t.Run(tt.sev, func(t *testing.T) {
			if got := Level(tt.sev); got != tt.level {
				t.Errorf("Level(%q) = %q, want %q", tt.sev, got, tt.level)
			}
			if got := SecuritySeverity(tt.sev); got != tt.security {
				t.Errorf("SecuritySeverity(%q) = %q, want %q", tt.sev, got, tt.security)
			}
			if got := AnnotationCommand(tt.sev); got != tt.command {
				t.Errorf("AnnotationCommand(%q) = %q, want %q", tt.sev, got, tt.command)
			}
		})
	}
}

func TestDriftRuleID(t *testing.T) {
	tests := map[string]string{
		"schema-out-type-broadened":   "WRD-DRIFT-SCHEMA-OUT-TYPE-BROADENED",
		"server-identity":             "WRD-DRIFT-SERVER-IDENTITY",
		"digest-mismatch-unexplained": "WRD-DRIFT-DIGEST-MISMATCH-UNEXPLAINED",
	}
	for class, want := range tests {
		if got := DriftRuleID(class); got != want {
			t.Errorf("DriftRuleID(%q) = %q, want %q", class, got, want)
		}
	}
}

// structuralClasses are the input-schema classes that also occur with the
// schema-out- prefix (reference-behaviour §4.4).
func structuralClasses() []string {
	return []string{
		"schema-modified", "schema-required-removed", "schema-property-removed",
		"schema-required-unconstrained-added", "schema-required-added",
		"schema-unconstrained-added", "schema-property-added",
		"schema-type-broadened", "schema-type-narrowed", "schema-type-changed",
		"schema-enum-widened", "schema-enum-narrowed", "schema-enum-removed", "schema-enum-added",
		"schema-constraint-relaxed", "schema-constraint-tightened", "schema-additional-props-opened",
	}
}

func TestCatalogueCoversEveryRule(t *testing.T) {
	classes := append([]string{
		"server-identity", "tool-added", "tool-removed", "capability-added", "capability-removed",
		"description-modified", "inspection-policy-modified", "schema-cosmetic-modified",
		"tool-annotations-modified", "schema-out-added", "schema-out-removed", "schema-out-modified",
		"schema-out-cosmetic-modified", "resource-added", "resource-removed", "resource-modified",
		"prompt-added", "prompt-removed", "prompt-modified", "schema-version-migrated",
		"unapproved-change", "digest-mismatch-unexplained",
	}, structuralClasses()...)
	for _, c := range structuralClasses() {
		if out := strings.Replace(c, "schema-", "schema-out-", 1); out != "schema-out-modified" {
			classes = append(classes, out)
		}
	}
	var ids []string
	for _, c := range classes {
		ids = append(ids, DriftRuleID(c))
	}
	ids = append(ids,
		"WRD-CAP-SHELL", "WRD-CAP-FS-WRITE", "WRD-CAP-FS-READ", "WRD-CAP-HTTP", "WRD-CAP-SQL",
		"WRD-SCHEMA-MALFORMED", "WRD-SEC-OPENAI", "WRD-SEC-GITHUB", "WRD-SEC-AWS-AKID",
		"WRD-SEC-SLACK", "WRD-SEC-PRIVKEY", "WRD-SEC-JWT", "WRD-SEC-ENTROPY",
		"WRD-SUP-CURL-PIPE", "WRD-SUP-LATEST-TAG", "WRD-SUP-NPX-UNPINNED",
		"WRD-SUP-UVX-UNPINNED", "WRD-SUP-PIP-UNPINNED")
	shorts := map[string]string{}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			rt := Describe(id)
			if !rt.Known || rt.Short == "" || rt.Full == "" || rt.Category == "" {
				t.Fatalf("Describe(%q) = %+v, want a known, complete entry", id, rt)
			}
			wantKind := "finding"
			if strings.HasPrefix(id, DriftRulePrefix) {
				wantKind = "drift"
			}
			if rt.Kind != wantKind {
				t.Errorf("Kind = %q, want %q", rt.Kind, wantKind)
			}
			if other, dup := shorts[rt.Short]; dup {
				t.Errorf("short description of %s repeats %s: %q", id, other, rt.Short)
			}
			shorts[rt.Short] = id
			text, md := helpText(id, rt)
			if !strings.Contains(text, "warden pin --approve --approver <you>") ||
				!strings.Contains(md, "`warden pin --approve --approver <you>") {
				t.Errorf("help does not say how to re-pin:\n%s\n%s", text, md)
			}
			if wantKind == "drift" && !strings.Contains(md, "warden diff") {
				t.Errorf("drift help does not say how to review:\n%s", md)
			}
		})
	}
}

func TestDescribeUnknown(t *testing.T) {
	for _, id := range []string{"WRD-DRIFT-SOMETHING-NEW", "WRD-NEW-RULE", "WRD-DRIFT-SCHEMA-OUT-NOPE"} {
		rt := Describe(id)
		if rt.Known || rt.Short == "" || rt.Full == "" {
			t.Errorf("Describe(%q) = %+v, want a generic unknown entry", id, rt)
		}
	}
}

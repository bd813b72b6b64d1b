package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
)

// catalogueRuleIDs returns every rule id in warden's catalogue: a drift
// rule per class constant in internal/drift and every finding rule in
// docs/findings.md's catalogue table.
func catalogueRuleIDs(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "drift", "classes.go"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range regexp.MustCompile(`(?m)^\s*Class\w+ = "([a-z-]+)"`).FindAllStringSubmatch(string(src), -1) {
		ids = append(ids, DriftRuleID(m[1]))
	}
	if len(ids) < 30 {
		t.Fatalf("found %d drift classes in internal/drift/classes.go; the pattern is not reading them", len(ids))
	}
	for _, id := range []string{
		"WRD-CAP-SHELL", "WRD-CAP-FS-WRITE", "WRD-CAP-FS-READ", "WRD-CAP-HTTP", "WRD-CAP-SQL",
		"WRD-SCHEMA-MALFORMED", "WRD-SEC-OPENAI", "WRD-SEC-GITHUB", "WRD-SEC-AWS-AKID", "WRD-SEC-SLACK",
		"WRD-SEC-PRIVKEY", "WRD-SEC-JWT", "WRD-SEC-ENTROPY", "WRD-SUP-CURL-PIPE", "WRD-SUP-LATEST-TAG",
		"WRD-SUP-NPX-UNPINNED", "WRD-SUP-UVX-UNPINNED", "WRD-SUP-PIP-UNPINNED",
	} {
		ids = append(ids, id)
	}
	return ids
}

// docAnchors returns the anchors a Markdown file under docs/ defines:
// explicit <a id="..."> tags and GitHub's heading slugs.
func docAnchors(t *testing.T, name string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"></a>`).FindAllStringSubmatch(string(data), -1) {
		anchors[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(string(data), -1) {
		slug := strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
				return r
			case r == ' ':
				return '-'
			}
			return -1
		}, strings.ToLower(m[1]))
		anchors[slug] = true
	}
	return anchors
}

// TestHelpURIEveryRule: every rule in the catalogue, and a rule warden
// does not know, gets a helpUri on the project's docs whose anchor exists
// in the file it names, and the SARIF rule carries it.
func TestHelpURIEveryRule(t *testing.T) {
	anchors := map[string]map[string]bool{
		"drift.md":    docAnchors(t, "drift.md"),
		"findings.md": docAnchors(t, "findings.md"),
	}
	ids := append(catalogueRuleIDs(t), "WRD-DRIFT-FROM-A-NEWER-TOOL", "WRD-NEW-FINDING")
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			uri := HelpURI(id)
			rest, ok := strings.CutPrefix(uri, "https://github.com/wardenlock/warden/blob/main/docs/")
			if !ok {
				t.Fatalf("HelpURI(%q) = %q, not on the project's docs", id, uri)
			}
			file, anchor, ok := strings.Cut(rest, "#")
			if !ok || anchor == "" {
				t.Fatalf("HelpURI(%q) = %q has no anchor", id, uri)
			}
			if !anchors[file][anchor] {
				t.Errorf("HelpURI(%q) = %q: docs/%s has no anchor %q", id, uri, file, anchor)
			}
			if Describe(id).Known && (anchor == "drift-classes" || anchor == "catalogue") {
				t.Errorf("HelpURI(%q) = %q: a known rule links to the whole list, not its row", id, uri)
			}
			data, err := json.Marshal(buildRule(id, "high"))
			if err != nil {
				t.Fatal(err)
			}
			var rule struct {
				HelpURI string `json:"helpUri"`
			}
			if err := json.Unmarshal(data, &rule); err != nil {
				t.Fatal(err)
			}
			if rule.HelpURI != uri {
				t.Errorf("SARIF rule %s has helpUri %q, want %q", id, rule.HelpURI, uri)
			}
		})
	}
}

// TestHelpURIClassNames: the anchors follow the drift class names the
// lock format fixes, so a link survives a rewording of the docs.
func TestHelpURIClassNames(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{DriftRuleID(drift.ClassToolAdded), "drift.md#tool-added"},
		{DriftRuleID(drift.ClassServerIdentity), "drift.md#server-identity"},
		{DriftRuleID(drift.ClassSchemaOutCosmeticModified), "drift.md#schema-out-cosmetic-modified"},
		{"WRD-CAP-SQL", "findings.md#wrd-cap-sql"},
		{"WRD-SEC-AWS-AKID", "findings.md#wrd-sec-aws-akid"},
		{"WRD-DRIFT-NOT-A-CLASS", "drift.md#drift-classes"},
		{"WRD-XYZ", "findings.md#catalogue"},
	} {
		if got := HelpURI(tc.id); got != DocsURI+tc.want {
			t.Errorf("HelpURI(%q) = %q, want %q", tc.id, got, DocsURI+tc.want)
		}
	}
}

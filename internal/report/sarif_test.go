package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/report/reporttest"
)

// sarifDoc is the part of a SARIF log the tests look at.
type sarifDoc struct {
	Version string `json:"version"`
	Schema  string `json:"$schema"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string `json:"name"`
				Version        string `json:"version"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID               string `json:"id"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
					FullDescription struct {
						Text string `json:"text"`
					} `json:"fullDescription"`
					Help struct {
						Text     string `json:"text"`
						Markdown string `json:"markdown"`
					} `json:"help"`
					DefaultConfiguration struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
					Properties map[string]any `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex *int   `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
				LogicalLocations []struct {
					FullyQualifiedName string `json:"fullyQualifiedName"`
					Kind               string `json:"kind"`
				} `json:"logicalLocations"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Properties          map[string]any    `json:"properties"`
		} `json:"results"`
	} `json:"runs"`
}

func renderSARIF(t *testing.T, findings []lock.Finding, items []drift.Item, o SARIFOptions) ([]byte, sarifDoc) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, findings, items, o); err != nil {
		t.Fatal(err)
	}
	var doc sarifDoc
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	return buf.Bytes(), doc
}

const sampleLock = `{
  "schema_version": 4,
  "tools": [
    {
      "name": "get_weather"
    },
    {
      "name": "run_shell"
    },
    {
      "name": "search"
    }
  ]
}
`

func TestSARIF(t *testing.T) {
	v := reporttest.Optional(t)
	data, doc := renderSARIF(t, sampleFindings(), sampleDrift(), SARIFOptions{
		Version:     "1.2.3",
		ArtifactURI: "servers/demo/warden.lock",
		Lines:       IndexLock([]byte(sampleLock)),
	})
	reporttest.AssertValid(t, v, data)

	if doc.Version != "2.1.0" || len(doc.Runs) != 1 {
		t.Fatalf("version %q, %d runs", doc.Version, len(doc.Runs))
	}
	d := doc.Runs[0].Tool.Driver
	if d.Name != "warden" || d.Version != "1.2.3" || d.InformationURI != "https://github.com/wardenlock/warden" {
		t.Errorf("driver = %q %q %q", d.Name, d.Version, d.InformationURI)
	}

	wantRules := []string{
		"WRD-CAP-SHELL", "WRD-DRIFT-DESCRIPTION-MODIFIED", "WRD-DRIFT-SCHEMA-ENUM-WIDENED",
		"WRD-DRIFT-TOOL-ADDED", "WRD-DRIFT-TOOL-REMOVED", "WRD-SUP-NPX-UNPINNED",
	}
	var gotRules []string
	ruleIndex := map[string]int{}
	for i, r := range d.Rules {
		gotRules = append(gotRules, r.ID)
		ruleIndex[r.ID] = i
		if r.ShortDescription.Text == "" || r.FullDescription.Text == "" || r.Help.Text == "" || r.Help.Markdown == "" {
			t.Errorf("rule %s lacks descriptions or help", r.ID)
		}
	}
	if !reflect.DeepEqual(gotRules, wantRules) {
		t.Errorf("rules = %v, want %v", gotRules, wantRules)
	}
	// Finding rules carry no security-severity: informational, they must
	// not become High or Critical security alerts in code scanning.
	ruleProps := map[string]struct {
		sec         any
		level, kind string
	}{
		"WRD-CAP-SHELL":                  {nil, "warning", "finding"},
		"WRD-DRIFT-DESCRIPTION-MODIFIED": {"2.0", "note", "drift"},
		"WRD-DRIFT-TOOL-REMOVED":         {"5.5", "warning", "drift"},
		"WRD-SUP-NPX-UNPINNED":           {nil, "warning", "finding"},
	}
	for _, r := range d.Rules {
		want, ok := ruleProps[r.ID]
		if !ok {
			continue
		}
		if r.Properties["security-severity"] != want.sec || r.DefaultConfiguration.Level != want.level {
			t.Errorf("rule %s: security-severity %v level %q, want %v %s", r.ID,
				r.Properties["security-severity"], r.DefaultConfiguration.Level, want.sec, want.level)
		}
		tags, _ := r.Properties["tags"].([]any)
		if len(tags) < 3 || tags[0] != "security" || tags[1] != "mcp" || tags[2] != want.kind {
			t.Errorf("rule %s tags = %v", r.ID, tags)
		}
	}

	type want struct {
		rule, level, text, target string
		line                      int
		props                     map[string]any
	}
	wants := []want{
		{"WRD-SUP-NPX-UNPINNED", "warning", "Unpinned npx package (resolves latest at run) [some-server]", "launch/command", 1,
			map[string]any{"severity": "high", "target": "launch/command"}},
		{"WRD-CAP-SHELL", "warning", "Tool derives capability 'shell-exec' (name token 'shell') [name token 'shell']", "tools/run_shell", 8,
			map[string]any{"severity": "critical", "target": "tools/run_shell"}},
		{"WRD-DRIFT-SCHEMA-ENUM-WIDENED", "error", "Tool 'get_weather' schema schema-enum-widened at 'units' [enum 2→3 values]", "tools/get_weather", 5,
			map[string]any{"severity": "high", "target": "tools/get_weather", "driftClass": "schema-enum-widened", "detail": "enum 2→3 values"}},
		{"WRD-DRIFT-TOOL-ADDED", "error", "Tool 'delete_note' added since pin", "tools/delete_note", 1,
			map[string]any{"severity": "high", "target": "tools/delete_note", "driftClass": "tool-added"}},
		{"WRD-DRIFT-DESCRIPTION-MODIFIED", "note", "Tool 'get_weather' description changed", "tools/get_weather", 5,
			map[string]any{"severity": "low", "target": "tools/get_weather", "driftClass": "description-modified"}},
		{"WRD-DRIFT-TOOL-REMOVED", "warning", "Tool 'search' removed since pin", "tools/search", 11,
			map[string]any{"severity": "medium", "target": "tools/search", "driftClass": "tool-removed"}},
	}
	res := doc.Runs[0].Results
	if len(res) != len(wants) {
		t.Fatalf("%d results, want %d", len(res), len(wants))
	}
	seen := map[string]bool{}
	for i, w := range wants {
		r := res[i]
		if r.RuleID != w.rule || r.Level != w.level || r.Message.Text != w.text {
			t.Errorf("result %d = %s %s %q, want %s %s %q", i, r.RuleID, r.Level, r.Message.Text, w.rule, w.level, w.text)
		}
		if r.RuleIndex == nil || *r.RuleIndex != ruleIndex[w.rule] {
			t.Errorf("result %d ruleIndex = %v, want %d", i, r.RuleIndex, ruleIndex[w.rule])
		}
		if len(r.Locations) != 1 {
			t.Fatalf("result %d has %d locations", i, len(r.Locations))
		}
		loc := r.Locations[0]
		if loc.PhysicalLocation.ArtifactLocation.URI != "servers/demo/warden.lock" || loc.PhysicalLocation.Region.StartLine != w.line {
			t.Errorf("result %d at %s:%d, want line %d", i, loc.PhysicalLocation.ArtifactLocation.URI, loc.PhysicalLocation.Region.StartLine, w.line)
		}
		if len(loc.LogicalLocations) != 1 || loc.LogicalLocations[0].FullyQualifiedName != w.target || loc.LogicalLocations[0].Kind != "resource" {
			t.Errorf("result %d logical locations = %+v", i, loc.LogicalLocations)
		}
		if !reflect.DeepEqual(r.Properties, w.props) {
			t.Errorf("result %d properties = %v, want %v", i, r.Properties, w.props)
		}
		fp := r.PartialFingerprints[FingerprintKey]
		if len(fp) != 64 || seen[fp] {
			t.Errorf("result %d fingerprint %q is malformed or repeats", i, fp)
		}
		seen[fp] = true
	}

	// Fingerprints do not depend on messages, line numbers or the run.
	items := sampleDrift()
	items[0].Message = "reworded"
	_, again := renderSARIF(t, sampleFindings(), items, SARIFOptions{ArtifactURI: "elsewhere.lock"})
	for i := range res {
		if a, b := res[i].PartialFingerprints[FingerprintKey], again.Runs[0].Results[i].PartialFingerprints[FingerprintKey]; a != b {
			t.Errorf("result %d fingerprint changed across runs: %s vs %s", i, a, b)
		}
	}
}

func TestSARIFEmptyAndDefaults(t *testing.T) {
	v := reporttest.Optional(t)
	data, doc := renderSARIF(t, nil, nil, SARIFOptions{})
	reporttest.AssertValid(t, v, data)
	if len(doc.Runs) != 1 || len(doc.Runs[0].Results) != 0 || len(doc.Runs[0].Tool.Driver.Rules) != 0 {
		t.Errorf("empty report = %s", data)
	}
	if !bytes.Contains(data, []byte(`"results": []`)) || !bytes.HasSuffix(data, []byte("}\n")) {
		t.Errorf("empty report should carry an empty results array and end in a newline:\n%s", data)
	}
	// Default artifact and line, unknown severity and rule.
	items := []drift.Item{{Class: "brand-new-class", Severity: "weird", Target: "tools/x", Message: "m"}}
	data, doc = renderSARIF(t, nil, items, SARIFOptions{})
	reporttest.AssertValid(t, v, data)
	r := doc.Runs[0].Results[0]
	if r.Level != "warning" || r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "warden.lock" || r.Locations[0].PhysicalLocation.Region.StartLine != 1 {
		t.Errorf("defaults not applied: %s", data)
	}
}

// TestSARIFHostileStrings checks that server-controlled text cannot break
// the document: it stays valid SARIF and the strings round-trip exactly.
func TestSARIFHostileStrings(t *testing.T) {
	v := reporttest.Optional(t)
	name := "x\n::error::pwned\r%0A|<script>alert(1)</script>\u202e\x1b[31m\"}]},{"
	items := []drift.Item{{Class: "tool-added", Severity: "high", Target: "tools/" + name,
		Message: "Tool '" + name + "' added since pin", Detail: strp(name)}}
	findings := []lock.Finding{{RuleID: "WRD-CAP-SHELL", Severity: "critical", Target: "tools/" + name,
		Message: "m", Snippet: name}}
	data, doc := renderSARIF(t, findings, items, SARIFOptions{ArtifactURI: ArtifactURI("a b/warden.lock", ".")})
	reporttest.AssertValid(t, v, data)
	if got := doc.Runs[0].Results[1].Properties["detail"]; got != name {
		t.Errorf("detail = %q, want %q", got, name)
	}
	if got := doc.Runs[0].Results[0].Locations[0].LogicalLocations[0].FullyQualifiedName; got != "tools/"+name {
		t.Errorf("target = %q", got)
	}
}

// TestSARIFSchemaAvailable makes the schema's absence visible as a skip
// rather than a silent pass of the validation above.
func TestSARIFSchemaAvailable(t *testing.T) {
	v := reporttest.MustValidator(t)
	if err := v.Validate([]byte(`{"version": "2.1.0", "runs": [{"results": []}]}`)); err == nil {
		t.Error("a run without a tool was accepted; the validator is not checking anything")
	}
}

func TestArtifactURI(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	tests := []struct {
		name, lock, want string
	}{
		{"top level", filepath.Join(root, "warden.lock"), "warden.lock"},
		{"nested", filepath.Join(root, "servers", "a", "warden.lock"), "servers/a/warden.lock"},
		{"space and percent", filepath.Join(root, "my dir", "50%.lock"), "my%20dir/50%25.lock"},
		{"colon in first segment", filepath.Join(root, "a:b.lock"), "./a:b.lock"},
		{"outside", filepath.Join(outside, "warden.lock"), "file://" + filepath.ToSlash(filepath.Join(outside, "warden.lock"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ArtifactURI(tt.lock, root); got != tt.want {
				t.Errorf("ArtifactURI(%q) = %q, want %q", tt.lock, got, tt.want)
			}
		})
	}
	// Relative paths resolve against the working directory.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got := ArtifactURI("x/warden.lock", wd); got != "x/warden.lock" {
		t.Errorf("relative lock = %q", got)
	}
}

// TestSARIFResultLimit checks that a run never carries more results than
// the limit, that the most severe are kept (drift before findings at equal
// severity), in their original order, and that the run says how many were
// left out.
func TestSARIFResultLimit(t *testing.T) {
	v := reporttest.Optional(t)
	item := func(sev, name string) drift.Item {
		return drift.Item{Class: "tool-added", Severity: sev, Target: "tools/" + name, Message: name}
	}
	finding := func(sev, name string) lock.Finding {
		return lock.Finding{RuleID: "WRD-CAP-SHELL", Severity: sev, Target: "tools/" + name, Message: name}
	}
	findings := []lock.Finding{finding("low", "f-low"), finding("high", "f-high"), finding("critical", "f-crit"), finding("medium", "f-med")}
	items := []drift.Item{item("medium", "d-med"), item("low", "d-low"), item("high", "d-high"), item("weird", "d-unknown")}
	tests := []struct {
		name        string
		max         int
		wantTargets []string
	}{
		{"all fit", 8, []string{"f-low", "f-high", "f-crit", "f-med", "d-med", "d-low", "d-high", "d-unknown"}},
		{"default limit", 0, []string{"f-low", "f-high", "f-crit", "f-med", "d-med", "d-low", "d-high", "d-unknown"}},
		{"one", 1, []string{"f-crit"}},
		{"drift first at equal severity", 2, []string{"f-crit", "d-high"}},
		{"then the finding", 3, []string{"f-high", "f-crit", "d-high"}},
		{"unknown ranks with medium", 5, []string{"f-high", "f-crit", "d-med", "d-high", "d-unknown"}},
		{"lows last", 7, []string{"f-high", "f-crit", "f-med", "d-med", "d-low", "d-high", "d-unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, doc := renderSARIF(t, findings, items, SARIFOptions{MaxResults: tt.max})
			reporttest.AssertValid(t, v, data)
			var got []string
			for _, r := range doc.Runs[0].Results {
				got = append(got, strings.TrimPrefix(r.Locations[0].LogicalLocations[0].FullyQualifiedName, "tools/"))
			}
			if !reflect.DeepEqual(got, tt.wantTargets) {
				t.Errorf("results %q, want %q", got, tt.wantTargets)
			}
			var run struct {
				Runs []struct {
					Properties  map[string]any `json:"properties"`
					Invocations []struct {
						ExecutionSuccessful        bool `json:"executionSuccessful"`
						ToolExecutionNotifications []struct {
							Level   string `json:"level"`
							Message struct {
								Text string `json:"text"`
							} `json:"message"`
						} `json:"toolExecutionNotifications"`
					} `json:"invocations"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(data, &run); err != nil {
				t.Fatal(err)
			}
			r := run.Runs[0]
			omitted := 8 - len(tt.wantTargets)
			if omitted == 0 {
				if r.Properties != nil || r.Invocations != nil {
					t.Errorf("a complete run carries omission notes: %v %v", r.Properties, r.Invocations)
				}
				return
			}
			if r.Properties["warden/omittedResults"] != float64(omitted) || r.Properties["warden/totalResults"] != float64(8) ||
				r.Properties["warden/resultLimit"] != float64(tt.max) {
				t.Errorf("run properties = %v, want %d of 8 omitted", r.Properties, omitted)
			}
			if len(r.Invocations) != 1 || !r.Invocations[0].ExecutionSuccessful || len(r.Invocations[0].ToolExecutionNotifications) != 1 {
				t.Fatalf("invocations = %+v, want one successful with one notification", r.Invocations)
			}
			n := r.Invocations[0].ToolExecutionNotifications[0]
			if n.Level != "warning" || !strings.HasPrefix(n.Message.Text, fmt.Sprintf("%d of 8 results were left out", omitted)) {
				t.Errorf("notification = %+v", n)
			}
			// Rules describe the results the run holds.
			for _, rule := range doc.Runs[0].Tool.Driver.Rules {
				if rule.ID == "WRD-DRIFT-TOOL-ADDED" && len(tt.wantTargets) == 1 {
					t.Errorf("a rule without results is listed")
				}
			}
		})
	}
}

// TestSARIFDefaultResultLimit runs the selection at GitHub's own limit.
func TestSARIFDefaultResultLimit(t *testing.T) {
	items := make([]drift.Item, SARIFResultLimit+1)
	for i := range items {
		items[i] = drift.Item{Class: "tool-added", Severity: "high", Target: fmt.Sprintf("tools/t%d", i)}
	}
	items[0].Severity = "low"
	keptF, keptD, omitted := mostSevere([]lock.Finding{{Severity: "critical"}}, items, SARIFResultLimit)
	if omitted != 2 || len(keptF) != 1 || len(keptD) != SARIFResultLimit-1 || keptD[0].Target != "tools/t1" {
		t.Errorf("kept %d findings and %d drift items (first %q), omitted %d; want 1, %d (tools/t1), 2",
			len(keptF), len(keptD), keptD[0].Target, omitted, SARIFResultLimit-1)
	}
}

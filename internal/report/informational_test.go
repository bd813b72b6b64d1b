package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

// TestFindingLevelsAgree: a finding's --json level is its SARIF level
// (result and rule), at most "warning" whatever its severity, and its
// SARIF rule has no security-severity, so that an informational finding
// such as WRD-CAP-SQL (high) is never a High security alert in code
// scanning. Drift keeps the reference's levels and its security-severity.
func TestFindingLevelsAgree(t *testing.T) {
	tests := []struct {
		rule, severity, want string
	}{
		{"WRD-CAP-SQL", drift.High, "warning"},
		{"WRD-SEC-OPENAI", drift.Critical, "warning"},
		{"WRD-CAP-NET", drift.Medium, "warning"},
		{"WRD-SUP-NPX-UNPINNED", drift.Low, "note"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			f := []lock.Finding{{RuleID: tt.rule, Severity: tt.severity, Target: "tools/q", Message: "m", Snippet: "s"}}
			var rec struct{ Level string }
			if err := json.Unmarshal([]byte(JSONL(f, nil)), &rec); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteSARIF(&buf, f, nil, SARIFOptions{}); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Runs []struct {
					Tool struct {
						Driver struct {
							Rules []struct {
								DefaultConfiguration struct{ Level string }
								Properties           map[string]any
							}
						}
					}
					Results []struct{ Level string }
				}
			}
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			run := doc.Runs[0]
			rule := run.Tool.Driver.Rules[0]
			if rec.Level != tt.want || run.Results[0].Level != tt.want || rule.DefaultConfiguration.Level != tt.want {
				t.Errorf("levels: json %q, sarif result %q, rule %q; want %q", rec.Level, run.Results[0].Level, rule.DefaultConfiguration.Level, tt.want)
			}
			if s, ok := rule.Properties["security-severity"]; ok {
				t.Errorf("finding rule has security-severity %v", s)
			}
		})
	}
	// Drift is unchanged: high is an error with a high security-severity.
	items := []drift.Item{{Class: "tool-added", Severity: drift.High, Target: "tools/x", Message: "m"}}
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, nil, items, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, `"security-severity": "8.0"`) || !strings.Contains(s, `"level": "error"`) {
		t.Errorf("drift SARIF lost its level or security-severity:\n%s", s)
	}
	if got := JSONL(nil, items); !strings.Contains(got, `"level": "error"`) {
		t.Errorf("drift JSON level: %s", got)
	}
}

// TestVerdictJSONL: the verdict record is one JSON line of kind "verdict".
func TestVerdictJSONL(t *testing.T) {
	tests := []struct {
		verdict string
		n       int
		want    string
	}{
		{VerdictClean, 0, `{"kind": "verdict", "verdict": "clean", "drift_count": 0, "lock": "warden.lock", "findings_informational": true}` + "\n"},
		{VerdictDrift, 3, `{"kind": "verdict", "verdict": "drift", "drift_count": 3, "lock": "warden.lock", "findings_informational": true}` + "\n"},
	}
	for _, tt := range tests {
		if got := VerdictJSONL(tt.verdict, tt.n, "warden.lock"); got != tt.want {
			t.Errorf("VerdictJSONL(%s, %d) = %s, want %s", tt.verdict, tt.n, got, tt.want)
		}
	}
	servers := []ServerReport{
		{Name: "a", Mode: "check"},
		{Name: "b", Mode: "check", Drift: []drift.Item{{Class: "tool-added", Severity: drift.High}}},
		{Name: "c", Skipped: true},
	}
	want := `{"kind": "verdict", "verdict": "drift", "drift_count": 1, "servers": {"clean": 1, "drift": 1, "failed": 0, "skipped": 1}, "findings_informational": true}` + "\n"
	if got := ServerVerdictJSONL(servers); got != want {
		t.Errorf("ServerVerdictJSONL = %s, want %s", got, want)
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

func TestRuleName(t *testing.T) {
	tests := []struct{ id, want string }{
		{"WRD-DRIFT-SERVER-IDENTITY", "ServerLaunchChanged"},
		{"WRD-DRIFT-TOOL-ADDED", "ToolAdded"},
		{"WRD-DRIFT-SCHEMA-OUT-TYPE-BROADENED", "SchemaOutTypeBroadened"},
		{"WRD-DRIFT-DIGEST-MISMATCH-UNEXPLAINED", "UnexplainedDigestMismatch"},
		{"WRD-CAP-SHELL", "ShellCapability"},
		{"WRD-SEC-AWS-AKID", "PossibleAWSAccessKeyID"},
		{"WRD-SUP-NPX-UNPINNED", "UnpinnedNpxPackage"},
		{"WRD-NEW-RULE_2", "NewRule2"},
		{"WRD-", "UnknownRule"},
	}
	for _, tt := range tests {
		if got := RuleName(tt.id); got != tt.want {
			t.Errorf("RuleName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
	// Every catalogued rule has a readable name distinct from its id.
	ids := []string{"WRD-CAP-SHELL", "WRD-CAP-FS-WRITE", "WRD-CAP-FS-READ", "WRD-CAP-HTTP", "WRD-CAP-SQL",
		"WRD-SCHEMA-MALFORMED", "WRD-SEC-OPENAI", "WRD-SEC-GITHUB", "WRD-SEC-AWS-AKID", "WRD-SEC-SLACK",
		"WRD-SEC-PRIVKEY", "WRD-SEC-JWT", "WRD-SEC-ENTROPY", "WRD-SUP-CURL-PIPE", "WRD-SUP-LATEST-TAG",
		"WRD-SUP-NPX-UNPINNED", "WRD-SUP-UVX-UNPINNED", "WRD-SUP-PIP-UNPINNED"}
	for _, class := range []string{drift.ClassServerIdentity, "tool-added", "schema-enum-widened", "unapproved-change"} {
		ids = append(ids, DriftRuleID(class))
	}
	seen := map[string]string{}
	for _, id := range ids {
		name := RuleName(id)
		if name == id || strings.ContainsAny(name, "- _") || name == "" {
			t.Errorf("RuleName(%q) = %q is not a readable identifier distinct from the id", id, name)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("rules %s and %s share the name %s", id, other, name)
		}
		seen[name] = id
	}
}

func TestInformationalLevels(t *testing.T) {
	tests := []struct {
		ruleID, severity, level, annotation string
	}{
		{"WRD-CAP-SHELL", drift.Critical, "warning", "warning"},
		{"WRD-SEC-GITHUB", drift.High, "warning", "warning"},
		{"WRD-SUP-NPX-UNPINNED", drift.Medium, "warning", "warning"},
		{"WRD-CAP-FS-READ", drift.Low, "note", "notice"},
		{"WRD-DRIFT-SERVER-IDENTITY", drift.Critical, "error", "error"},
		{"WRD-DRIFT-TOOL-ADDED", drift.High, "error", "error"},
		{"WRD-DRIFT-TOOL-REMOVED", drift.Medium, "warning", "warning"},
		{"WRD-DRIFT-DESCRIPTION-MODIFIED", drift.Low, "note", "notice"},
	}
	for _, tt := range tests {
		if got := ResultLevel(tt.ruleID, tt.severity); got != tt.level {
			t.Errorf("ResultLevel(%s, %s) = %s, want %s", tt.ruleID, tt.severity, got, tt.level)
		}
		var findings []lock.Finding
		var items []drift.Item
		if isDriftRule(tt.ruleID) {
			items = []drift.Item{{Class: strings.ToLower(strings.TrimPrefix(tt.ruleID, DriftRulePrefix)), Severity: tt.severity, Target: "t", Message: "m"}}
		} else {
			findings = []lock.Finding{{RuleID: tt.ruleID, Severity: tt.severity, Target: "t", Message: "m", Snippet: "s"}}
		}
		var ann bytes.Buffer
		if err := WriteAnnotations(NewJobLog(&ann, io.Discard), findings, items, AnnotationOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(ann.String(), "::"+tt.annotation+" ") {
			t.Errorf("%s %s annotated as %q, want ::%s", tt.ruleID, tt.severity, ann.String(), tt.annotation)
		}
		_, doc := renderSARIF(t, findings, items, SARIFOptions{Version: "1.4.0"})
		run := doc.Runs[0]
		if run.Results[0].Level != tt.level || run.Tool.Driver.Rules[0].DefaultConfiguration.Level != tt.level {
			t.Errorf("%s %s: SARIF level %s, rule default %s; want %s", tt.ruleID, tt.severity,
				run.Results[0].Level, run.Tool.Driver.Rules[0].DefaultConfiguration.Level, tt.level)
		}
	}
}

func TestSARIFRuleNamesAndVersion(t *testing.T) {
	data, doc := renderSARIF(t, sampleFindings(), sampleDrift(), SARIFOptions{Version: "1.4.0"})
	if doc.Runs[0].Tool.Driver.Version != "1.4.0" {
		t.Errorf("driver version %q", doc.Runs[0].Tool.Driver.Version)
	}
	var raw struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string `json:"id"`
						Name string `json:"name"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, r := range raw.Runs[0].Tool.Driver.Rules {
		if r.Name == "" || r.Name == r.ID || r.Name != RuleName(r.ID) {
			t.Errorf("rule %s has name %q", r.ID, r.Name)
		}
	}
}

func serverLock(command string, args []string, url *string) *lock.Lock {
	return &lock.Lock{Server: lock.Server{Command: command, Args: args, URL: url}}
}

func TestLaunchChange(t *testing.T) {
	identity := []drift.Item{{Class: drift.ClassServerIdentity, Severity: drift.Critical, Target: drift.TargetLaunch,
		Message: "Server launch command/args changed since pin (you are pinning a different launch)"}}
	other := []drift.Item{{Class: "tool-added", Severity: drift.High, Target: "tools/x", Message: "m"}}
	token := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	pinnedURL, currentURL := "https://mcp.example.com/mcp", "https://user:pw@mcp.example.com/v2?api_key=abc&x"

	if c := NewLaunchChange(other, serverLock("node", nil, nil), serverLock("deno", nil, nil)); c != nil {
		t.Errorf("a launch change without server-identity drift: %+v", c)
	}
	if c := NewLaunchChange(identity, nil, serverLock("node", nil, nil)); c != nil {
		t.Errorf("a launch change without a baseline: %+v", c)
	}
	tests := []struct {
		name             string
		pinned, current  *lock.Lock
		wantRows         []LaunchRow
		absent           []string
		wantTextContains []string
	}{
		{"argument added and secret redacted",
			serverLock("npx", []string{"-y", "srv@1.0.0"}, nil),
			serverLock("npx", []string{"-y", "srv@1.0.1", "--token=" + token}, nil),
			[]LaunchRow{
				{Field: "argv[0]", Pinned: "npx", Current: "npx", HasPinned: true, HasCurrent: true},
				{Field: "argv[1]", Pinned: "-y", Current: "-y", HasPinned: true, HasCurrent: true},
				{Field: "argv[2]", Pinned: "srv@1.0.0", Current: "srv@1.0.1", HasPinned: true, HasCurrent: true, Changed: true},
				{Field: "argv[3]", Current: "--token=ghp_…(len=40)", HasCurrent: true, Changed: true},
			},
			[]string{token},
			[]string{"* argv[2]  srv@1.0.0  srv@1.0.1", "* argv[3]  (none)     --token=ghp_…(len=40)"}},
		{"argument removed",
			serverLock("node", []string{"a.js", "--flag"}, nil),
			serverLock("node", []string{"a.js"}, nil),
			[]LaunchRow{
				{Field: "argv[0]", Pinned: "node", Current: "node", HasPinned: true, HasCurrent: true},
				{Field: "argv[1]", Pinned: "a.js", Current: "a.js", HasPinned: true, HasCurrent: true},
				{Field: "argv[2]", Pinned: "--flag", HasPinned: true, Changed: true},
			}, nil, []string{"* argv[2]  --flag  (none)"}},
		{"url changed, credentials hidden",
			serverLock("", nil, &pinnedURL),
			serverLock("", nil, &currentURL),
			[]LaunchRow{{Field: "url", Pinned: pinnedURL, Current: "https://%3Credacted%3E@mcp.example.com/v2?api_key=<redacted>&x",
				HasPinned: true, HasCurrent: true, Changed: true}},
			[]string{"user:pw", "abc"}, []string{"* url"}},
		{"stdio to http",
			serverLock("node", []string{"s.js"}, nil),
			serverLock("", nil, &pinnedURL),
			[]LaunchRow{
				{Field: "argv[0]", Pinned: "node", HasPinned: true, Changed: true},
				{Field: "argv[1]", Pinned: "s.js", HasPinned: true, Changed: true},
				{Field: "url", Current: pinnedURL, HasCurrent: true, Changed: true},
			}, nil, []string{"* url      (none)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewLaunchChange(append(other, identity...), tt.pinned, tt.current)
			rows := c.Rows()
			if len(rows) != len(tt.wantRows) {
				t.Fatalf("rows = %+v\nwant %+v", rows, tt.wantRows)
			}
			for i := range rows {
				if rows[i] != tt.wantRows[i] {
					t.Errorf("row %d = %+v, want %+v", i, rows[i], tt.wantRows[i])
				}
			}
			var text bytes.Buffer
			if err := WriteLaunchText(&text, c); err != nil {
				t.Fatal(err)
			}
			jsonl := JSONLWithLaunch(nil, append(other, identity...), c)
			var sum strings.Builder
			writeLaunchSummary(&sum, c)
			sarif, _ := renderSARIF(t, nil, identity, SARIFOptions{Launch: c})
			for _, out := range []string{text.String(), jsonl, sum.String(), string(sarif)} {
				for _, a := range tt.absent {
					if strings.Contains(out, a) {
						t.Errorf("output holds %q:\n%s", a, out)
					}
				}
			}
			for _, want := range tt.wantTextContains {
				if !strings.Contains(text.String(), want) {
					t.Errorf("text lacks %q:\n%s", want, text.String())
				}
			}
			// JSON: only the identity record carries "launch", after the
			// reference's members, which are unchanged.
			lines := strings.Split(strings.TrimSpace(jsonl), "\n")
			plain := strings.Split(strings.TrimSpace(JSONL(nil, append(other, identity...))), "\n")
			if lines[0] != plain[0] || !strings.HasPrefix(lines[1], strings.TrimSuffix(plain[1], "}")+`, "launch": {"pinned": {"command": `) {
				t.Errorf("JSON lines:\n%s\nwant the reference's records with launch appended to the second:\n%s", jsonl, strings.Join(plain, "\n"))
			}
			if !strings.Contains(sum.String(), "#### Launch (server-identity)") || !strings.Contains(sum.String(), "| ✱ |") {
				t.Errorf("summary:\n%s", sum.String())
			}
		})
	}
	var empty bytes.Buffer
	if err := WriteLaunchText(&empty, nil); err != nil || empty.Len() != 0 {
		t.Errorf("nil change wrote %q, %v", empty.String(), err)
	}
	if got := JSONLWithLaunch(nil, identity, nil); got != JSONL(nil, identity) {
		t.Errorf("nil change changed the JSON lines: %s", got)
	}
}

package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
)

func TestAllowlistNames(t *testing.T) {
	tests := []struct {
		list Allowlist
		tool string
		want bool
	}{
		{Allowlist{Tools: []string{"a", "b"}}, "a", true},
		{Allowlist{Tools: []string{"a", "b"}}, "c", false},
		{Allowlist{Tools: []string{"*"}}, "c", true},
		{Allowlist{Tools: []string{"*"}, Except: []string{"c"}}, "c", false},
		{Allowlist{Tools: []string{}}, "a", false},
	}
	for _, tt := range tests {
		if got := tt.list.Names(tt.tool); got != tt.want {
			t.Errorf("%+v.Names(%q) = %v", tt.list, tt.tool, got)
		}
	}
}

// TestAllowlistReports: a drift item on an allowlisted tool names the
// allowlist in the text, JSON, SARIF and summary; one on another tool, or
// on a resource of the same name, does not; the configs and launch notes
// open the server's report; terminal escapes in config text are made
// inert.
func TestAllowlistReports(t *testing.T) {
	s := ServerReport{
		Name: "demo", Mode: "check", LockPath: "locks/demo.warden.lock",
		Drift: []drift.Item{
			{Class: "tool-added", Severity: "high", Target: "tools/get_weather", Message: "changed"},
			{Class: "tool-added", Severity: "high", Target: "tools/other", Message: "added"},
			{Class: "resource-added", Severity: "low", Target: "resources/get_weather", Message: "added"},
		},
		Allowlists: []Allowlist{{Tools: []string{"get_weather"}, From: "\"tools\" of server \"demo\x1b[31m\" in a.json"}},
		Configs:    []string{"a.json", "b.json"},
		Notes:      []string{`runs "npx x" without "cmd /c" (a Windows launch, on a linux runner)`},
	}
	var text bytes.Buffer
	if err := WriteServerText(&text, []ServerReport{s}); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{"[demo] configs: a.json, b.json\n", "[demo] launch: runs \"npx x\" without \"cmd /c\"", "[demo] allowlisted: tools/get_weather drifted, and "} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "allowlisted:") != 1 || strings.Contains(out, "\x1b") {
		t.Errorf("text:\n%q", out)
	}
	jsonl := ServerJSONL([]ServerReport{s})
	if strings.Count(jsonl, `"allowlists": [`) != 1 || !strings.Contains(jsonl, `{"server": "demo", "kind": "server", "configs": ["a.json", "b.json"], "launch_notes": [`) {
		t.Errorf("JSON:\n%s", jsonl)
	}
	var sarif bytes.Buffer
	if err := WriteServerSARIF(&sarif, []ServerReport{s}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(sarif.String(), `"allowlists": [`) != 1 {
		t.Errorf("SARIF:\n%s", sarif.String())
	}
	md := RenderServerSummary("check", []ServerReport{s}, "")
	if !strings.Contains(md, "**Allowlisted tools drifted**") || !strings.Contains(md, "named in <code>a.json</code>, <code>b.json</code>") ||
		!strings.Contains(md, "Launch: runs") || strings.Contains(md, "\x1b") {
		t.Errorf("summary:\n%s", md)
	}
}

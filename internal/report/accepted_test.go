package report

import (
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

var downAgain = []AcceptedList{{List: "resources", Code: -32603, Occurred: true}}

func TestAcceptedMarkdown(t *testing.T) {
	row := "| `resources/list` | -32603 | the same error again: accepted as an empty section |\n"
	answered := "| `prompts/list` | -32000 | answered without that error: its items are compared with the empty pinned section |\n"
	tests := []struct {
		name      string
		md        string
		want      []string
		notWanted []string
	}{
		{"clean check summary", RenderSummary(Summary{Mode: "check", Verdict: VerdictClean, LockPath: "warden.lock", Accepted: downAgain}),
			[]string{"## ✅ warden: no drift", "### Lists accepted as errors\n", row}, nil},
		{"drift summary", RenderSummary(Summary{Mode: "check", Verdict: VerdictDrift, LockPath: "warden.lock",
			Drift:    []drift.Item{{Class: "prompt-added", Severity: "medium", Target: "prompts/p", Message: "Prompt 'p' added"}},
			Accepted: []AcceptedList{{List: "prompts", Code: -32000}}}),
			[]string{"### Lists accepted as errors\n", answered}, nil},
		{"pin summary", RenderSummary(Summary{Mode: "pin", Verdict: VerdictClean, LockPath: "warden.lock", Accepted: downAgain}),
			[]string{"## 📌 warden: pinned", "each section is pinned empty", "| `resources/list` | -32603 |\n"}, []string{"This check"}},
		{"no accepted lists", RenderSummary(Summary{Mode: "check", Verdict: VerdictClean, LockPath: "warden.lock"}),
			nil, []string{"accepted as errors"}},
		{"error summary", RenderSummary(Summary{Mode: "check", Verdict: VerdictError, LockPath: "warden.lock", Error: "x", Accepted: downAgain}),
			nil, []string{"accepted as errors"}},
		{"clean comment", RenderComment(Comment{LockPath: "warden.lock", Verdict: VerdictClean, Accepted: downAgain}),
			[]string{"The MCP server declares exactly what the lock pins.", "### Lists accepted as errors\n", row}, nil},
		{"error comment", RenderComment(Comment{LockPath: "warden.lock", Verdict: VerdictError, Error: "x", Accepted: downAgain}),
			nil, []string{"accepted as errors"}},
		{"pull request adds a record", RenderComment(Comment{LockPath: "warden.lock", Verdict: VerdictClean, Accepted: downAgain,
			LockChanges: &LockChanges{State: LockChanged, LockPath: "warden.lock", BaseSHA: "abc",
				HeadAccepted: []lock.AcceptedListError{{List: "resources", Code: -32603}}}}),
			[]string{"⚠️ This pull request changes the lists the lock accepts as errors (`pin.accepted_list_errors`, outside the overall digest, so no approval covers it): base branch none, this pull request `resources/list` -32603.\n"}, nil},
		{"pull request keeps the record", RenderComment(Comment{LockPath: "warden.lock", Verdict: VerdictClean, Accepted: downAgain,
			LockChanges: &LockChanges{State: LockChanged, LockPath: "warden.lock", BaseSHA: "abc",
				BaseAccepted: []lock.AcceptedListError{{List: "resources", Code: -32603}},
				HeadAccepted: []lock.AcceptedListError{{List: "resources", Code: -32603}}}}),
			nil, []string{"changes the lists the lock accepts"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.md, w) {
					t.Errorf("lacks %q:\n%s", w, tc.md)
				}
			}
			for _, w := range tc.notWanted {
				if strings.Contains(tc.md, w) {
					t.Errorf("has %q:\n%s", w, tc.md)
				}
			}
		})
	}
}

// TestAcceptedSARIF: the accepted lists are run properties and note-level
// notifications, beside (not instead of) the omitted-results ones.
func TestAcceptedSARIF(t *testing.T) {
	items := []drift.Item{
		{Class: "resource-added", Severity: "medium", Target: "resources/a", Message: "Resource 'a' added"},
		{Class: "resource-added", Severity: "medium", Target: "resources/b", Message: "Resource 'b' added"},
	}
	rep, err := BuildSARIF(nil, items, SARIFOptions{MaxResults: 1, Accepted: downAgain})
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	if len(run.Results) != 1 {
		t.Errorf("%d results, want 1", len(run.Results))
	}
	if run.Properties["warden/omittedResults"] != 1 {
		t.Errorf("properties: %v", run.Properties)
	}
	acc, ok := run.Properties["warden/acceptedListErrors"].([]map[string]any)
	if !ok || len(acc) != 1 || acc[0]["list"] != "resources" || acc[0]["code"] != int64(-32603) || acc[0]["occurred"] != true {
		t.Errorf("warden/acceptedListErrors = %#v", run.Properties["warden/acceptedListErrors"])
	}
	notes := run.Invocations[0].ToolExecutionNotifications
	if len(run.Invocations) != 1 || len(notes) != 2 || notes[0].Level != "warning" || notes[1].Level != "note" ||
		*notes[1].Message.Text != AcceptedText(downAgain[0]) {
		t.Errorf("notifications: %+v", notes)
	}

	plain, err := BuildSARIF(nil, items, SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Runs[0].Invocations) != 0 || plain.Runs[0].Properties != nil {
		t.Error("a run without accepted lists or omitted results has invocations or properties")
	}
}

func TestAcceptedJSONL(t *testing.T) {
	items := []drift.Item{{Class: "resource-added", Severity: "medium", Target: "resources/a", Message: "Resource 'a' added"}}
	text, err := JSONLWith(nil, items, JSONLOptions{Accepted: []AcceptedList{{List: "resources", Code: -32603}}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	want := `{"kind": "accepted_list_error", "list": "resources", "code": -32603, "occurred": false, "message": "resources/list, accepted at pin as JSON-RPC error -32603 (pin.accepted_list_errors), did not answer with that error: its items are compared with the empty pinned section"}`
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"kind": "drift"`) || lines[1] != want {
		t.Errorf("JSON lines:\n%s", text)
	}
}

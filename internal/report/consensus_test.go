package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/consensus"
)

func consensusResult(v consensus.Verdict) *consensus.Result {
	return &consensus.Result{
		Verdict: v, Coordinate: "npm:@scope/pkg@1.0.0", Levels: []int{3}, Observed: []string{"sha256:aa"},
		MinAttesters: 1, Agreeing: 0, Reason: "the observed surface differs <script>",
		Attesters: []consensus.AttesterResult{{ID: "alice", Status: consensus.Differs, Level: 3, SurfaceDigest: "sha256:bb"}},
	}
}

// TestConsensusSARIF: a mismatch is a result under its own rule with its
// docs row as helpUri; a match is no result but still in the run's
// properties.
func TestConsensusSARIF(t *testing.T) {
	for _, tc := range []struct {
		v       consensus.Verdict
		results int
		level   string
	}{
		{consensus.Mismatch, 1, "error"},
		{consensus.Novel, 1, "note"},
		{consensus.Unverifiable, 1, "error"},
		{consensus.Match, 0, ""},
	} {
		var buf bytes.Buffer
		if err := WriteSARIF(&buf, nil, nil, SARIFOptions{Consensus: consensusResult(tc.v)}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						Rules []struct {
							ID      string `json:"id"`
							HelpURI string `json:"helpUri"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID string `json:"ruleId"`
					Level  string `json:"level"`
				} `json:"results"`
				Properties map[string]any `json:"properties"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		run := doc.Runs[0]
		if len(run.Results) != tc.results {
			t.Fatalf("%s: %d results", tc.v, len(run.Results))
		}
		if c, _ := run.Properties["warden/consensus"].(map[string]any); c["verdict"] != string(tc.v) {
			t.Errorf("%s: run properties %v", tc.v, run.Properties)
		}
		if tc.results == 0 {
			continue
		}
		if run.Results[0].RuleID != string(tc.v) || run.Results[0].Level != tc.level {
			t.Errorf("%s: result %+v", tc.v, run.Results[0])
		}
		want := DocsURI + "consensus.md#" + strings.ToLower(string(tc.v))
		if len(run.Tool.Driver.Rules) != 1 || run.Tool.Driver.Rules[0].HelpURI != want || HelpURI(string(tc.v)) != want {
			t.Errorf("%s: rules %+v, want helpUri %s", tc.v, run.Tool.Driver.Rules, want)
		}
	}
}

func TestConsensusMarkdownAndJSONL(t *testing.T) {
	r := consensusResult(consensus.Mismatch)
	c := RenderComment(Comment{LockPath: "warden.lock", Verdict: VerdictClean, Consensus: r})
	s := RenderSummary(Summary{Mode: "check", Verdict: VerdictClean, Consensus: r})
	for _, md := range []string{c, s} {
		if !strings.Contains(md, "### ❌ Community consensus: <code>WRD-CONSENSUS-MISMATCH</code>") || !strings.Contains(md, "compared at level 3") {
			t.Errorf("markdown lacks the consensus section:\n%s", md)
		}
		if strings.Contains(md, "<script>") {
			t.Errorf("reason not escaped:\n%s", md)
		}
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(ConsensusJSONL(r)), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["kind"] != "consensus" || rec["verdict"] != "WRD-CONSENSUS-MISMATCH" || rec["exit_code"] != 1.0 {
		t.Errorf("record %v", rec)
	}
	var text bytes.Buffer
	if err := WriteConsensusText(&text, r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text.String(), "consensus: WRD-CONSENSUS-MISMATCH npm:@scope/pkg@1.0.0 (compared at level 3): the observed surface differs") {
		t.Errorf("text:\n%s", text.String())
	}
}

package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

// cleanEverythingCmd is the launch of server-everything 2026.8.31 as installed alone
// (testserver.IsolatedEverything), the layout the attester observed.
func cleanEverythingCmd(t *testing.T) string {
	t.Helper()
	return "node " + testserver.IsolatedEverything(t)
}

// TestCheckAgainstCommunityAction runs the Action's check with
// against-community on server-everything 2026.8.31 against a copy of the
// sample corpus in the workspace: a match at level 3 reaches the outputs
// (the verdict id only), the summary and the exit code; with the default
// two attesters it is insufficient, exit 0; with require-consensus exit 1.
func TestCheckAgainstCommunityAction(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	sample := filepath.Join(testserver.RepoRoot(t), "..", "shared", "community-sample")
	if _, err := os.Stat(filepath.Join(sample, "locks")); err != nil {
		t.Skip("../shared/community-sample is absent")
	}
	cmd := cleanEverythingCmd(t)
	h := newHarness(t)
	rel := filepath.Join("locks", "npm", "@modelcontextprotocol__server-everything", "2026.8.31")
	if err := os.MkdirAll(filepath.Join(h.ws, "corpus", rel), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"dse-nightly.lock", "dse-nightly.lock.sigstore"} {
		b, err := os.ReadFile(filepath.Join(sample, rel, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(h.ws, "corpus", rel, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.input("server-cmd", cmd)
	h.input("mode", "pin")
	if r := h.run(); r.code != ExitClean {
		t.Fatalf("pin exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		name    string
		min     string
		require string
		code    int
		verdict string
	}{
		{"match", "1", "", ExitClean, "WRD-CONSENSUS-MATCH"},
		{"insufficient", "", "", ExitClean, "WRD-CONSENSUS-INSUFFICIENT"},
		{"insufficient required", "", "true", ExitDrift, "WRD-CONSENSUS-INSUFFICIENT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.reset()
			h.input("server-cmd", cmd)
			h.input("mode", "check")
			h.input("against-community", "true")
			h.input("corpus", "corpus")
			h.input("attester", "dse-nightly=https://github.com/DataScience-EngineeringExperts/mcp-warden-locks/.github/workflows/attest.yml@refs/heads/main@https://token.actions.githubusercontent.com\n")
			h.input("coordinate", "npm:@modelcontextprotocol/server-everything@2026.8.31")
			h.input("min-attesters", tc.min)
			h.input("require-consensus", tc.require)
			r := h.run()
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if r.outputs["consensus"] != tc.verdict || r.outputs["exit-code"] != string(rune('0'+tc.code)) {
				t.Errorf("outputs %q", r.outputs)
			}
			if !strings.Contains(r.summary, "Community consensus: <code>"+tc.verdict+"</code>") || !strings.Contains(r.summary, "compared at level 3") {
				t.Errorf("summary:\n%s", r.summary)
			}
		})
	}
}

func TestConsensusInputs(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]string
		want string
	}{
		{map[string]string{"corpus": "c"}, "input corpus: only used with against-community: true"},
		{map[string]string{"against-community": "true"}, "input corpus: against-community needs a corpus"},
		{map[string]string{"against-community": "yes", "corpus": "c"}, "input against-community: \"yes\" is not true or false"},
		{map[string]string{"against-community": "true", "corpus": "c", "min-attesters": "0"}, "input min-attesters"},
		{map[string]string{"against-community": "true", "corpus": "c", "attester": "x"}, "input attester"},
		{map[string]string{"against-community": "true", "corpus": "c", "mode": "pin"}, "only used with mode: check"},
	} {
		tc.in["server-cmd"] = "srv"
		_, err := ParseInputs(func(k string) string { return tc.in[k] })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.in, err, tc.want)
		}
	}
	in, err := ParseInputs(func(k string) string {
		return map[string]string{"server-cmd": "srv", "against-community": "true", "corpus": "c",
			"attester": "a=x@refs/heads/main@https://i\nb=y@https://i", "min-attesters": "3", "require-consensus": "true"}[k]
	})
	if err != nil || in.Consensus == nil || len(in.Consensus.Attesters) != 2 || in.Consensus.MinAttesters != 3 || !in.Consensus.Require ||
		in.Consensus.Attesters[0].Identity != "x@refs/heads/main" {
		t.Errorf("%+v %v", in.Consensus, err)
	}
}

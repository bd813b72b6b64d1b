package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

// The attester of the sample corpus, as a user trusting it would type it
// (from its attesters.json, which the test does not read: trust is the
// user's input).
const (
	dseIdentity = "https://github.com/DataScience-EngineeringExperts/mcp-warden-locks/.github/workflows/attest.yml@refs/heads/main"
	dseIssuer   = "https://token.actions.githubusercontent.com"
	dseAttester = "dse-nightly=" + dseIdentity + "@" + dseIssuer
	everything  = "npm:@modelcontextprotocol/server-everything@2026.8.31"
)

// communitySample returns ../shared/community-sample, skipping without it.
func communitySample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testserver.RepoRoot(t), "..", "shared", "community-sample")
	if _, err := os.Stat(filepath.Join(dir, "locks")); err != nil {
		t.Skip("../shared/community-sample is absent; the community consensus tests read the sample corpus there")
	}
	return dir
}

// cleanEverything is the launch of server-everything 2026.8.31 as installed
// alone (testserver.IsolatedEverything), the layout the attester observed.
func cleanEverything(t *testing.T) []string {
	t.Helper()
	return []string{"node", testserver.IsolatedEverything(t)}
}

// pinLaunch pins launch into a fresh lock and returns its path.
func pinLaunch(t *testing.T, launch []string) string {
	t.Helper()
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	if code, out, errs := run(t, append([]string{"pin", "--lock", lockPath, "--"}, launch...)...); code != ExitClean {
		t.Fatalf("pin exit %d:\n%s%s", code, out, errs)
	}
	return lockPath
}

// copyCorpus copies the sample corpus's locks for the given package
// directories (under locks/npm) into a temporary corpus.
func copyCorpus(t *testing.T, sample string, pkgs ...string) string {
	t.Helper()
	dst := t.TempDir()
	for _, pkg := range pkgs {
		src := filepath.Join(sample, "locks", "npm", pkg, "2026.8.31")
		to := filepath.Join(dst, "locks", "npm", pkg, "2026.8.31")
		if err := os.MkdirAll(to, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"dse-nightly.lock", "dse-nightly.lock.sigstore"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(to, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(pkgs) == 0 {
		if err := os.MkdirAll(filepath.Join(dst, "locks"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

const (
	everythingDir = "@modelcontextprotocol__server-everything"
	memoryDir     = "@modelcontextprotocol__server-memory"
)

// TestCheckAgainstCommunity checks server-everything 2026.8.31 against the
// sample corpus with the real Sigstore verifier and the embedded
// public-good root: a clean match at level 3 with one attester required,
// and each way the comparison must fail or refuse, with the reference's
// verdict and exit code.
func TestCheckAgainstCommunity(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	sample := communitySample(t)
	launch := cleanEverything(t)
	lockPath := pinLaunch(t, launch)
	editedDigest := copyCorpus(t, sample, everythingDir)
	{
		p := filepath.Join(editedDigest, "locks", "npm", everythingDir, "2026.8.31", "dse-nightly.lock")
		b, _ := os.ReadFile(p)
		edited := regexp.MustCompile(`"overall_digest": "sha256:[0-9a-f]{4}`).ReplaceAllString(string(b), `"overall_digest": "sha256:0000`)
		if edited == string(b) {
			t.Fatal("no overall_digest to edit")
		}
		os.WriteFile(p, []byte(edited), 0o644)
	}
	otherBundle := copyCorpus(t, sample, everythingDir, memoryDir)
	{
		b, _ := os.ReadFile(filepath.Join(otherBundle, "locks", "npm", memoryDir, "2026.8.31", "dse-nightly.lock.sigstore"))
		os.WriteFile(filepath.Join(otherBundle, "locks", "npm", everythingDir, "2026.8.31", "dse-nightly.lock.sigstore"), b, 0o644)
	}
	// A lock and its own bundle moved under another package: the
	// statement is rebuilt from the directory, so it does not verify.
	moved := copyCorpus(t, sample, memoryDir)
	os.Rename(filepath.Join(moved, "locks", "npm", memoryDir), filepath.Join(moved, "locks", "npm", everythingDir))
	withoutIt := copyCorpus(t, sample, memoryDir)

	base := []string{"check", "--lock", lockPath, "--against-community"}
	tests := []struct {
		name   string
		args   []string
		launch []string
		code   int
		want   []string
	}{
		{"match at level 3", []string{"--corpus", sample, "--attester", dseAttester, "--min-attesters", "1", "--coordinate", everything}, nil,
			ExitClean, []string{"consensus: WRD-CONSENSUS-MATCH " + everything + " (compared at level 3): 1 trusted attester(s) agree, 1 required", "attester dse-nightly: agrees (level 3, sha256:"}},
		{"insufficient by default", []string{"--corpus", sample, "--attester", dseAttester, "--coordinate", everything}, nil,
			ExitClean, []string{"consensus: WRD-CONSENSUS-INSUFFICIENT " + everything + " (compared at level 3): 1 trusted attester(s) agree with the observed surface of " + everything + "; 2 required"}},
		{"insufficient blocks with --require-consensus", []string{"--corpus", sample, "--attester", dseAttester, "--coordinate", everything, "--require-consensus"}, nil,
			ExitDrift, []string{"WRD-CONSENSUS-INSUFFICIENT"}},
		{"edited digest", []string{"--corpus", editedDigest, "--attester", dseAttester, "--min-attesters", "1", "--coordinate", everything}, nil,
			ExitError, []string{"consensus: WRD-CONSENSUS-UNVERIFIABLE " + everything + " (nothing compared): attester dse-nightly: lock locks/npm/" + everythingDir + "/2026.8.31/dse-nightly.lock does not reproduce its own digests"}},
		{"a bundle of another lock", []string{"--corpus", otherBundle, "--attester", dseAttester, "--min-attesters", "1", "--coordinate", everything}, nil,
			ExitError, []string{"WRD-CONSENSUS-UNVERIFIABLE", "does not verify for " + everything}},
		{"a lock and bundle moved under another package", []string{"--corpus", moved, "--attester", dseAttester, "--min-attesters", "1", "--coordinate", everything}, nil,
			ExitError, []string{"WRD-CONSENSUS-UNVERIFIABLE", "does not verify"}},
		{"wrong attester identity", []string{"--corpus", sample, "--attester", "dse-nightly=https://github.com/someone/else/.github/workflows/attest.yml@refs/heads/main@" + dseIssuer, "--min-attesters", "1", "--coordinate", everything}, nil,
			ExitError, []string{"WRD-CONSENSUS-UNVERIFIABLE", "identity https://github.com/someone/else/"}},
		{"corpus without the coordinate", []string{"--corpus", withoutIt, "--attester", dseAttester, "--coordinate", everything}, nil,
			ExitClean, []string{"consensus: WRD-CONSENSUS-NOVEL " + everything + ": no trusted attester has " + everything}},
		{"launch without an exact version", []string{"--corpus", sample, "--attester", dseAttester}, nil,
			ExitError, []string{"consensus: WRD-CONSENSUS-UNRESOLVED (nothing compared): launch \"node\" is not npx, uvx or pipx run with an exact version; give --coordinate"}},
		{"another server's surface", []string{"--corpus", sample, "--attester", dseAttester, "--min-attesters", "1", "--coordinate", "npm:@modelcontextprotocol/server-memory@2026.8.31"}, nil,
			ExitDrift, []string{"consensus: WRD-CONSENSUS-MISMATCH npm:@modelcontextprotocol/server-memory@2026.8.31 (compared at level 3): the observed surface"}},
		{"the corpus's own attesters file", []string{"--corpus", sample, "--attesters-file", filepath.Join(sample, "attesters.json"), "--coordinate", everything}, nil,
			ExitError, []string{"WRD-CONSENSUS-UNPINNED-TRUST", "is inside the corpus"}},
		{"no attester", []string{"--corpus", sample, "--coordinate", everything}, nil,
			ExitError, []string{"WRD-CONSENSUS-UNPINNED-TRUST " + everything + " (nothing compared)", "no trusted attester"}},
		{"a URL without a commit", []string{"--corpus", "https://github.com/DataScience-EngineeringExperts/mcp-warden-locks", "--attester", dseAttester, "--coordinate", everything}, nil,
			ExitError, []string{"WRD-CONSENSUS-UNPINNED-TRUST", "--corpus-ref"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.launch
			if l == nil {
				l = launch
			}
			args := append(append(append([]string{}, base...), tc.args...), "--")
			code, out, errs := run(t, append(args, l...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tc.code, out, errs)
			}
			if !strings.Contains(out, "OK no drift vs ") {
				t.Errorf("the lock check did not run or drifted:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errs)
				}
			}
		})
	}
}

// TestCheckAgainstCommunityHoisted checks the fixture as testdata/npm
// hoists it (zod 3 beside the SDK), whose input schemas lose the bounds
// the attester observed: a real mismatch at level 3 with the lock check
// itself clean, and in every output.
func TestCheckAgainstCommunityHoisted(t *testing.T) {
	sample := communitySample(t)
	launch := []string{"node", filepath.Join(testserver.NPMPackage(t, "server-everything-next"), "dist", "index.js")}
	lockPath := pinLaunch(t, launch)
	sarifPath := filepath.Join(t.TempDir(), "out.sarif")
	args := append([]string{"check", "--lock", lockPath, "--json", "--sarif", sarifPath, "--against-community", "--corpus", sample,
		"--attester", dseAttester, "--min-attesters", "1", "--coordinate", everything, "--"}, launch...)
	code, out, errs := run(t, args...)
	if code != ExitDrift {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	var rec map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if r["kind"] == "consensus" {
			rec = r
		}
	}
	if rec == nil || rec["verdict"] != "WRD-CONSENSUS-MISMATCH" || rec["exit_code"] != 1.0 || rec["coordinate"] != everything {
		t.Fatalf("consensus record %v in:\n%s", rec, out)
	}
	if lv, _ := rec["levels"].([]any); len(lv) != 1 || lv[0] != 3.0 {
		t.Errorf("levels %v, want [3]", rec["levels"])
	}
	b, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, w := range []string{`"ruleId": "WRD-CONSENSUS-MISMATCH"`, `"helpUri": "https://github.com/wardenlock/warden/blob/main/docs/consensus.md#wrd-consensus-mismatch"`, `"warden/consensus"`} {
		if !strings.Contains(s, w) {
			t.Errorf("SARIF lacks %s", w)
		}
	}
}

// TestConsensusFlagsUsage refuses consensus flags without
// --against-community, and --against-community without a corpus, before
// anything is launched.
func TestConsensusFlagsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--corpus", "x", "--", "true"}, "--corpus needs --against-community"},
		{[]string{"check", "--against-community", "--", "true"}, "--against-community needs --corpus PATH|URL"},
		{[]string{"check", "--against-community", "--corpus", "x", "--min-attesters", "0", "--", "true"}, "--min-attesters must be at least 1"},
		{[]string{"check", "--against-community", "--corpus", "x", "--attester", "nobody", "--lock", "/nonexistent/warden.lock", "--", "true"}, "--attester: attester \"nobody\": want ID=IDENTITY@ISSUER"},
		// --trusted-root is --verify's and --against-community's.
		{[]string{"check", "--against-community", "--corpus", "x", "--trusted-root", "/nonexistent/root.json", "--", "true"}, "sigstore trusted root"},
		{[]string{"check", "--trusted-root", "/nonexistent/root.json", "--", "true"}, "need --verify"},
	} {
		code, _, errs := run(t, tc.args...)
		if code != ExitError || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/wardenlock/warden/internal/consensus"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// ConsensusHelpURI is a consensus verdict's row in docs/consensus.md.
func ConsensusHelpURI(v consensus.Verdict) string {
	return DocsURI + "consensus.md#" + strings.ToLower(string(v))
}

// consensusSeverity ranks a verdict as drift severities go: a
// disagreement or a failure to compare is high; novel and insufficient
// are low, or medium when consensus is required.
func consensusSeverity(r *consensus.Result) string {
	switch r.Verdict {
	case consensus.Match:
		return drift.Low
	case consensus.Novel, consensus.Insufficient:
		if r.RequireConsensus {
			return drift.Medium
		}
		return drift.Low
	}
	return drift.High
}

// consensusShort is one sentence per verdict for a SARIF rule.
func consensusShort(v consensus.Verdict) string {
	switch v {
	case consensus.Match:
		return "Enough trusted attesters signed the surface observed for this release."
	case consensus.Novel:
		return "No trusted attester has attested this release."
	case consensus.Insufficient:
		return "Fewer trusted attesters agree with the observed surface than required."
	case consensus.Mismatch:
		return "The observed surface differs from every trusted attestation of this release."
	case consensus.Split:
		return "Trusted attesters disagree about this release's surface."
	case consensus.Unverifiable:
		return "A trusted attester's corpus lock or signature did not verify; nothing was compared."
	case consensus.Unreachable:
		return "The community corpus could not be read; nothing was compared."
	case consensus.UnpinnedTrust:
		return "No trust was pinned (attesters, or the corpus commit); nothing was compared."
	case consensus.Unresolved:
		return "The release (coordinate) could not be told from the launch; nothing was compared."
	case consensus.SchemaMismatch:
		return "A corpus lock is at a schema level warden cannot rebuild a capture at; nothing was compared."
	}
	return "Community consensus verdict."
}

// ConsensusHeadline is the verdict on one line: the verdict, the release
// and the level compared at, with the reason when not a match.
func ConsensusHeadline(r *consensus.Result) string {
	var b strings.Builder
	b.WriteString(string(r.Verdict))
	if r.Coordinate != "" {
		b.WriteString(" " + r.Coordinate)
	}
	if lt := r.LevelText(); lt != "" {
		b.WriteString(" (compared at " + lt + ")")
	} else if r.Exit() == 2 {
		b.WriteString(" (nothing compared)")
	}
	if r.Verdict == consensus.Match {
		fmt.Fprintf(&b, ": %d trusted attester(s) agree, %d required", r.Agreeing, r.MinAttesters)
	} else if r.Reason != "" {
		b.WriteString(": " + r.Reason)
	}
	return b.String()
}

// WriteConsensusText writes the verdict and each trusted attester's part.
func WriteConsensusText(w io.Writer, r *consensus.Result) error {
	if r == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "consensus: %s\n", Message(ConsensusHeadline(r)))
	for i, l := range r.Levels {
		fmt.Fprintf(bw, "  observed surface at level %d: %s\n", l, r.Observed[i])
	}
	for _, a := range r.Attesters {
		line := "  attester " + a.ID + ": " + string(a.Status)
		if a.Level > 0 {
			line += fmt.Sprintf(" (level %d", a.Level)
			if a.SurfaceDigest != "" {
				line += ", " + a.SurfaceDigest
			}
			line += ")"
		}
		if a.Reason != "" {
			line += ": " + a.Reason
		}
		fmt.Fprintf(bw, "%s\n", Message(line))
	}
	if r.Verdict == consensus.Match || r.Verdict == consensus.Novel || r.Verdict == consensus.Insufficient {
		fmt.Fprintf(bw, "  (consensus is observation by named attesters, not a safety review; see docs/consensus.md)\n")
	}
	return bw.Flush()
}

// ConsensusJSONL is the --json record of a consensus check: kind
// "consensus", the verdict, its exit code and the whole result.
func ConsensusJSONL(r *consensus.Result) string {
	levels := make([]*jsonv.Value, len(r.Levels))
	for i, l := range r.Levels {
		levels[i] = jsonv.NewInt(int64(l))
	}
	attesters := make([]*jsonv.Value, len(r.Attesters))
	for i, a := range r.Attesters {
		attesters[i] = jsonv.NewObject(
			jsonv.M("id", jsonv.NewString(a.ID)),
			jsonv.M("status", jsonv.NewString(string(a.Status))),
			jsonv.M("level", jsonv.NewInt(int64(a.Level))),
			jsonv.M("surface_digest", jsonv.NewString(a.SurfaceDigest)),
			jsonv.M("reason", jsonv.NewString(Clip(a.Reason, MaxMessageBytes))),
		)
	}
	rec := jsonv.NewObject(
		jsonv.M("kind", jsonv.NewString("consensus")),
		jsonv.M("verdict", jsonv.NewString(string(r.Verdict))),
		jsonv.M("exit_code", jsonv.NewInt(int64(r.Exit()))),
		jsonv.M("coordinate", jsonv.NewString(r.Coordinate)),
		jsonv.M("levels", jsonv.NewArray(levels...)),
		jsonv.M("observed", jsonv.NewStrings(r.Observed)),
		jsonv.M("min_attesters", jsonv.NewInt(int64(r.MinAttesters))),
		jsonv.M("agreeing", jsonv.NewInt(int64(r.Agreeing))),
		jsonv.M("require_consensus", jsonv.NewBool(r.RequireConsensus)),
		jsonv.M("attesters", jsonv.NewArray(attesters...)),
		jsonv.M("corpus", jsonv.NewString(Clip(r.Corpus, MaxMessageBytes))),
		jsonv.M("corpus_ref", jsonv.NewString(r.Ref)),
		jsonv.M("reason", jsonv.NewString(Clip(r.Reason, MaxMessageBytes))),
	)
	return pyfmt.Dumps(rec, false) + "\n"
}

// addConsensusSARIF adds the verdict to a run. Every verdict is in the
// run's properties (warden/consensus); every verdict but a match is also
// a result under its own rule id. A match is no result, because code
// scanning opens an alert for every result, notes included, and a match
// is nothing to act on.
func addConsensusSARIF(driver *sarif.ToolComponent, run *sarif.Run, uri string, r *consensus.Result) {
	if run.Properties == nil {
		run.Properties = sarif.Properties{}
	}
	run.Properties["warden/consensus"] = map[string]any{
		"verdict":    string(r.Verdict),
		"coordinate": r.Coordinate,
		"levels":     r.Levels,
		"agreeing":   r.Agreeing,
		"exitCode":   r.Exit(),
	}
	if r.Verdict == consensus.Match {
		return
	}
	id := string(r.Verdict)
	sev := consensusSeverity(r)
	short := consensusShort(r.Verdict)
	driver.AddRule(sarif.NewRule(id).
		WithName("Consensus" + camel(r.Verdict.Short())).
		WithShortDescription(sarif.NewMultiformatMessageString(short)).
		WithFullDescription(sarif.NewMultiformatMessageString(short + " The community check compares the surface warden captured with the surface digests trusted attesters signed for the same package release; it is observation by named attesters, not a safety review.")).
		WithHelp(sarif.NewMultiformatMessageString(short + " See " + ConsensusHelpURI(r.Verdict))).
		WithHelpURI(ConsensusHelpURI(r.Verdict)).
		WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(Level(sev))).
		WithProperties(sarif.Properties{"tags": []string{"security", "mcp", "consensus"}, "security-severity": SecuritySeverity(sev)}))
	props := sarif.Properties{"severity": sev, "coordinate": r.Coordinate, "levels": r.Levels, "exitCode": r.Exit()}
	run.AddResult(buildResult(id, sev, r.Coordinate, id, Clip(ConsensusHeadline(r), MaxMessageBytes), uri, 1, props).
		WithLevel(Level(sev)))
}

// writeConsensusMarkdown is the consensus section of the job summary and
// the pull-request comment: the verdict, the release, the level compared
// at, and one row per trusted attester. Everything in it is warden's words,
// the user's inputs and digests, escaped for Markdown.
func writeConsensusMarkdown(b *strings.Builder, r *consensus.Result) {
	if r == nil {
		return
	}
	icon := "✅"
	switch r.Exit() {
	case 1:
		icon = "❌"
	case 2:
		icon = "⚠️"
	}
	if r.Verdict == consensus.Novel || r.Verdict == consensus.Insufficient {
		if r.Exit() == 0 {
			icon = "ℹ️"
		}
	}
	fmt.Fprintf(b, "### %s Community consensus: %s\n\n", icon, code(string(r.Verdict)))
	var facts []string
	if r.Coordinate != "" {
		facts = append(facts, "Release "+code(r.Coordinate))
	}
	if lt := r.LevelText(); lt != "" {
		facts = append(facts, "compared at "+lt)
	} else {
		facts = append(facts, "nothing compared")
	}
	facts = append(facts, fmt.Sprintf("%d agreeing, %d required", r.Agreeing, r.MinAttesters))
	b.WriteString(strings.Join(facts, " · ") + "\n\n")
	if r.Reason != "" {
		b.WriteString(EscapeMarkdown(Clip(r.Reason, MaxMessageBytes)) + "\n\n")
	}
	if len(r.Attesters) > 0 {
		b.WriteString("| Attester | Status | Level | Surface digest |\n|---|---|---:|---|\n")
		for _, a := range r.Attesters {
			level := ""
			if a.Level > 0 {
				level = fmt.Sprint(a.Level)
			}
			digest := ""
			if a.SurfaceDigest != "" {
				digest = code(a.SurfaceDigest)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", code(a.ID), string(a.Status), level, digest)
		}
		b.WriteString("\n")
	}
	b.WriteString("Consensus is observation by the attesters you trust, not a safety review ([docs/consensus.md](" + DocsURI + "consensus.md)).\n\n")
}

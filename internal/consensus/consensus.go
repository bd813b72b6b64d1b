// Package consensus compares the surface warden observes for one exact
// package release with what trusted community attesters signed for it
// (check --against-community). It reads a corpus of signed locks (a local
// directory, or a git URL at a pinned commit), keeps only the locks that
// reproduce their own digest and whose Sigstore bundle verifies for the
// attester the user trusts, and compares launch-independent surface
// digests at each lock's own schema level. Every failure to establish what
// the attesters said is a fail-closed verdict, never a pass.
package consensus

import (
	"fmt"
	"slices"
	"strings"
)

// Verdict is a consensus outcome, named by its rule id (the reference's).
type Verdict string

// The verdicts, as the reference names them.
const (
	Match          Verdict = "WRD-CONSENSUS-MATCH"
	Novel          Verdict = "WRD-CONSENSUS-NOVEL"
	Insufficient   Verdict = "WRD-CONSENSUS-INSUFFICIENT"
	Mismatch       Verdict = "WRD-CONSENSUS-MISMATCH"
	Split          Verdict = "WRD-CONSENSUS-SPLIT"
	Unverifiable   Verdict = "WRD-CONSENSUS-UNVERIFIABLE"
	Unreachable    Verdict = "WRD-CONSENSUS-UNREACHABLE"
	UnpinnedTrust  Verdict = "WRD-CONSENSUS-UNPINNED-TRUST"
	Unresolved     Verdict = "WRD-CONSENSUS-UNRESOLVED"
	SchemaMismatch Verdict = "WRD-CONSENSUS-SCHEMA-MISMATCH"
)

// Verdicts lists every verdict, in the order the docs table them.
var Verdicts = [...]Verdict{Match, Novel, Insufficient, Mismatch, Split, Unverifiable, Unreachable, UnpinnedTrust, Unresolved, SchemaMismatch}

// Exit is the verdict's exit code as the reference gives it: 0 for match,
// novel and insufficient, 1 for a disagreement, 2 when nothing could be
// compared. requireConsensus makes novel and insufficient blocking (1).
func (v Verdict) Exit(requireConsensus bool) int {
	switch v {
	case Match:
		return 0
	case Novel, Insufficient:
		if requireConsensus {
			return 1
		}
		return 0
	case Mismatch, Split:
		return 1
	}
	return 2
}

// Short is the verdict's id without the WRD-CONSENSUS- prefix, lower case
// ("match", "novel", "unpinned-trust"): the docs' anchors.
func (v Verdict) Short() string {
	return strings.ToLower(strings.TrimPrefix(string(v), "WRD-CONSENSUS-"))
}

// Attester is one attester the user trusts: the id it writes its locks
// under in a corpus, and the certificate identity and OIDC issuer its
// signatures must carry.
type Attester struct {
	ID, Identity, Issuer string
}

// AttesterStatus is what one trusted attester said about the coordinate.
type AttesterStatus string

// The statuses of one attester.
const (
	// Agrees: a verified lock whose surface digest is the observed one.
	Agrees AttesterStatus = "agrees"
	// Differs: a verified lock with another surface digest.
	Differs AttesterStatus = "differs"
	// Absent: no lock of this attester for the coordinate.
	Absent AttesterStatus = "absent"
	// Refused: a lock that could not be trusted (the reason says why).
	Refused AttesterStatus = "refused"
)

// AttesterResult is one trusted attester's part in a result.
type AttesterResult struct {
	ID     string         `json:"id"`
	Status AttesterStatus `json:"status"`
	// Level is the schema_version of the attester's lock (0 when absent).
	Level int `json:"level,omitempty"`
	// SurfaceDigest is the attester's surface digest ("" when absent or
	// refused).
	SurfaceDigest string `json:"surface_digest,omitempty"`
	// Reason says why a lock was refused; warden's own words (with the
	// lock's JSON path), never text from the corpus or the server.
	Reason string `json:"reason,omitempty"`
}

// Result is the outcome of one consensus check.
type Result struct {
	Verdict Verdict `json:"verdict"`
	// Reason is one line saying why, for every verdict but a match.
	Reason string `json:"reason,omitempty"`
	// Coordinate is the release compared ("" when unresolved).
	Coordinate string `json:"coordinate,omitempty"`
	// Corpus and Ref name the corpus read (Ref: the commit, when known).
	Corpus string `json:"corpus,omitempty"`
	Ref    string `json:"corpus_ref,omitempty"`
	// Levels are the schema levels compared at, ascending (none when
	// nothing was compared).
	Levels []int `json:"levels,omitempty"`
	// Observed is the observed surface digest at each of Levels.
	Observed []string `json:"observed,omitempty"`
	// MinAttesters is the number of agreeing attesters a match needs.
	MinAttesters int `json:"min_attesters"`
	// Agreeing counts the attesters that agree.
	Agreeing  int              `json:"agreeing"`
	Attesters []AttesterResult `json:"attesters,omitempty"`
	// RequireConsensus makes novel and insufficient blocking.
	RequireConsensus bool `json:"require_consensus,omitempty"`
}

// Exit is the result's exit code (see Verdict.Exit).
func (r *Result) Exit() int { return r.Verdict.Exit(r.RequireConsensus) }

// LevelText says at which schema level(s) the digests were compared:
// "level 3", "levels 3 and 4", or "" when nothing was compared.
func (r *Result) LevelText() string {
	switch len(r.Levels) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("level %d", r.Levels[0])
	}
	parts := make([]string, len(r.Levels))
	for i, l := range r.Levels {
		parts[i] = fmt.Sprint(l)
	}
	return "levels " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// failed is a result that compared nothing.
func failed(v Verdict, coord string, min int, format string, args ...any) *Result {
	return &Result{Verdict: v, Coordinate: coord, MinAttesters: min, Reason: fmt.Sprintf(format, args...)}
}

// decide sets r's verdict from its attesters' statuses: a refused lock
// fails closed; attesters that disagree with each other are a split, with
// you or among themselves; none that agree is a mismatch; too few is
// insufficient.
func decide(r *Result, byLevel map[int]map[string]bool) {
	var agree, differ, present int
	for _, a := range r.Attesters {
		switch a.Status {
		case Agrees:
			agree++
			present++
		case Differs:
			differ++
			present++
		}
	}
	r.Agreeing = agree
	split := false
	for _, digests := range byLevel {
		if len(digests) > 1 {
			split = true
		}
	}
	switch {
	case present == 0:
		r.Verdict = Novel
		r.Reason = fmt.Sprintf("no trusted attester has %s", r.Coordinate)
	case split || (agree > 0 && differ > 0):
		r.Verdict = Split
		r.Reason = fmt.Sprintf("trusted attesters disagree about %s: %d agree with the observed surface, %d do not", r.Coordinate, agree, differ)
	case agree == 0:
		r.Verdict = Mismatch
		r.Reason = fmt.Sprintf("the observed surface of %s differs from every trusted attestation (%d)", r.Coordinate, differ)
	case agree < r.MinAttesters:
		r.Verdict = Insufficient
		r.Reason = fmt.Sprintf("%d trusted attester(s) agree with the observed surface of %s; %d required (--min-attesters)", agree, r.Coordinate, r.MinAttesters)
	default:
		r.Verdict = Match
		r.Reason = ""
	}
	slices.Sort(r.Levels)
}

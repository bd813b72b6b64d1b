// Package report renders warden's results — embedded findings and drift
// items — in the formats people and machines read: SARIF 2.1.0 for code
// scanning, JSON Lines and plain text for the CLI, and GitHub workflow
// commands and a Markdown step summary for the Action.
//
// Every function here is pure apart from writing to the io.Writer it is
// given. Strings that an MCP server controls (tool names, resource URIs,
// descriptions quoted inside messages) are treated as hostile in every
// human-facing format: each renderer escapes them for its own medium so a
// server cannot rewrite a terminal, forge a workflow command or inject
// Markdown or HTML into a job summary.
//
// Every human-facing report shows drift items worst first — by severity,
// then class, then target — on a copy: the items' own order (drift.Compare's)
// is the interoperable one that JSON Lines, SARIF and the conformance
// vectors keep. The server's own words behind an item (an explanation, see
// package explain) are quoted only in the text report, the job summary and
// the pull-request comment: secrets redacted, clipped, and in Markdown only
// inside fenced code blocks that nothing in them can close, in a collapsed
// <details> labelled as server-controlled text. SARIF and workflow
// annotations never receive them: code scanning stays hash-level.
package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
)

// DriftRulePrefix starts the rule id of every drift class, as the reference
// writes it ("WRD-DRIFT-" + upper(drift_class)).
const DriftRulePrefix = "WRD-DRIFT-"

// DriftRuleID returns the rule id a drift class is reported under, for
// example WRD-DRIFT-SCHEMA-OUT-TYPE-BROADENED for schema-out-type-broadened.
func DriftRuleID(class string) string {
	return DriftRulePrefix + strings.ToUpper(class)
}

// Level maps a warden severity to a SARIF result level. The reference maps
// critical and high to error, medium to warning and low to note; anything it
// does not know becomes warning, so an unexpected severity is neither lost
// nor promoted to a build-breaking error.
func Level(severity string) string {
	switch severity {
	case drift.Critical, drift.High:
		return "error"
	case drift.Low:
		return "note"
	}
	return "warning"
}

// SecuritySeverity returns the CVSS-like score GitHub code scanning reads
// from a rule's "security-severity" property to bucket alerts (critical is
// 9.0 and above, high 7.0–8.9, medium 4.0–6.9, low below 4.0).
func SecuritySeverity(severity string) string {
	switch severity {
	case drift.Critical:
		return "9.5"
	case drift.High:
		return "8.0"
	case drift.Low:
		return "2.0"
	}
	return "5.5"
}

// severityRank orders severities most severe first; unknown severities rank
// with medium, matching Level's fallback.
func severityRank(severity string) int {
	switch severity {
	case drift.Critical:
		return 0
	case drift.High:
		return 1
	case drift.Low:
		return 3
	}
	return 2
}

// severities lists the known severities most severe first, for count tables.
func severities() []string {
	return []string{drift.Critical, drift.High, drift.Medium, drift.Low}
}

// driftMessage is the one-line text of a drift item in SARIF, annotations
// and tables: the item's message, followed by its detail when it has one so
// the reader sees what changed without opening the lock.
func driftMessage(it drift.Item) string {
	if it.Detail == nil || *it.Detail == "" {
		return it.Message
	}
	return it.Message + " [" + *it.Detail + "]"
}

// detailText returns the detail of an item, or "" when it has none.
func detailText(it drift.Item) string {
	if it.Detail == nil {
		return ""
	}
	return *it.Detail
}

// shown is a drift item as a report shows it: the item and the explanation
// of it (the zero Explanation when there is none).
type shown struct {
	item drift.Item
	expl explain.Explanation
}

// worstFirst returns the items with their explanations (expls is parallel
// to items, or shorter, or nil) in the order every human-facing report
// shows them: by severity, most severe first, then by class, then by
// target; equal items keep their order. It sorts a copy. The items' own
// order — drift.Compare's, by target and class — is the interoperable one
// that --json, SARIF and the conformance vectors keep, so no report sorts
// the slice it is given.
func worstFirst(items []drift.Item, expls []explain.Explanation) []shown {
	out := make([]shown, len(items))
	for i, it := range items {
		out[i].item = it
		if i < len(expls) {
			out[i].expl = expls[i]
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].item, out[j].item
		if ra, rb := severityRank(a.Severity), severityRank(b.Severity); ra != rb {
			return ra < rb
		}
		// Unknown severities rank with medium; keep each apart.
		if a.Severity != b.Severity {
			return a.Severity < b.Severity
		}
		if a.Class != b.Class {
			return a.Class < b.Class
		}
		return a.Target < b.Target
	})
	return out
}

// WorstFirst returns a copy of items in the order the human-facing reports
// show them: by severity (critical, high, medium, low), then class, then
// target. items itself is left in its interoperable order.
func WorstFirst(items []drift.Item) []drift.Item {
	s := worstFirst(items, nil)
	out := make([]drift.Item, len(s))
	for i, e := range s {
		out[i] = e.item
	}
	return out
}

// severe reports whether an item is one a reviewer must see first:
// critical or high.
func severe(severity string) bool {
	return severityRank(severity) <= severityRank(drift.High)
}

// countSeverities says how many of sevs there are of each severity, most
// severe first and leaving out the ones there are none of: "2 high, 10
// low". It is "" when sevs is empty.
func countSeverities(sevs []string) string {
	var n [4]int
	for _, s := range sevs {
		n[severityRank(s)]++
	}
	var parts []string
	for i, sev := range severities() {
		if n[i] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[i], sev))
		}
	}
	return strings.Join(parts, ", ")
}

// itemSeverities returns the severities of entries.
func itemSeverities(entries []shown) []string {
	sevs := make([]string, len(entries))
	for i, e := range entries {
		sevs[i] = e.item.Severity
	}
	return sevs
}

// GroupThreshold is the number of drift items above which a report groups
// them by class (a table of class, severity and count) before listing
// them: a long drift is read by kind of change first.
const GroupThreshold = 20

// classGroup is the items of one class and severity.
type classGroup struct {
	severity, class string
	entries         []shown
}

// groupByClass groups entries, which are in worstFirst order, by severity
// and class, in the same order.
func groupByClass(entries []shown) []classGroup {
	var groups []classGroup
	for _, e := range entries {
		n := len(groups)
		if n > 0 && groups[n-1].severity == e.item.Severity && groups[n-1].class == e.item.Class {
			groups[n-1].entries = append(groups[n-1].entries, e)
			continue
		}
		groups = append(groups, classGroup{severity: e.item.Severity, class: e.item.Class, entries: []shown{e}})
	}
	return groups
}

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
package report

import (
	"strings"

	"github.com/wardenlock/warden/internal/drift"
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

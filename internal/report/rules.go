package report

import (
	"strings"

	"github.com/wardenlock/warden/internal/drift"
)

// RuleName returns the readable SARIF rule name of a rule id, distinct from
// the id as SARIF asks ("a non-empty identifier that is understandable to an
// end user"): the drift class or the finding in CamelCase, for example
// ServerLaunchChanged for WRD-DRIFT-SERVER-IDENTITY, ToolAdded for
// WRD-DRIFT-TOOL-ADDED and ShellCapability for WRD-CAP-SHELL. An id warden
// does not know gets its words after "WRD-" in CamelCase.
func RuleName(ruleID string) string {
	if class, ok := strings.CutPrefix(ruleID, DriftRulePrefix); ok {
		switch class = strings.ToLower(class); class {
		case drift.ClassServerIdentity:
			return "ServerLaunchChanged"
		case drift.ClassDigestMismatchUnexplained:
			return "UnexplainedDigestMismatch"
		}
		return camel(class)
	}
	switch ruleID {
	case "WRD-CAP-SHELL":
		return "ShellCapability"
	case "WRD-CAP-FS-WRITE":
		return "FileWriteCapability"
	case "WRD-CAP-FS-READ":
		return "FileReadCapability"
	case "WRD-CAP-HTTP":
		return "HTTPRequestCapability"
	case "WRD-CAP-SQL":
		return "SQLCapability"
	case "WRD-SCHEMA-MALFORMED":
		return "MalformedInputSchema"
	case "WRD-SEC-OPENAI":
		return "PossibleOpenAIKey"
	case "WRD-SEC-GITHUB":
		return "PossibleGitHubToken"
	case "WRD-SEC-AWS-AKID":
		return "PossibleAWSAccessKeyID"
	case "WRD-SEC-SLACK":
		return "PossibleSlackToken"
	case "WRD-SEC-PRIVKEY":
		return "PossiblePrivateKey"
	case "WRD-SEC-JWT":
		return "PossibleJSONWebToken"
	case "WRD-SEC-ENTROPY":
		return "PossibleHighEntropySecret"
	case "WRD-SUP-CURL-PIPE":
		return "DownloadPipedToInterpreter"
	case "WRD-SUP-LATEST-TAG":
		return "FloatingLatestTag"
	case "WRD-SUP-NPX-UNPINNED":
		return "UnpinnedNpxPackage"
	case "WRD-SUP-UVX-UNPINNED":
		return "UnpinnedUvxPackage"
	case "WRD-SUP-PIP-UNPINNED":
		return "UnpinnedPipPackage"
	}
	if name := camel(strings.TrimPrefix(ruleID, "WRD-")); name != "" {
		return name
	}
	return "UnknownRule"
}

// camel turns "schema-out-type-broadened" (or "SCHEMA_OUT") into
// "SchemaOutTypeBroadened": words split on '-' and '_', each capitalised,
// anything but ASCII letters and digits dropped.
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '-' || r == '_' }) {
		first := true
		for _, r := range w {
			switch {
			case r >= 'a' && r <= 'z':
				if first {
					r -= 'a' - 'A'
				}
			case r >= '0' && r <= '9':
			default:
				continue
			}
			b.WriteRune(r)
			first = false
		}
	}
	return b.String()
}

// isDriftRule reports whether a rule id is a drift rule (WRD-DRIFT-…), as
// opposed to an informational finding rule.
func isDriftRule(ruleID string) bool {
	return strings.HasPrefix(ruleID, DriftRulePrefix)
}

// FindingLevel is the SARIF level of an informational finding: at most
// "warning" whatever its severity ("note" for low), because findings never
// change the exit code and must not read as what failed the build. Drift
// keeps Level.
func FindingLevel(severity string) string {
	if Level(severity) == "note" {
		return "note"
	}
	return "warning"
}

// ResultLevel is the SARIF level of a result (and a rule's default level)
// for ruleID at severity: Level for drift, FindingLevel for findings.
func ResultLevel(ruleID, severity string) string {
	if isDriftRule(ruleID) {
		return Level(severity)
	}
	return FindingLevel(severity)
}

// FindingAnnotationCommand is the workflow command that annotates an
// informational finding: a warning, or a notice for low severity, never an
// error, which would read as the reason the step failed.
func FindingAnnotationCommand(severity string) string {
	if FindingLevel(severity) == "note" {
		return "notice"
	}
	return "warning"
}

// DocsURI is where a SARIF rule's helpUri points: the project's docs
// folder on its main branch, under InformationURI.
const DocsURI = InformationURI + "/blob/main/docs/"

// HelpURI returns the SARIF helpUri of a rule id: the row of its drift
// class in docs/drift.md ("#tool-added" for WRD-DRIFT-TOOL-ADDED) or of its
// finding in docs/findings.md ("#wrd-cap-shell"). A rule warden does not
// know (a newer producer's) links to the list it would belong to.
func HelpURI(ruleID string) string {
	if v, ok := strings.CutPrefix(ruleID, "WRD-CONSENSUS-"); ok {
		return DocsURI + "consensus.md#wrd-consensus-" + strings.ToLower(v)
	}
	known := Describe(ruleID).Known
	if class, ok := strings.CutPrefix(ruleID, DriftRulePrefix); ok {
		if !known {
			return DocsURI + "drift.md#drift-classes"
		}
		return DocsURI + "drift.md#" + strings.ToLower(class)
	}
	if !known {
		return DocsURI + "findings.md#catalogue"
	}
	return DocsURI + "findings.md#" + strings.ToLower(ruleID)
}

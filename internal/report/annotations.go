package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

// AnnotationLimit is how many annotations of one kind (error, warning,
// notice) GitHub displays per step; more are dropped silently, so warden
// stops at the limit and says how many it left out.
const AnnotationLimit = 10

// EscapeData escapes the message part of a workflow command the way the
// runner unescapes it: % first (so later escapes are not double-decoded),
// then CR and LF, which would otherwise end the command and let the rest of
// the string start a new one.
func EscapeData(s string) string {
	s = strings.ReplaceAll(s, "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	s = strings.ReplaceAll(s, "\n", "%0A")
	return s
}

// EscapeProperty escapes a workflow command property value: everything
// EscapeData does plus ':' (which ends the property list) and ',' (which
// separates properties).
func EscapeProperty(s string) string {
	s = EscapeData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	s = strings.ReplaceAll(s, ",", "%2C")
	return s
}

// Property is one key=value of a workflow command.
type Property struct {
	Key, Value string
}

// Command formats one workflow command line, "::name k=v,k=v::message",
// with every property value and the message escaped. The name and keys are
// warden's own constants and are written as given.
func Command(name string, props []Property, message string) string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(name)
	for i, p := range props {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(p.Key)
		b.WriteByte('=')
		b.WriteString(EscapeProperty(p.Value))
	}
	b.WriteString("::")
	b.WriteString(EscapeData(message))
	return b.String()
}

// AnnotationCommand maps a severity to the workflow command that raises it:
// critical and high are errors, medium warnings, low notices.
func AnnotationCommand(severity string) string {
	switch Level(severity) {
	case "error":
		return "error"
	case "note":
		return "notice"
	}
	return "warning"
}

// AnnotationOptions say where annotations point.
type AnnotationOptions struct {
	// File is the lock path as the runner should show it (relative to the
	// workspace, forward slashes).
	File string
	// Lines locates entries in the lock; nil means line 1.
	Lines *LineIndex
	// SARIFPath is named in the overflow notice when set.
	SARIFPath string
}

// WriteAnnotations writes one workflow-command annotation per drift item and
// finding, drift first, each titled with its rule id (a finding's followed
// by "(informational)": it never fails the step) and pointing at
// the entry's line in the lock. Drift items go by severity, then class,
// then target, and findings by severity, so the caps keep the most severe:
// at most AnnotationLimit of each kind are written, and when any are left
// out a final notice says how many of each severity and where the full list
// is (one notice slot is kept free for it, since it would otherwise be the
// one GitHub drops). Messages quote server-controlled text: each is clipped
// to MaxMessageBytes and made TerminalSafe, and log writes them as commands
// (escaped, legacy syntax neutralised). Annotations stay hash-level: they
// carry an item's message and detail, never the server's words an
// explanation quotes.
func WriteAnnotations(log *JobLog, findings []lock.Finding, items []drift.Item, o AnnotationOptions) error {
	type ann struct {
		kind, title, target, text, severity string
		drift                               bool
	}
	// Drift comes first here (unlike SARIF and JSONL, which keep the
	// reference's findings-first order): drift is what fails the step, so
	// it must not lose its annotation slots to informational findings.
	all := make([]ann, 0, len(findings)+len(items))
	for _, e := range worstFirst(items, nil) {
		it := e.item
		all = append(all, ann{AnnotationCommand(it.Severity), DriftRuleID(it.Class), it.Target,
			driftMessage(it), it.Severity, true})
	}
	sorted := append([]lock.Finding(nil), findings...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return severityRank(sorted[i].Severity) < severityRank(sorted[j].Severity)
	})
	for _, f := range sorted {
		all = append(all, ann{FindingAnnotationCommand(f.Severity), f.RuleID + " (informational)", f.Target,
			f.Target + ": " + f.Message + " [" + f.Snippet + "]", f.Severity, false})
	}
	count := map[string]int{}
	for _, a := range all {
		count[a.kind]++
	}
	limit := map[string]int{"error": AnnotationLimit, "warning": AnnotationLimit, "notice": AnnotationLimit}
	overflow := count["error"] > AnnotationLimit || count["warning"] > AnnotationLimit || count["notice"] > AnnotationLimit
	if overflow {
		limit["notice"] = AnnotationLimit - 1
	}

	shown := map[string]int{}
	omitted := 0
	var leftDrift, leftFindings []string
	for _, a := range all {
		if shown[a.kind] >= limit[a.kind] {
			omitted++
			if a.drift {
				leftDrift = append(leftDrift, a.severity)
			} else {
				leftFindings = append(leftFindings, a.severity)
			}
			continue
		}
		shown[a.kind]++
		props := []Property{{"title", a.title}}
		if o.File != "" {
			props = append([]Property{{"file", o.File}, {"line", fmt.Sprint(o.Lines.Line(a.target))}}, props...)
		}
		if err := log.Command(a.kind, props, Message(a.text)); err != nil {
			return fmt.Errorf("write annotations: %w", err)
		}
	}
	if omitted > 0 {
		where := "the job summary"
		if o.SARIFPath != "" {
			where = "the SARIF file " + o.SARIFPath + " and the job summary"
		}
		var what []string
		if len(leftDrift) > 0 {
			what = append(what, "drift: "+countSeverities(leftDrift))
		}
		if len(leftFindings) > 0 {
			what = append(what, "findings: "+countSeverities(leftFindings))
		}
		msg := fmt.Sprintf("%d more warden result(s) not shown as annotations (GitHub shows at most %d of each kind per step; %s); see %s.",
			omitted, AnnotationLimit, strings.Join(what, "; "), where)
		if err := log.Command("notice", []Property{{"title", "warden: more results"}}, Message(msg)); err != nil {
			return fmt.Errorf("write annotations: %w", err)
		}
	}
	return nil
}

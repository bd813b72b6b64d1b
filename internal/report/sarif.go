package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/wardenlock/warden/internal/consensus"
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/lock"
)

// Tool identity written into every SARIF run.
const (
	// ToolName is the SARIF driver name.
	ToolName = "warden"
	// InformationURI is the SARIF driver's informationUri.
	InformationURI = "https://github.com/wardenlock/warden"
	// FingerprintKey names warden's partial fingerprint. Bump the version
	// suffix if the fingerprint's inputs ever change, so code scanning does
	// not match old alerts against differently computed values.
	FingerprintKey = "wardenItem/v1"
	// SARIFResultLimit is the most results GitHub code scanning accepts in
	// one SARIF run; it rejects an upload with more. BuildSARIF keeps the
	// most severe results up to it and records how many it left out.
	SARIFResultLimit = 25000
)

// SARIFOptions say where results point and which tool version wrote them.
type SARIFOptions struct {
	// Version is warden's version (driver.version); omitted when empty.
	Version string
	// ArtifactURI is the lock file as a URI reference relative to the
	// repository root, e.g. "servers/a/warden.lock" (see ArtifactURI).
	// Empty means "warden.lock".
	ArtifactURI string
	// Lines locates entries in the lock text; nil points everything at
	// line 1.
	Lines *LineIndex
	// MaxResults caps the results of the run; 0 means SARIFResultLimit.
	MaxResults int
	// Launch is shown beside a server-identity result, in its properties
	// ("launch": the pinned and the current launch, argv by argv, redacted;
	// "launchText": the same on one line); nil shows nothing.
	Launch *LaunchChange
	// Accepted are the lists accepted as errors (AcceptedList). They are
	// not results, which code scanning would raise as alerts on the lock:
	// the run carries them as the property warden/acceptedListErrors and
	// as note-level tool-execution notifications.
	Accepted []AcceptedList
	// Allowlists are a config's allowlists of the server's tools: a
	// drift result on a tool one names carries the property "allowlists",
	// where the configs say so (config text, never the server's).
	Allowlists []Allowlist
	// Consensus is a community check's verdict (check --against-community);
	// nil when there was none. See addConsensusSARIF.
	Consensus *consensus.Result
}

// BuildSARIF returns a SARIF 2.1.0 report with one run: a rule for every
// rule id present (sorted, with descriptions, help and GitHub's
// security-severity), then one result per finding followed by one per
// drift item, in the order given.
//
// A run holds at most o.MaxResults (SARIFResultLimit) results. When there
// are more, the most severe are kept (critical, high, medium, low; drift
// before findings at equal severity; then in order), and the run says how
// many were left out: in its properties (warden/totalResults,
// warden/omittedResults, warden/resultLimit) and in a warning
// tool-execution notification.
func BuildSARIF(findings []lock.Finding, items []drift.Item, o SARIFOptions) (*sarif.Report, error) {
	rep, err := sarif.New(sarif.Version210)
	if err != nil {
		return nil, fmt.Errorf("create SARIF report: %w", err)
	}
	uri := o.ArtifactURI
	if uri == "" {
		uri = "warden.lock"
	}
	limit := o.MaxResults
	if limit <= 0 {
		limit = SARIFResultLimit
	}
	findings, items, omitted := mostSevere(findings, items, limit)

	// The most severe use of a rule decides its default level and
	// security-severity; rule severities are per rule, not per result.
	worst := map[string]string{}
	note := func(id, sev string) {
		if cur, ok := worst[id]; !ok || severityRank(sev) < severityRank(cur) {
			worst[id] = sev
		}
	}
	for _, f := range findings {
		note(f.RuleID, f.Severity)
	}
	for _, it := range items {
		note(DriftRuleID(it.Class), it.Severity)
	}
	ids := make([]string, 0, len(worst))
	for id := range worst {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	driver := sarif.NewDriver(ToolName).WithInformationURI(InformationURI)
	if o.Version != "" {
		driver.WithVersion(o.Version)
	}
	for _, id := range ids {
		driver.AddRule(buildRule(id, worst[id]))
	}
	run := sarif.NewRun(sarif.Tool{Driver: driver})

	for _, f := range findings {
		props := sarif.Properties{"severity": f.Severity, "target": Clip(f.Target, MaxMessageBytes)}
		run.AddResult(buildResult(f.RuleID, f.Severity, f.Target, f.Snippet,
			f.Message+" ["+f.Snippet+"]", uri, o.Lines.Line(f.Target), props))
	}
	for _, it := range items {
		props := sarif.Properties{"severity": it.Severity, "target": Clip(it.Target, MaxMessageBytes), "driftClass": it.Class}
		if it.Detail != nil {
			props["detail"] = Clip(*it.Detail, MaxMessageBytes)
		}
		if from := allowlistsOf(o.Allowlists, it); len(from) > 0 {
			props["allowlists"] = from
		}
		if it.Class == drift.ClassServerIdentity && o.Launch != nil {
			props["launch"] = launchProperty(o.Launch)
			props["launchText"] = launchText(o.Launch)
		}
		run.AddResult(buildResult(DriftRuleID(it.Class), it.Severity, it.Target, detailText(it),
			driftMessage(it), uri, o.Lines.Line(it.Target), props))
	}
	var notes []*sarif.Notification
	if omitted > 0 {
		total := len(findings) + len(items) + omitted
		run.Properties = sarif.Properties{
			"warden/totalResults":   total,
			"warden/omittedResults": omitted,
			"warden/resultLimit":    limit,
		}
		notes = append(notes, sarif.NewNotification().
			WithLevel("warning").
			WithTextMessage(fmt.Sprintf("%d of %d results were left out: GitHub code scanning accepts at most %d results per run, so only the %d most severe are included.",
				omitted, total, limit, limit)))
	}
	if len(o.Accepted) > 0 {
		if run.Properties == nil {
			run.Properties = sarif.Properties{}
		}
		run.Properties["warden/acceptedListErrors"] = acceptedProperty(o.Accepted)
		notes = append(notes, acceptedNotifications(o.Accepted)...)
	}
	if o.Consensus != nil {
		addConsensusSARIF(driver, run, uri, o.Consensus)
	}
	if len(notes) > 0 {
		run.AddInvocations(sarif.NewInvocation().WithExecutionSuccess(true).WithToolExecutionNotifications(notes))
	}
	rep.AddRun(run)
	return rep, nil
}

// mostSevere returns the findings and drift items that fit in limit
// results, each in its original order, and how many were left out. Results
// are ranked by severity (most severe first), then drift before findings,
// then by position.
func mostSevere(findings []lock.Finding, items []drift.Item, limit int) ([]lock.Finding, []drift.Item, int) {
	n := len(findings) + len(items)
	if n <= limit {
		return findings, items, 0
	}
	// One entry per result: index < len(items) is a drift item, the rest
	// are findings.
	type entry struct {
		rank, index int
	}
	all := make([]entry, 0, n)
	for i, it := range items {
		all = append(all, entry{severityRank(it.Severity), i})
	}
	for i, f := range findings {
		all = append(all, entry{severityRank(f.Severity), len(items) + i})
	}
	// Drift precedes findings in all, so ordering by index breaks ties as
	// documented.
	sort.Slice(all, func(a, b int) bool {
		if all[a].rank != all[b].rank {
			return all[a].rank < all[b].rank
		}
		return all[a].index < all[b].index
	})
	keep := make([]bool, n)
	for _, e := range all[:limit] {
		keep[e.index] = true
	}
	var keptItems []drift.Item
	for i, it := range items {
		if keep[i] {
			keptItems = append(keptItems, it)
		}
	}
	var keptFindings []lock.Finding
	for i, f := range findings {
		if keep[len(items)+i] {
			keptFindings = append(keptFindings, f)
		}
	}
	return keptFindings, keptItems, n - limit
}

// WriteSARIF writes BuildSARIF's report as indented JSON ending in a newline.
func WriteSARIF(w io.Writer, findings []lock.Finding, items []drift.Item, o SARIFOptions) error {
	rep, err := BuildSARIF(findings, items, o)
	if err != nil {
		return err
	}
	return encodeSARIF(w, rep)
}

// encodeSARIF writes a SARIF report as indented JSON with a final newline.
func encodeSARIF(w io.Writer, rep *sarif.Report) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode SARIF: %w", err)
	}
	data = append(data, '\n')
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("write SARIF: %w", err)
	}
	return nil
}

// buildRule describes one rule from the catalogue.
func buildRule(id, severity string) *sarif.ReportingDescriptor {
	rt := Describe(id)
	text, md := helpText(id, rt)
	return sarif.NewRule(id).
		WithName(RuleName(id)).
		WithShortDescription(sarif.NewMultiformatMessageString(rt.Short)).
		WithFullDescription(sarif.NewMultiformatMessageString(rt.Full)).
		WithHelp(sarif.NewMultiformatMessageString(text).WithMarkdown(md)).
		WithHelpURI(HelpURI(id)).
		WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(ResultLevel(id, severity))).
		WithProperties(ruleProperties(id, severity, rt))
}

// ruleProperties are a rule's tags and, for drift only, the
// security-severity code scanning ranks security alerts by. A finding
// rule has none: findings are informational (they never change the exit
// code), so code scanning shows them by their level (warning or note) and
// never as a High or Critical security alert that a branch protection
// rule would block on, whatever the finding's own severity.
func ruleProperties(id, severity string, rt RuleText) sarif.Properties {
	props := sarif.Properties{"tags": []string{"security", "mcp", rt.Kind, rt.Category}}
	if isDriftRule(id) {
		props["security-severity"] = SecuritySeverity(severity)
	}
	return props
}

// buildResult is one SARIF result located in the lock file.
func buildResult(ruleID, severity, target, detail, text, uri string, line int, props sarif.Properties) *sarif.Result {
	loc := sarif.NewLocation().
		WithPhysicalLocation(sarif.NewPhysicalLocation().
			WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri)).
			WithRegion(sarif.NewRegion().WithStartLine(line))).
		WithLogicalLocations([]*sarif.LogicalLocation{
			sarif.NewLogicalLocation().WithFullyQualifiedName(Clip(target, MaxMessageBytes)).WithKind("resource"),
		})
	res := sarif.NewRuleResult(ruleID).
		WithLevel(ResultLevel(ruleID, severity)).
		WithMessage(sarif.NewTextMessage(Clip(text, MaxMessageBytes))).
		WithLocations([]*sarif.Location{loc}).
		WithPartialFingerPrints(map[string]interface{}{FingerprintKey: Fingerprint(ruleID, target, detail)})
	res.Properties = props
	return res
}

// Fingerprint identifies one reported item across runs: the same rule on the
// same target with the same detail gets the same value, so code scanning
// keeps one alert open instead of opening a new one per run. Messages and
// line numbers are left out on purpose: both can change without the
// underlying issue changing. Fields are NUL-separated so ("a","bc") and
// ("ab","c") differ.
func Fingerprint(ruleID, target, detail string) string {
	sum := sha256.Sum256([]byte(ruleID + "\x00" + target + "\x00" + detail))
	return hex.EncodeToString(sum[:])
}

// ArtifactURI returns lockPath as a SARIF artifact URI relative to root (the
// repository root: GITHUB_WORKSPACE, or the working directory): forward
// slashes, percent-encoded where a URI needs it. A lock outside root keeps
// its absolute path as a file: URI, since a relative reference would point
// at the wrong file.
func ArtifactURI(lockPath, root string) string {
	abs, err := filepath.Abs(lockPath)
	if err != nil {
		abs = lockPath
	}
	if root != "" {
		if r, err := filepath.Abs(root); err == nil {
			if rel, err := filepath.Rel(r, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return (&url.URL{Path: filepath.ToSlash(rel)}).String()
			}
		}
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// JSONL returns the --json output: one record per line, findings first and
// then drift, each line exactly what the reference's
// json.dumps(record, ensure_ascii=False) prints (", " and ": " separators,
// non-ASCII unescaped), with a trailing newline when there is any record.
func JSONL(findings []lock.Finding, items []drift.Item) string {
	var b strings.Builder
	for _, rec := range records(findings, items) {
		b.WriteString(pyfmt.Dumps(rec, false))
		b.WriteByte('\n')
	}
	return b.String()
}

// records are the --json records, findings first and then drift. A
// finding's level is its SARIF level (FindingLevel: informational, at most
// "warning"), not the reference's Level, so the two reports agree; drift
// keeps Level.
func records(findings []lock.Finding, items []drift.Item) []*jsonv.Value {
	recs := make([]*jsonv.Value, 0, len(findings)+len(items))
	str := jsonv.NewString
	for _, f := range findings {
		rec := jsonv.NewObject(
			jsonv.M("kind", str("finding")),
			jsonv.M("rule_id", str(f.RuleID)),
			jsonv.M("severity", str(f.Severity)),
			jsonv.M("level", str(FindingLevel(f.Severity))),
			jsonv.M("target", str(f.Target)),
			jsonv.M("message", str(f.Message)),
			jsonv.M("snippet", str(f.Snippet)),
		)
		recs = append(recs, rec)
	}
	for _, it := range items {
		detail := jsonv.NewNull()
		if it.Detail != nil {
			detail = str(*it.Detail)
		}
		rec := jsonv.NewObject(
			jsonv.M("kind", str("drift")),
			jsonv.M("rule_id", str(DriftRuleID(it.Class))),
			jsonv.M("drift_class", str(it.Class)),
			jsonv.M("severity", str(it.Severity)),
			jsonv.M("level", str(Level(it.Severity))),
			jsonv.M("target", str(it.Target)),
			jsonv.M("message", str(it.Message)),
			jsonv.M("detail", detail),
		)
		recs = append(recs, rec)
	}
	return recs
}

// ErrorJSONL is the --json output of a command that failed (exit 2): one
// record of kind "error" with the message, clipped to MaxMessageBytes, the
// same record a config run writes for a server that failed, so that a
// consumer of stdout sees the failure rather than an empty stream.
func ErrorJSONL(message string) string {
	rec := jsonv.NewObject(
		jsonv.M("kind", jsonv.NewString("error")),
		jsonv.M("message", jsonv.NewString(Clip(message, MaxMessageBytes))),
	)
	return pyfmt.Dumps(rec, false) + "\n"
}

// WriteJSONL writes JSONL's text to w.
func WriteJSONL(w io.Writer, findings []lock.Finding, items []drift.Item) error {
	if _, err := io.WriteString(w, JSONL(findings, items)); err != nil {
		return fmt.Errorf("write JSON lines: %w", err)
	}
	return nil
}

// JSONLOptions are the optional members of the --json drift records. The
// reference's members are never changed; these come after them.
type JSONLOptions struct {
	// Launch, when set, goes beside the server-identity record as
	// JSONLWithLaunch puts it.
	Launch *LaunchChange
	// Explanations, parallel to the drift items (or nil, or shorter), give
	// each drift record whose explanation is not empty an "explanation"
	// member: the explain.Explanation's JSON form. Its strings are server
	// text, already clipped by package explain (texts to
	// explain.MaxTextBytes, values to explain.MaxValueBytes, with the
	// clipped and omitted members saying so), and are written JSON-escaped.
	Explanations []explain.Explanation
	// Accepted are the lists accepted as errors (AcceptedList), each
	// written after the drift as a record of kind "accepted_list_error".
	Accepted []AcceptedList
}

// JSONLWith is JSONL with the members opts asks for.
func JSONLWith(findings []lock.Finding, items []drift.Item, opts JSONLOptions) (string, error) {
	recs := records(findings, items)
	var b strings.Builder
	for i, rec := range recs {
		if j := i - len(findings); j >= 0 {
			if opts.Launch != nil && items[j].Class == drift.ClassServerIdentity {
				rec.Members = append(rec.Members, jsonv.M("launch", launchJSON(opts.Launch)))
			}
			if j < len(opts.Explanations) && !opts.Explanations[j].Empty() {
				v, err := explanationJSON(opts.Explanations[j])
				if err != nil {
					return "", fmt.Errorf("drift record %d: %w", j, err)
				}
				rec.Members = append(rec.Members, jsonv.M("explanation", v))
			}
		}
		b.WriteString(pyfmt.Dumps(rec, false))
		b.WriteByte('\n')
	}
	for _, a := range opts.Accepted {
		b.WriteString(pyfmt.Dumps(acceptedRecord(a), false))
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// WriteJSONLWith writes JSONLWith's text to w.
func WriteJSONLWith(w io.Writer, findings []lock.Finding, items []drift.Item, opts JSONLOptions) error {
	text, err := JSONLWith(findings, items, opts)
	if err != nil {
		return fmt.Errorf("write JSON lines: %w", err)
	}
	if _, err := io.WriteString(w, text); err != nil {
		return fmt.Errorf("write JSON lines: %w", err)
	}
	return nil
}

// explanationJSON is an explanation as a JSON value, its members named by
// the type's json tags.
func explanationJSON(e explain.Explanation) (*jsonv.Value, error) {
	raw, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode explanation: %w", err)
	}
	v, err := jsonv.Parse(raw, jsonv.Options{})
	if err != nil {
		return nil, fmt.Errorf("encode explanation: %w", err)
	}
	redactStrings(v)
	return v, nil
}

// redactStrings redacts, in place, every secret the scanner would report
// in the strings of v (the server's words), as quotes in the text reports
// are redacted: a description may carry a live token.
func redactStrings(v *jsonv.Value) {
	switch v.Kind {
	case jsonv.String:
		if r := findings.RedactSecrets(v.Text); r != v.Text {
			// A new value: the decoder's no-escape mark must not carry over.
			*v = *jsonv.NewString(r)
		}
	case jsonv.Array:
		for _, it := range v.Items {
			redactStrings(it)
		}
	case jsonv.Object:
		for _, m := range v.Members {
			redactStrings(m.Value)
		}
	}
}

package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/wardenlock/warden/internal/drift"
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

// records are the --json records, findings first and then drift.
func records(findings []lock.Finding, items []drift.Item) []*jsonv.Value {
	recs := make([]*jsonv.Value, 0, len(findings)+len(items))
	str := jsonv.NewString
	for _, f := range findings {
		rec := jsonv.NewObject(
			jsonv.M("kind", str("finding")),
			jsonv.M("rule_id", str(f.RuleID)),
			jsonv.M("severity", str(f.Severity)),
			jsonv.M("level", str(Level(f.Severity))),
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

// WriteJSONL writes JSONL's text to w.
func WriteJSONL(w io.Writer, findings []lock.Finding, items []drift.Item) error {
	if _, err := io.WriteString(w, JSONL(findings, items)); err != nil {
		return fmt.Errorf("write JSON lines: %w", err)
	}
	return nil
}

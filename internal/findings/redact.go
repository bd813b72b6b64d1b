package findings

import "strings"

// RedactSecrets returns s with every part the secret scanner would report
// replaced by its redaction (Redact): vendor-pattern matches, and
// high-entropy tokens other than paths (a token with a '/': the entropy
// heuristic also fires on generated directory names, and a launch's
// program path is what a reader needs to see). It is for showing a value
// that may hold a secret — a launch argument, say — to people: the rest of
// the value stays readable.
func RedactSecrets(s string) string {
	if s == "" {
		return s
	}
	spans := vendorSpans(s)
	hits := entropyHits(s, spans)
	out := maskSpans(s, spans)
	for _, h := range hits {
		if strings.Contains(h, "/") {
			continue
		}
		out = strings.ReplaceAll(out, h, Redact(h))
	}
	return out
}

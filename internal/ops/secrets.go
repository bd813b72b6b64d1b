package ops

import (
	"fmt"
	"strings"

	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
)

// StoredSecretError refuses a pin whose lock would hold a secret verbatim.
// The format stores the launch argv, entry names and URIs and the schema
// skeleton's enum and constraint values as they are, so a secret there
// would be committed to source control; SPEC §9 says the lock must not
// become a secret store.
type StoredSecretError struct {
	// Where lists "<JSON path> (<rule> <redacted snippet>)" for each hit.
	Where []string
}

func (e *StoredSecretError) Error() string {
	return fmt.Sprintf("refusing to write a lock that would store a secret verbatim: %s; pass secrets to the server through --env (or --header for URLs) rather than argv, or re-run with --allow-secret-in-lock if the value is not secret", strings.Join(e.Where, "; "))
}

// storedSecrets scans every string the lock stores verbatim (everything
// except digests, findings and pin) with the vendor patterns of the secret
// scanner. The entropy rule is left out here: hex-like identifiers in
// enums would make pin refuse legitimate servers, and entropy hits are
// reported as findings anyway.
func storedSecrets(l *lock.Lock) error {
	doc := lock.ToValue(l)
	var where []string
	var walk func(p jsonv.Path, v *jsonv.Value)
	walk = func(p jsonv.Path, v *jsonv.Value) {
		switch v.Kind {
		case jsonv.String:
			for _, f := range findings.ScanField(v.Text, p.String()) {
				if f.RuleID != "WRD-SEC-ENTROPY" {
					where = append(where, fmt.Sprintf("%s (%s %s)", f.Target, f.RuleID, f.Snippet))
				}
			}
		case jsonv.Array:
			for i, it := range v.Items {
				walk(p.Index(i), it)
			}
		case jsonv.Object:
			for _, m := range v.Members {
				if m.Key == "pin" || m.Key == "findings" || strings.HasSuffix(m.Key, "_digest") || strings.HasSuffix(m.Key, "_hash") {
					continue
				}
				walk(p.Key(m.Key), m.Value)
			}
		}
	}
	walk(jsonv.Path{}, doc)
	if len(where) == 0 {
		return nil
	}
	return &StoredSecretError{Where: where}
}

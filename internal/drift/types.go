// Package drift compares a stored baseline lock with a freshly built one and
// reports every difference as ordered drift items (SPEC §8, §10, §14).
package drift

// Severity levels, most severe first.
const (
	Critical = "critical"
	High     = "high"
	Medium   = "medium"
	Low      = "low"
)

// Item is one drift item. Class, Severity, Target and Detail are the
// interoperable contract (compared byte for byte with the reference);
// Message is the human sentence for reports.
type Item struct {
	Class    string
	Severity string
	Target   string
	// Detail is nil when the item carries no detail (JSON null).
	Detail  *string
	Message string
}

// Package skeleton extracts the structural schema skeleton of SPEC §7.5: one
// record per dotted property path with its type set, required flag, enum and
// retained constraints, following same-document $refs, so drift can say what
// changed in a schema rather than only that its hash differs.
package skeleton

import "github.com/wardenlock/warden/internal/jsonv"

// Limits of the walk (reference-behaviour §3.2).
const (
	MaxDepth = 64
	MaxRefs  = 256
)

// Record is one path's structural facts.
type Record struct {
	// Type is the sorted, de-duplicated type list; nil is JSON null ("any").
	Type []string
	// TypeNull is set when the stored type was JSON null (as opposed to []).
	TypeNull bool
	Required bool
	// Enum is the normalised enum array, or nil for JSON null.
	Enum *jsonv.Value
	// Constraints is the constraints object (retained keys in code-point
	// order, or an opaque marker such as {"$ref": ...} / {"_truncated": true}).
	Constraints *jsonv.Value
}

// Skeleton maps each dotted path to its record.
type Skeleton struct {
	// Paths are the record keys in code-point order.
	Paths   []string
	Records map[string]Record
}

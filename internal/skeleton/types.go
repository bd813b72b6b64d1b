// Package skeleton extracts the structural schema skeleton of SPEC §7.5: one
// record per dotted property path with its type set, required flag, enum and
// retained constraints, following same-document $refs, so drift can say what
// changed in a schema rather than only that its hash differs.
//
// Extract reproduces the reference implementation's walk byte for byte
// (reference-behaviour §3); Value renders a skeleton as it is hashed and
// written into warden.lock; FromValue reads one back from a lock.
package skeleton

import "github.com/wardenlock/warden/internal/jsonv"

// Limits of the walk (reference-behaviour §3.2).
const (
	// MaxDepth is the deepest object node that is still expanded; deeper
	// objects become {"_truncated": true} leaves.
	MaxDepth = 64
	// MaxRefs is the number of distinct $ref strings one walk path may follow
	// before further refs are recorded as opaque.
	MaxRefs = 256
)

// MaxWork bounds the total work of one Extract call. Every walk step (a
// record written, or a $ref hop) costs a fixed 64 units plus the length of
// its path; a $ref hop also pays the length of the ref it follows, and a
// record the written size of its enum, constraints or $ref literal. That is
// roughly the bytes the step adds to the serialised skeleton, so the budget
// caps the number of records (at most about a million, fewer with longer
// paths) and the size of Value's output (about 64 MiB).
//
// The reference's own bounds do not cap the total work. Depth and the per-path
// ref budget bound each walk path, not the number of paths: a definition whose
// properties a and b both reference the next definition doubles the number of
// paths at every level, so 31 levels (a property step plus a ref hop each,
// inside depth 64) give 2^32 records; and without any ref, a single long
// property key is repeated in every path beneath it. The reference's output,
// time and memory grow with that until it fails, and its "any internal
// failure keeps what was gathered" rule then applies.
//
// When the budget runs out Extract stops in the same way: it keeps the records
// gathered so far and sets Skeleton.Incomplete. Real tool schemas have tens to
// a few thousand paths, two to three orders of magnitude below the bound, so
// it changes no realistic result; in exchange a hostile schema costs at most about a
// second and 100 MB instead of never finishing.
const MaxWork = 1 << 26

// Record is one path's structural facts. Records from Extract share their
// slices and values with one another and with the schema: treat them as
// read-only.
type Record struct {
	// Type is the type list; nil is JSON null ("any"). Extract always gives
	// nil or a sorted, de-duplicated, non-empty list. A skeleton read from a
	// lock keeps the stored list as written, so a non-nil empty slice stands
	// for a stored [] (which drift, like the reference, also reads as "any").
	Type []string
	// Required says whether the parent's "required" array lists the property.
	Required bool
	// Enum is the normalised enum array, or nil for JSON null.
	Enum *jsonv.Value
	// Constraints is the constraints object: the retained keys in code-point
	// order, or an opaque marker such as {"$ref": ...} / {"_truncated": true}.
	// Values are raw schema values and may be shared with the schema and with
	// other records, so they must be treated as read-only. A nil Constraints
	// is written as {}.
	Constraints *jsonv.Value
}

// Skeleton maps each dotted path to its record.
type Skeleton struct {
	// Paths are the keys of Records in code-point order, for ordered
	// iteration.
	Paths   []string
	Records map[string]Record
	// Incomplete is set when Extract stopped at MaxWork (see there). It is
	// not part of the serialised skeleton.
	Incomplete bool
	// ordered holds Records in Paths order, as Extract made them, so that
	// writing a skeleton does not look every path up again; writers use
	// it only while Paths and Records still have its length.
	ordered []Record
	// tm is the written texts of the commonest records, kept by the
	// Extractor that made the skeleton (nil for any other skeleton), and
	// slots the slot of each record of ordered, or nil (see templates).
	tm    *templates
	slots []int32
	// keys has a byte for each record of ordered, or is nil: bit i of a
	// nonzero byte says its constraints object has the retained key
	// retained[i], and the members are those keys in retained's order
	// (as the walk builds them), so that writers need not check the
	// keys; 0 says nothing.
	keys []uint8
	// plain says that every path of the walk is plain (see plainPath),
	// for writers that read ordered.
	plain bool
}

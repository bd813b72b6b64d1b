// Package lock builds, reads, validates and writes MCP Lock Format v1
// documents (warden.lock): per-entry field hashes and entry digests, the
// overall digest, and the exact on-disk bytes the reference writes.
package lock

import "github.com/wardenlock/warden/internal/jsonv"

// CurrentSchemaVersion is the format level warden writes and the highest it
// reads (SPEC §14.4: newer levels are refused).
const CurrentSchemaVersion = 4

// Lock is one lock document. Hashed values that warden only carries (schema
// skeletons, inspection blocks) are kept as raw JSON so a rewrite reproduces
// them byte for byte.
type Lock struct {
	SchemaVersion int
	WardenVersion string
	Server        Server
	Tools         []Tool
	Resources     []Resource
	Prompts       []Prompt
	Findings      []Finding
	OverallDigest string
	Pin           Pin
}

// Server is the lock's launch identity (SPEC §6).
type Server struct {
	Command string
	Args    []string
	// URL is nil for JSON null (stdio servers).
	URL           *string
	CommandDigest string
}

// Tool is one tool entry (SPEC §7.1).
type Tool struct {
	Name            string
	DescriptionHash string
	InputSchemaHash string
	Capabilities    []string
	// Inspection is the optional §11 block; nil when the key is absent or null.
	Inspection *jsonv.Value
	// SchemaSkeleton is the §7.5 skeleton object, held as compact text (a
	// lock of thousands of tools keeps thousands of them); the zero Raw is
	// JSON null (pre-skeleton v1 entries).
	SchemaSkeleton jsonv.Raw
	// HasV4 is set when the entry carries the v4 commitments below (always
	// at schema_version 4; optional below it).
	HasV4            bool
	AnnotationsHash  string
	OutputSchemaHash string
	// OutputSchemaSkeleton is the zero Raw for JSON null (no output schema).
	OutputSchemaSkeleton jsonv.Raw
	EntryDigest          string

	// memo remembers the digest of the entry's body (everything but
	// entry_digest) as it was read or built, so that Verify need not parse
	// the skeletons back; see toolMemo.
	memo *toolMemo
	// unloaded is set on an entry read or built without its skeletons'
	// compact text (see ReadFileLazy, Builder.BuildToolFound):
	// SchemaSkeleton and OutputSchemaSkeleton stand empty until
	// LoadDiffering or Lock.Load reads them.
	unloaded bool
	// ref, on an unloaded entry, is the lock file entry it is read again
	// from.
	ref *entryRef
}

// toolMemo is the canonical digest of a tool entry's body together with the
// exact field values it was computed from. Verify uses it only while every
// one of those fields is still the same (strings and Raws are immutable, the
// capabilities are a private copy, and an entry with an inspection block,
// a mutable tree, is never memoised), so it can only ever save the work of
// recomputing the same digest, never change a verdict.
type toolMemo struct {
	fields Tool
	omit   bool
	digest string
}

// Resource is one resource entry (SPEC §7.2).
type Resource struct {
	URI             string
	Name            *string
	DescriptionHash string
	MimeType        *string
	EntryDigest     string
}

// Prompt is one prompt entry (SPEC §7.2).
type Prompt struct {
	Name            string
	DescriptionHash string
	ArgumentsHash   string
	EntryDigest     string
}

// Finding is one embedded informational finding (SPEC §9). Snippets are
// always redacted by their producer.
type Finding struct {
	RuleID   string
	Severity string
	Target   string
	Message  string
	Snippet  string
}

// Pin is the baseline metadata (SPEC §10). None of it is hashed.
type Pin struct {
	CreatedAt          string
	WardenVersion      string
	MCPProtocolVersion string
	Approved           bool
	Approver           *string
	ApprovedAt         *string
	ApprovedDigest     *string
	// The provenance fields below are optional in documents written by
	// others; Has* records whether the key was present so a rewrite keeps
	// the document's shape.
	ProvenanceVersion    *int
	HasProvenanceVersion bool
	Pinner               *jsonv.Value
	HasPinner            bool
	Attestations         []*jsonv.Value
	HasAttestations      bool
	RotatedAt            *string
	HasRotatedAt         bool
	RotationCount        *int
	HasRotationCount     bool
	// AcceptedListErrors are the lists whose first page the server
	// answered at pin with a JSON-RPC error that the pin was told to accept
	// (pin --accept-list-error), each recorded as an empty section. The key
	// accepted_list_errors is written only when there is one: a lock
	// without it is read and checked exactly as before. It is warden's own
	// pin key (SPEC §10 lets a producer add one; the reference ignores it).
	AcceptedListErrors []AcceptedListError
	// Extra holds pin keys warden does not know, in document order; SPEC §10
	// says readers tolerate them, and warden keeps them on rewrite.
	Extra []jsonv.Member
}

// AcceptedListError is one list a pin accepted as answered with an error.
type AcceptedListError struct {
	// List is "tools", "resources" or "prompts".
	List string
	// Code is the JSON-RPC error code the server answered.
	Code int64
}

// AcceptedLists are the lists an accepted error may name, in the order a
// lock records them.
var AcceptedLists = [...]string{"tools", "resources", "prompts"}

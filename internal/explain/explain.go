// Package explain says what changed behind each drift item, in the
// server's own words: the old and new description of a tool, the schema
// paths whose values changed, the annotation hints that changed, a prompt's
// arguments, or — when no snapshot of the baseline surface exists — the
// current side alone (a new tool's description, capabilities, required
// properties and annotations).
//
// A drift item (package drift) is the interoperable, hash-level contract
// and never changes; an Explanation rides beside it for the reviewer. Every
// string in an Explanation is server-controlled text: reporters must clip,
// escape and fence it, label it as the server's, and never put it in SARIF
// messages or workflow annotations.
package explain

import (
	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/surface"
)

// Sources of an Explanation.
const (
	// SourceSnapshot: both sides were known (a verified snapshot of the
	// baseline surface, and the current surface).
	SourceSnapshot = "snapshot"
	// SourceCurrent: only the current surface was known.
	SourceCurrent = "current"
)

// Explanation is what a reviewer needs to judge one drift item. The zero
// value (Empty reports it) says nothing.
type Explanation struct {
	// Source is SourceSnapshot or SourceCurrent ("" for the zero value).
	Source string `json:"source,omitempty"`
	// Description is a description change (old and new words); with
	// SourceCurrent only New is set.
	Description *TextChange `json:"description,omitempty"`
	// Paths are the schema paths (JSON Pointer-like, "properties/mode/enum")
	// whose values changed, with their old and new JSON text.
	Paths []PathChange `json:"paths,omitempty"`
	// Hints are the annotation keys that changed.
	Hints []PathChange `json:"hints,omitempty"`
	// Arguments are a prompt's argument changes, by argument path.
	Arguments []PathChange `json:"arguments,omitempty"`
	// Current is the current side of a tool (an added tool, or any tool
	// item when there is no snapshot).
	Current *ToolView `json:"current,omitempty"`
	// Enum lists enum values added or removed, with the property they
	// belong to, when the item is an enum change.
	Enum *EnumChange `json:"enum,omitempty"`
}

// Empty reports whether e says nothing.
func (e Explanation) Empty() bool {
	return e.Description == nil && len(e.Paths) == 0 && len(e.Hints) == 0 &&
		len(e.Arguments) == 0 && e.Current == nil && e.Enum == nil
}

// TextChange is a text before and after, and the word-level edit between
// them.
type TextChange struct {
	Old *string `json:"old,omitempty"`
	New *string `json:"new,omitempty"`
	// Words is the word-level diff from Old to New (empty when either is
	// missing).
	Words []WordOp `json:"words,omitempty"`
}

// Word operations.
const (
	WordSame    = "="
	WordRemoved = "-"
	WordAdded   = "+"
)

// WordOp is one run of the word diff: Op is WordSame, WordRemoved or
// WordAdded, Text the words with the white space between them.
type WordOp struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// PathChange is one value that changed: Old and New are its JSON text, nil
// where the path is absent on that side.
type PathChange struct {
	Path string  `json:"path"`
	Old  *string `json:"old,omitempty"`
	New  *string `json:"new,omitempty"`
}

// ToolView is the current side of a tool.
type ToolView struct {
	Description  *string  `json:"description,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	Required     []string `json:"required,omitempty"`
	// Annotations is the annotations object's JSON text.
	Annotations *string `json:"annotations,omitempty"`
}

// EnumChange is an enum's values added and removed, and the property
// (schema path) they belong to.
type EnumChange struct {
	Property string   `json:"property"`
	Added    []string `json:"added,omitempty"`
	Removed  []string `json:"removed,omitempty"`
}

// Items explains each item (the result is parallel to items). before is
// the baseline surface (from a verified snapshot) or nil; after is the
// current surface or nil. Items that nothing can be said about get the
// zero Explanation.
func Items(items []drift.Item, before, after *surface.Surface) []Explanation {
	// Filled in by the explain implementation; until then it says nothing.
	return make([]Explanation, len(items))
}

// Package explain says what changed behind each drift item, in the
// server's own words: the old and new description of a tool, the schema
// paths whose values changed, the annotation hints that changed, a prompt's
// arguments, or — when no snapshot of the baseline surface exists — the
// current side alone (a new tool's description, capabilities, required
// properties and annotations).
//
// A drift item (package drift) is the interoperable, hash-level contract
// and never changes; an Explanation rides beside it for the reviewer. Every
// string in an Explanation is server-controlled text. Items clips each one
// (see MaxTextBytes and the other bounds; what is cut says so) and bounds
// its own work, but reporters must still escape and fence it, label it as
// the server's, and never put it in SARIF messages or workflow
// annotations.
package explain

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
	// whose values changed, with their old and new JSON text; for a
	// resource, its name and mimeType (and a description that is not
	// text).
	Paths []PathChange `json:"paths,omitempty"`
	// PathsOmitted counts the differing paths not in Paths: over MaxPaths,
	// or not about this item's schema path when some are.
	PathsOmitted int `json:"paths_omitted,omitempty"`
	// PathsIncomplete says the schema was too large to compare whole
	// (more paths may differ than are counted).
	PathsIncomplete bool `json:"paths_incomplete,omitempty"`
	// Hints are the annotation keys that changed.
	Hints []PathChange `json:"hints,omitempty"`
	// HintsOmitted counts the changed keys over MaxPaths.
	HintsOmitted int `json:"hints_omitted,omitempty"`
	// Arguments are a prompt's argument changes, by argument path.
	Arguments []PathChange `json:"arguments,omitempty"`
	// ArgumentsOmitted counts the argument changes over MaxPaths.
	ArgumentsOmitted int `json:"arguments_omitted,omitempty"`
	// Current is the current side of a tool: an added tool, a capability
	// change, and with SourceCurrent the tool's most severe item.
	Current *ToolView `json:"current,omitempty"`
	// Old is the baseline side of a tool (a removed tool, or a capability
	// change), known only from a snapshot.
	Old *ToolView `json:"old,omitempty"`
	// Enum lists enum values added or removed, with the property they
	// belong to, when the item is an enum change.
	Enum *EnumChange `json:"enum,omitempty"`
}

// Empty reports whether e says nothing.
func (e Explanation) Empty() bool {
	return e.Description == nil && len(e.Paths) == 0 && len(e.Hints) == 0 &&
		len(e.Arguments) == 0 && e.Current == nil && e.Enum == nil && e.Old == nil
}

// TextChange is a text before and after, and the word-level edit between
// them.
type TextChange struct {
	Old *string `json:"old,omitempty"`
	New *string `json:"new,omitempty"`
	// Words is the word-level diff from Old to New (empty when either is
	// missing), bounded as described at WordOp.
	Words []WordOp `json:"words,omitempty"`
	// Clipped says Old or New was cut to MaxTextBytes.
	Clipped bool `json:"clipped,omitempty"`
}

// Word operations.
const (
	WordSame    = "="
	WordRemoved = "-"
	WordAdded   = "+"
)

// WordOp is one run of the word diff: Op is WordSame, WordRemoved or
// WordAdded, Text the words with the white space between them.
//
// In an Explanation the runs are bounded: a long unchanged run is shown as
// its first and last ContextBytes (two runs, the first with Omitted set),
// a long removed or added run as its first MaxRunBytes, and past
// MaxWordOps runs the rest is one removal and one addition. len(Text) +
// Omitted is always the length of the text a run stands for.
type WordOp struct {
	Op   string `json:"op"`
	Text string `json:"text"`
	// Omitted is the number of bytes of the run left out right after Text
	// (a reporter shows a marker there).
	Omitted int `json:"omitted,omitempty"`
}

// PathChange is one value that changed: Old and New are its JSON text, nil
// where the path is absent on that side (with SourceCurrent, Old is always
// nil: the old side is unknown, not absent). Each side is cut to
// MaxValueBytes and the path to MaxPathBytes; a cut string stays a JSON
// string, other cut values are not valid JSON.
type PathChange struct {
	Path string  `json:"path"`
	Old  *string `json:"old,omitempty"`
	New  *string `json:"new,omitempty"`
	// Clipped says the path, Old or New was cut.
	Clipped bool `json:"clipped,omitempty"`
	// Words is the word diff from Old to New when both are strings and
	// one was cut (a long property description, say), so that a change
	// past the cut still shows; bounded as TextChange.Words is.
	Words []WordOp `json:"words,omitempty"`
}

// ToolView is one side of a tool: what it says of itself, and the
// capabilities warden derives from it exactly as the lock does.
type ToolView struct {
	Description  *string  `json:"description,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	Required     []string `json:"required,omitempty"`
	// Annotations is the annotations object's JSON text.
	Annotations *string `json:"annotations,omitempty"`
	// Properties are the input schema's top-level property names, from
	// which (with the name) the capabilities are derived.
	Properties []string `json:"properties,omitempty"`
	// Clipped says the description or annotations were cut to
	// MaxTextBytes, or a list to MaxPaths names of MaxValueBytes.
	Clipped bool `json:"clipped,omitempty"`
}

// EnumChange is an enum's values added and removed, and the property
// (schema path) they belong to.
type EnumChange struct {
	Property string   `json:"property"`
	Added    []string `json:"added,omitempty"`
	Removed  []string `json:"removed,omitempty"`
	// Values are the enum's current values, when there is no snapshot to
	// tell what was added (SourceCurrent).
	Values []string `json:"values,omitempty"`
	// Omitted counts the values over MaxEnumValues left out of the lists.
	Omitted int `json:"omitted,omitempty"`
}

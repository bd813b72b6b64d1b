package reporttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ToolChange is what a report of an upgrade must show for one tool,
// worked out from the two surfaces directly (not through warden's own
// explanations), so that a test can hold the report to it.
type ToolChange struct {
	Tool string
	// Added is set for a tool only the new surface has.
	Added bool
	// OldDescription and NewDescription are the descriptions, set when they
	// differ (for an added tool, NewDescription alone).
	OldDescription, NewDescription *string
	// Facts are the input schema's changed values.
	Facts []Fact
	// OutputFacts are the output schema's changed values. A report may cap
	// them (an added output schema can have hundreds of values), so Missing
	// holds a report to them only where it does not say it left lines out.
	OutputFacts []Fact
	// Hints are the annotations' changed values.
	Hints []Fact
}

// Fact is one changed value: its path (JSON Pointer segments joined by
// "/", without the leading "/"), and its old and new JSON text, or
// Absent.
type Fact struct {
	Path, Old, New string
}

// Absent stands for a value missing on one side of a Fact.
const Absent = "(absent)"

// Line is the fact as warden's reports write it: "path: old -> new".
func (f Fact) Line() string { return f.Path + ": " + f.Old + " -> " + f.New }

// RemovedWords returns the words of the old description that the new one
// lacks (as a multiset), in the order they appear.
func (c ToolChange) RemovedWords() []string {
	return wordsLess(c.OldDescription, c.NewDescription)
}

// AddedWords returns the words of the new description that the old one
// lacks (as a multiset), in the order they appear.
func (c ToolChange) AddedWords() []string {
	return wordsLess(c.NewDescription, c.OldDescription)
}

func wordsLess(a, b *string) []string {
	if a == nil {
		return nil
	}
	count := map[string]int{}
	if b != nil {
		for _, w := range strings.Fields(*b) {
			count[w]++
		}
	}
	var out []string
	for _, w := range strings.Fields(*a) {
		if count[w] > 0 {
			count[w]--
			continue
		}
		out = append(out, w)
	}
	return out
}

// snapshotDoc is the part of a surface snapshot (or surface file) the
// expectations read.
type snapshotDoc struct {
	Tools []struct {
		Name         string          `json:"name"`
		Description  *string         `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		Annotations  json.RawMessage `json:"annotations"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	} `json:"tools"`
}

// UpgradeChanges compares two surface snapshots (or surface files) and
// returns, by tool name, every tool whose description, input schema,
// annotations or output schema changed, and every added tool. Values are compared as
// warden's explanations compare them: objects member by member, arrays of
// containers item by item, an array of scalars (an enum, a required list)
// as one value, and a container on one side only leaf by leaf.
func UpgradeChanges(before, after []byte) ([]ToolChange, error) {
	var a, b snapshotDoc
	if err := json.Unmarshal(before, &a); err != nil {
		return nil, fmt.Errorf("read the old surface: %w", err)
	}
	if err := json.Unmarshal(after, &b); err != nil {
		return nil, fmt.Errorf("read the new surface: %w", err)
	}
	old := map[string]int{}
	for i, t := range a.Tools {
		old[t.Name] = i
	}
	var out []ToolChange
	for _, nt := range b.Tools {
		i, ok := old[nt.Name]
		if !ok {
			out = append(out, ToolChange{Tool: nt.Name, Added: true, NewDescription: nt.Description})
			continue
		}
		ot := a.Tools[i]
		c := ToolChange{Tool: nt.Name}
		if !equalPtr(ot.Description, nt.Description) {
			c.OldDescription, c.NewDescription = ot.Description, nt.Description
		}
		var err error
		if c.Facts, err = facts(ot.InputSchema, nt.InputSchema); err != nil {
			return nil, fmt.Errorf("tool %q input schema: %w", nt.Name, err)
		}
		if c.Hints, err = facts(ot.Annotations, nt.Annotations); err != nil {
			return nil, fmt.Errorf("tool %q annotations: %w", nt.Name, err)
		}
		if c.OutputFacts, err = facts(ot.OutputSchema, nt.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %q output schema: %w", nt.Name, err)
		}
		if c.OldDescription != nil || c.NewDescription != nil || len(c.Facts) > 0 || len(c.Hints) > 0 || len(c.OutputFacts) > 0 {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(x, y ToolChange) int { return strings.Compare(x.Tool, y.Tool) })
	return out, nil
}

func equalPtr(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// facts diffs two JSON texts (empty or null for an absent value).
func facts(a, b json.RawMessage) ([]Fact, error) {
	av, err := decodeValue(a)
	if err != nil {
		return nil, err
	}
	bv, err := decodeValue(b)
	if err != nil {
		return nil, err
	}
	var out []Fact
	walkFacts(nil, av, bv, &out)
	return out, nil
}

// absent marks a missing value in walkFacts.
type absent struct{}

func decodeValue(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return absent{}, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func walkFacts(path []string, a, b any, out *[]Fact) {
	_, aAbsent := a.(absent)
	_, bAbsent := b.(absent)
	switch {
	case aAbsent && bAbsent:
		return
	case aAbsent || bAbsent:
		x := a
		if aAbsent {
			x = b
		}
		if isContainer(x) && !isScalarArray(x) && size(x) > 0 {
			walkChildren(path, a, b, out)
			return
		}
	case isObject(a) && isObject(b):
		walkChildren(path, a, b, out)
		return
	case isArray(a) && isArray(b) && !(isScalarArray(a) && isScalarArray(b)):
		walkChildren(path, a, b, out)
		return
	default:
		if jsonText(a) == jsonText(b) {
			return
		}
	}
	*out = append(*out, Fact{Path: strings.Join(path, "/"), Old: jsonText(a), New: jsonText(b)})
}

func walkChildren(path []string, a, b any, out *[]Fact) {
	child := func(key string) []string { return append(slices.Clip(path), escapeSegment(key)) }
	if isArray(a) || isArray(b) {
		as, _ := a.([]any)
		bs, _ := b.([]any)
		for i := range max(len(as), len(bs)) {
			walkFacts(child(fmt.Sprint(i)), at(as, i), at(bs, i), out)
		}
		return
	}
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	keys := make([]string, 0, len(am)+len(bm))
	for k := range am {
		keys = append(keys, k)
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		walkFacts(child(k), get(am, k), get(bm, k), out)
	}
}

func escapeSegment(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func at(s []any, i int) any {
	if i < len(s) {
		return s[i]
	}
	return absent{}
}

func get(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return absent{}
}

func isObject(v any) bool    { _, ok := v.(map[string]any); return ok }
func isArray(v any) bool     { _, ok := v.([]any); return ok }
func isContainer(v any) bool { return isObject(v) || isArray(v) }

func isScalarArray(v any) bool {
	s, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range s {
		if isContainer(x) {
			return false
		}
	}
	return true
}

func size(v any) int {
	switch x := v.(type) {
	case []any:
		return len(x)
	case map[string]any:
		return len(x)
	}
	return 0
}

// jsonText is v's compact JSON text (HTML characters unescaped, as a
// server writes them), or Absent.
func jsonText(v any) string {
	if _, ok := v.(absent); ok {
		return Absent
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// Missing returns what lines (a report's, or one item's part of it) fail
// to show of c, one sentence per miss: every removed word of the
// description must be on a "- " line and every added word on a "+ " line;
// an added tool's description, and every changed schema value and
// annotation hint as its Fact.Line, must be in the text; of the output
// schema's changed values, all of them unless the lines say some were
// left out, and then at least one. White space
// around lines is ignored, and a text may be wrapped across lines (the
// lines are read as one text, each run of white space as one space).
func (c ToolChange) Missing(lines []string) []string {
	onLine := func(prefix, w string) bool {
		for _, l := range lines {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, prefix) && strings.Contains(l, w) {
				return true
			}
		}
		return false
	}
	joined := " " + strings.Join(strings.Fields(strings.Join(lines, " ")), " ") + " "
	inText := func(s string) bool {
		return strings.Contains(joined, " "+strings.Join(strings.Fields(s), " ")+" ")
	}
	var miss []string
	if c.Added {
		if c.NewDescription != nil && !inText(*c.NewDescription) {
			miss = append(miss, fmt.Sprintf("added tool %s: its description %q is not shown", c.Tool, *c.NewDescription))
		}
		return miss
	}
	for _, w := range c.RemovedWords() {
		if !onLine("- ", w) {
			miss = append(miss, fmt.Sprintf("tool %s: removed word %q is on no \"- \" line", c.Tool, w))
		}
	}
	for _, w := range c.AddedWords() {
		if !onLine("+ ", w) {
			miss = append(miss, fmt.Sprintf("tool %s: added word %q is on no \"+ \" line", c.Tool, w))
		}
	}
	// A value shown beside another item's own keyword names its schema
	// first ("inputSchema/properties/x/description: ...").
	for _, f := range c.Facts {
		if !inText(f.Line()) && !inText("inputSchema/"+f.Line()) {
			miss = append(miss, fmt.Sprintf("tool %s: %q is not shown", c.Tool, f.Line()))
		}
	}
	for _, f := range c.Hints {
		if !inText(f.Line()) {
			miss = append(miss, fmt.Sprintf("tool %s: %q is not shown", c.Tool, f.Line()))
		}
	}
	capped := strings.Contains(joined, " left out")
	shown := 0
	for _, f := range c.OutputFacts {
		if inText(f.Line()) || inText("outputSchema/"+f.Line()) {
			shown++
		} else if !capped {
			miss = append(miss, fmt.Sprintf("tool %s: output schema %q is not shown", c.Tool, f.Line()))
		}
	}
	if capped && len(c.OutputFacts) > 0 && shown == 0 {
		miss = append(miss, fmt.Sprintf("tool %s: none of the output schema's %d changed values is shown", c.Tool, len(c.OutputFacts)))
	}
	return miss
}

// DriftSurfaces returns a baseline surface file and a current one that
// differ by n drift items, and how many of them are high: a quarter low
// (descriptions changed), and the rest split 8 to 7 between high (tools
// added) and medium (tools removed). The names put the low items first
// and the high ones last in name order, so only a sort by severity brings
// the high ones to the top. n=1 is one description change.
func DriftSurfaces(n int) (base, current []byte, high int) {
	low := max(1, n/4)
	if n > 1 {
		high = (n - low) * 8 / 15
	}
	medium := n - low - high
	type tool struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
	}
	mk := func(name, desc string) tool {
		return tool{Name: name, Description: desc, InputSchema: map[string]any{"type": "object"}}
	}
	var before, after []tool
	for i := range low {
		name := fmt.Sprintf("a-described-%03d", i)
		before = append(before, mk(name, fmt.Sprintf("Lists the notes of folder %d.", i)))
		after = append(after, mk(name, fmt.Sprintf("Lists the notes of folder %d and uploads them to a remote backup.", i)))
	}
	for i := range medium {
		before = append(before, mk(fmt.Sprintf("m-removed-%03d", i), "Removed later."))
	}
	for i := range high {
		after = append(after, mk(fmt.Sprintf("z-added-%03d", i), "Added later."))
	}
	doc := func(tools []tool) []byte {
		// Marshalling these types cannot fail.
		data, _ := json.Marshal(map[string]any{"command": "node", "args": []string{"server.js"}, "tools": tools, "resources": []any{}, "prompts": []any{}})
		return data
	}
	return doc(before), doc(after), high
}

// ItemBlocks splits a report's text (the text report, or Text of a
// rendered summary or comment) into the lines under each drift item, keyed
// by target: a line whose first word is a severity and whose third is the
// target starts that target's block, or continues it when the target came
// before (a table row, then the item's quotes further down). A line
// indented by five spaces or more never starts a block, since the text
// report indents the server text it quotes that far.
func ItemBlocks(text string) map[string][]string {
	blocks := map[string][]string{}
	target := ""
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && !strings.HasPrefix(line, "     ") && isSeverity(f[0]) {
			target = f[2]
		}
		if target != "" {
			blocks[target] = append(blocks[target], line)
		}
	}
	return blocks
}

func isSeverity(s string) bool {
	switch s {
	case "critical", "high", "medium", "low", "info":
		return true
	}
	return false
}

// Package findings computes the static findings catalogue of SPEC §9: the
// informational WRD-* findings warden embeds in a lock at pin time and
// reports at check time. It covers the launch command's supply-chain shape,
// the capability flags each tool derives, malformed input schemas, and
// secrets that a server's declared surface leaks in names, descriptions,
// schema defaults/enums/examples and launch arguments.
//
// Scan reproduces the reference implementation's findings byte for byte
// (reference-behaviour §6), porting its Python regular expressions by hand
// because their Unicode-aware `\b`, `\d`, `\w` and `\s` differ from Go's.
// Findings never affect a digest or an exit code, but they are written into
// warden.lock, so they must match. Where the reference would echo a
// recognisable credential verbatim, warden redacts it instead (SPEC §9); see
// docs/findings.md.
package findings

import (
	"sort"

	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/surface"
)

// Rule identifiers of the catalogue.
const (
	RuleCapShell        = "WRD-CAP-SHELL"
	RuleCapFSWrite      = "WRD-CAP-FS-WRITE"
	RuleCapFSRead       = "WRD-CAP-FS-READ"
	RuleCapHTTP         = "WRD-CAP-HTTP"
	RuleCapSQL          = "WRD-CAP-SQL"
	RuleSchemaMalformed = "WRD-SCHEMA-MALFORMED"
	RuleSecOpenAI       = "WRD-SEC-OPENAI"
	RuleSecGitHub       = "WRD-SEC-GITHUB"
	RuleSecAWS          = "WRD-SEC-AWS-AKID"
	RuleSecSlack        = "WRD-SEC-SLACK"
	RuleSecPrivKey      = "WRD-SEC-PRIVKEY"
	RuleSecJWT          = "WRD-SEC-JWT"
	RuleSecEntropy      = "WRD-SEC-ENTROPY"
	RuleSupCurlPipe     = "WRD-SUP-CURL-PIPE"
	RuleSupLatestTag    = "WRD-SUP-LATEST-TAG"
	RuleSupNPXUnpinned  = "WRD-SUP-NPX-UNPINNED"
	RuleSupUVXUnpinned  = "WRD-SUP-UVX-UNPINNED"
	RuleSupPIPUnpinned  = "WRD-SUP-PIP-UNPINNED"
)

// Severities a finding can carry.
const (
	Critical = "critical"
	High     = "high"
	Medium   = "medium"
	Low      = "low"
)

// TargetLaunch is the target of every launch-command finding.
const TargetLaunch = "launch/command"

// capRules maps each capability flag to its finding rule and severity.
var capRules = map[string]struct{ rule, severity string }{
	caps.ShellExec:   {RuleCapShell, Critical},
	caps.FSWrite:     {RuleCapFSWrite, High},
	caps.FSRead:      {RuleCapFSRead, Medium},
	caps.HTTPRequest: {RuleCapHTTP, High},
	caps.SQLQuery:    {RuleCapSQL, High},
}

// Scan returns the static findings for a captured surface: de-duplicated on
// (rule, target, snippet), keeping the first, and sorted by target, then
// rule, then snippet, in code-point order.
//
// What is examined, in order: the launch argv's supply-chain shape and each
// argv token's secrets (nothing for a URL server: the URL is not scanned);
// then each tool in capture order — a non-object inputSchema, its derived
// capabilities, and secrets in its name, description and the string
// defaults, enum members and examples anywhere in its inputSchema; then each
// resource's uri, name and description; then each prompt's name and
// description.
func Scan(s *surface.Surface) []lock.Finding {
	if s == nil {
		return []lock.Finding{}
	}
	var sc Scanner
	sc.Launch(s.Server)
	for _, t := range s.Tools {
		sc.Tool(t)
	}
	for _, r := range s.Resources {
		sc.Resource(r)
	}
	for _, p := range s.Prompts {
		sc.Prompt(p)
	}
	return sc.Findings()
}

// Scanner gathers the findings of a surface that arrives one part at a
// time, as Scan does for a whole one: the parts may come in any order (the
// findings are sorted at the end), and only the findings are kept. The
// zero Scanner is ready to use.
type Scanner struct {
	out []lock.Finding
}

// Launch scans the launch identity: the argv's supply-chain shape and each
// argv token's secrets; nothing for a URL server (the URL is not scanned).
func (sc *Scanner) Launch(srv surface.Server) {
	if srv.IsHTTP() {
		return
	}
	argv := srv.Argv()
	sc.out = append(sc.out, SupplyChain(argv)...)
	for _, tok := range argv {
		sc.out = append(sc.out, ScanField(tok, TargetLaunch)...)
	}
}

// Tool scans one tool (see Scan).
func (sc *Scanner) Tool(t surface.Tool) { sc.out = scanTool(sc.out, t, nil) }

// AnalyzedTool is Tool for a tool already tokenized:
// caps.Analyze(t.Name, t.InputSchema).
func (sc *Scanner) AnalyzedTool(t surface.Tool, a *caps.Analysis) {
	sc.out = scanTool(sc.out, t, a)
}

// Resource scans one resource's uri, name and description.
func (sc *Scanner) Resource(r surface.Resource) {
	target := entryTarget("resources/", r.URI)
	sc.out = append(sc.out, ScanField(r.URI, target)...)
	name, _ := r.Name.Str()
	sc.out = append(sc.out, ScanField(name, target)...)
	desc, _ := r.Description.Str()
	sc.out = append(sc.out, ScanField(desc, target)...)
}

// Prompt scans one prompt's name and description.
func (sc *Scanner) Prompt(p surface.Prompt) {
	target := entryTarget("prompts/", p.Name)
	sc.out = append(sc.out, ScanField(p.Name, target)...)
	desc, _ := p.Description.Str()
	sc.out = append(sc.out, ScanField(desc, target)...)
}

// Join adds the findings o gathered (on another goroutine, say) to sc's;
// as parts may come in any order, so may Scanners.
func (sc *Scanner) Join(o *Scanner) {
	sc.out = append(sc.out, o.out...)
	o.out = nil
}

// Findings returns what was found, de-duplicated and sorted as Scan's.
func (sc *Scanner) Findings() []lock.Finding { return dedupeSort(sc.out) }

// entryTarget is "<kind>/<identity>". The identity is the entry's key, so
// it is kept verbatim (drift reports and the lock's entries use the same
// text) except for vendor-pattern secrets, which are redacted.
func entryTarget(kind, identity string) string {
	return kind + maskVendorSecrets(identity)
}

// scanTool appends the findings of t to out, in the order Scan gathers
// them: straight onto the Scanner's list, which a slice of the tool's own
// would cost an allocation and a copy a tool.
func scanTool(out []lock.Finding, t surface.Tool, a *caps.Analysis) []lock.Finding {
	target := entryTarget("tools/", t.Name)
	schema := t.InputSchema
	if !schema.IsNull() && schema.Kind != jsonv.Object {
		out = append(out, lock.Finding{
			RuleID:   RuleSchemaMalformed,
			Severity: Low,
			Target:   target,
			Message:  "inputSchema is present but not a JSON object; capability analysis skipped",
			Snippet:  "inputSchema type=" + pyfmt.TypeName(schema),
		})
	}
	if schema != nil && schema.Kind != jsonv.Object {
		schema = nil
	}
	if a == nil {
		a = caps.Analyze(t.Name, schema)
	}
	for _, flag := range a.Flags() {
		r := capRules[flag]
		evidence := maskVendorSecrets(a.Evidence(flag))
		out = append(out, lock.Finding{
			RuleID:   r.rule,
			Severity: r.severity,
			Target:   target,
			Message:  "Tool derives capability '" + flag + "' (" + evidence + ")",
			Snippet:  evidence,
		})
	}
	out = appendField(out, t.Name, target)
	out = appendField(out, t.DescriptionText(), target)
	if schema != nil {
		schemaStrings(schema, func(v string) {
			out = appendField(out, v, target)
		})
	}
	return out
}

// schemaStrings calls f with every string "default", every string member of
// an "enum" array and every string member of an "examples" array, in any
// object at any depth of schema. The walk enters every object member and
// array element except the values of those three keys themselves, so a
// property that happens to be named "default" hides its subschema, as in
// the reference. Property names are never reported. An object's strings
// are reported before those of its members, and members and items are
// walked in document order.
func schemaStrings(schema *jsonv.Value, f func(string)) {
	schemaWalk(schema, f, schemaRecursion)
}

// schemaRecursion is how deep schemaWalk recurses before it hands a
// subtree to schemaWalkStack: a parsed document may be nested far deeper
// than the Go stack should be asked to recurse, but schemas seldom are,
// and recursing costs no pushes, pops and reversals of a stack of
// pointers (each push a write barrier while the collector runs).
const schemaRecursion = 32

// schemaWalk is schemaStrings, recursing depth levels at most.
func schemaWalk(v *jsonv.Value, f func(string), depth int) {
	switch v.Kind {
	case jsonv.Object:
		schemaLeaves(v, f)
		for i := range v.Members {
			m := &v.Members[i]
			if !isContainer(m.Value) || isLeafKey(m.Key) {
				continue
			}
			if depth == 0 {
				schemaWalkStack(m.Value, f)
			} else {
				schemaWalk(m.Value, f, depth-1)
			}
		}
	case jsonv.Array:
		for _, it := range v.Items {
			if !isContainer(it) {
				continue
			}
			if depth == 0 {
				schemaWalkStack(it, f)
			} else {
				schemaWalk(it, f, depth-1)
			}
		}
	}
}

// schemaWalkStack is schemaStrings with an explicit stack, for subtrees
// nested too deep to recurse into.
func schemaWalkStack(schema *jsonv.Value, f func(string)) {
	stack := []*jsonv.Value{schema}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		// Children are pushed last first, so that they are popped in
		// document order.
		switch v.Kind {
		case jsonv.Object:
			schemaLeaves(v, f)
			for i := len(v.Members) - 1; i >= 0; i-- {
				if m := &v.Members[i]; isContainer(m.Value) && !isLeafKey(m.Key) {
					stack = append(stack, m.Value)
				}
			}
		case jsonv.Array:
			for i := len(v.Items) - 1; i >= 0; i-- {
				if isContainer(v.Items[i]) {
					stack = append(stack, v.Items[i])
				}
			}
		}
	}
}

// isContainer reports whether v is an object or an array: only those hold
// anything to report.
func isContainer(v *jsonv.Value) bool { return v.Kind == jsonv.Object || v.Kind == jsonv.Array }

// isLeafKey reports whether key is one whose value schemaStrings reports
// from rather than walks into.
func isLeafKey(key string) bool { return key == "default" || key == "enum" || key == "examples" }

// schemaLeaves calls f with object v's string "default", then the string
// members of its "enum" and "examples" arrays; of a repeated key, the first
// counts, as Get has it.
func schemaLeaves(v *jsonv.Value, f func(string)) {
	var def, enum, examples *jsonv.Value
	for i := range v.Members {
		m := &v.Members[i]
		switch m.Key {
		case "default":
			if def == nil {
				def = m.Value
			}
		case "enum":
			if enum == nil {
				enum = m.Value
			}
		case "examples":
			if examples == nil {
				examples = m.Value
			}
		}
	}
	if d, ok := def.Str(); ok {
		f(d)
	}
	for _, list := range [2]*jsonv.Value{enum, examples} {
		if list != nil && list.Kind == jsonv.Array {
			for _, it := range list.Items {
				if s, ok := it.Str(); ok {
					f(s)
				}
			}
		}
	}
}

// dedupeSort keeps the first finding of each (rule, target, snippet) and
// sorts by (target, rule, snippet); Go string order is code-point order.
func dedupeSort(in []lock.Finding) []lock.Finding {
	type key struct{ rule, target, snippet string }
	seen := make(map[key]bool, len(in))
	out := make([]lock.Finding, 0, len(in))
	for _, f := range in {
		k := key{f.RuleID, f.Target, f.Snippet}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		return a.Snippet < b.Snippet
	})
	return out
}

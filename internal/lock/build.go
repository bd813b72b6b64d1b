package lock

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/skeleton"
	"github.com/wardenlock/warden/internal/surface"
)

// Build makes a fresh lock at CurrentSchemaVersion from a captured surface:
// server identity, sorted entries with their field hashes, capabilities,
// skeletons and entry digests, and the overall digest. Pin, findings and
// warden_version are left for the caller; none of them is hashed.
func Build(s *surface.Surface) (*Lock, error) {
	b := NewBuilder()
	if err := b.SetServer(s.Server); err != nil {
		return nil, err
	}
	for _, t := range s.Tools {
		if err := b.AddTool(t); err != nil {
			return nil, err
		}
	}
	for _, r := range s.Resources {
		if err := b.AddResource(r); err != nil {
			return nil, err
		}
	}
	for _, p := range s.Prompts {
		if err := b.AddPrompt(p); err != nil {
			return nil, err
		}
	}
	return b.Finish()
}

// Builder makes a lock from a surface delivered one part at a time — a
// captured surface, or a surface file read entry by entry — as Build does.
// Each entry is hashed when it is added and kept only in the lock's compact
// form (field hashes, capabilities, skeletons as jsonv.Raw), so no entry's
// trees outlive the call that added it. The zero Builder is not ready; use
// NewBuilder.
type Builder struct {
	// One set of buffers for the whole build, reused across entries.
	s         scratch
	l         Lock
	hasServer bool
}

// scratch holds the buffers a build reuses from entry to entry.
type scratch struct {
	h   canon.Hasher
	raw []byte
	// caps is the tool's analysis when the caller has it.
	caps *caps.Analysis
	// x and xo extract the input and output skeletons.
	x, xo skeleton.Extractor
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{l: Lock{
		SchemaVersion: CurrentSchemaVersion,
		Tools:         []Tool{},
		Resources:     []Resource{},
		Prompts:       []Prompt{},
		Findings:      []Finding{},
	}}
}

// SetServer sets the launch identity (SPEC §6); it may come before or after
// the entries, but before Finish.
func (b *Builder) SetServer(s surface.Server) error {
	srv, err := buildServer(&b.s.h, s)
	if err != nil {
		return err
	}
	b.l.Server = srv
	b.hasServer = true
	return nil
}

// AddTool adds one tool entry.
func (b *Builder) AddTool(t surface.Tool) error {
	return b.AddAnalyzedTool(t, nil)
}

// AddAnalyzedTool is AddTool for a tool whose name and input schema have
// been tokenized already (caps.Analyze(t.Name, t.InputSchema)), as a
// caller that also scans the tool for findings has; a nil a is AddTool.
func (b *Builder) AddAnalyzedTool(t surface.Tool, a *caps.Analysis) error {
	e, err := b.BuildAnalyzedTool(t, a)
	if err != nil {
		return err
	}
	b.AddBuilt(e)
	return nil
}

// BuildAnalyzedTool builds the entry AddAnalyzedTool would add, without
// adding it: a caller building tools on several goroutines (each with its
// own Fork) adds them to one Builder with AddBuilt, in the order it chooses.
func (b *Builder) BuildAnalyzedTool(t surface.Tool, a *caps.Analysis) (Tool, error) {
	b.s.caps = a
	e, err := buildTool(&b.s, t)
	b.s.caps = nil
	if err != nil {
		return Tool{}, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	return e, nil
}

// BuildToolText builds the tool entry BuildAnalyzedTool builds and appends
// its text as the lock file holds it (AppendToolText's) to dst, rendering
// the skeletons straight from the schema walk. The entry returned is whole
// only when keep, given the text, says so; otherwise it carries just what
// the lock's order and overall digest need (name and entry digest), which
// is all a writer that has the text needs to keep (see StreamWriter). An
// entry that is not whole must never be written or verified.
func (b *Builder) BuildToolText(t surface.Tool, a *caps.Analysis, dst []byte, keep func(text []byte) bool) (Tool, []byte, error) {
	start := len(dst)
	e, skel, out, dst, err := b.renderTool(t, a, dst)
	if err != nil {
		return Tool{}, dst, err
	}
	if keep == nil || !keep(dst[start:]) {
		return Tool{Name: e.Name, EntryDigest: e.EntryDigest, HasV4: true}, dst, nil
	}
	b.s.keepSkeletons(&e, skel, out)
	return e, dst, nil
}

// BuildToolFound is BuildToolText for a check against the lock d: find
// looks the rendered text up (with d.Find, or returns -1), and the entry
// found at a slot is returned without its skeletons' compact text, marked
// to be read again from that slot of d's file when a consumer needs its
// skeletons (Lock.Load): it is the lock's entry, byte for byte, and most
// of a clean check's entries are never looked at beyond their hashes. An
// entry not found is returned whole, with slot -1.
func (b *Builder) BuildToolFound(t surface.Tool, a *caps.Analysis, dst []byte, d *Deferred, find func(text []byte) int) (e Tool, text []byte, slot int, err error) {
	start := len(dst)
	e, skel, out, dst, err := b.renderTool(t, a, dst)
	if err != nil {
		return Tool{}, dst, -1, err
	}
	if slot = find(dst[start:]); slot >= 0 {
		e.unloaded, e.ref = true, d.ref(slot)
		e.memo = newToolMemo(e, false, e.EntryDigest)
		return e, dst, slot, nil
	}
	b.s.keepSkeletons(&e, skel, out)
	return e, dst, -1, nil
}

// renderTool builds t's entry but for its skeletons' text and appends its
// lock text to dst; the skeletons stay valid until the next build.
func (b *Builder) renderTool(t surface.Tool, a *caps.Analysis, dst []byte) (Tool, *skeleton.Skeleton, *skeleton.Skeleton, []byte, error) {
	b.s.caps = a
	e, skel, out, err := buildToolParts(&b.s, t)
	b.s.caps = nil
	if err != nil {
		return Tool{}, nil, nil, dst, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	enc := &encoder{b: dst}
	enc.toolWith(&e, func(level int) { enc.b = skel.AppendIndent(enc.b, lockIndent, level) },
		func(level int) { enc.b = out.AppendIndent(enc.b, lockIndent, level) })
	return e, skel, out, enc.b, nil
}

// keepSkeletons gives e, just built, its skeletons' compact text (written
// through sc's scratch buffer) and the memo of its body digest.
func (sc *scratch) keepSkeletons(e *Tool, skel, out *skeleton.Skeleton) {
	sc.raw = skel.AppendCompact(sc.raw[:0])
	e.SchemaSkeleton = jsonv.CompactRaw(sc.raw)
	if out != nil {
		sc.raw = out.AppendCompact(sc.raw[:0])
		e.OutputSchemaSkeleton = jsonv.CompactRaw(sc.raw)
	}
	e.memo = newToolMemo(*e, false, e.EntryDigest)
}

// AddBuilt adds a tool entry made by BuildAnalyzedTool or BuildToolText.
func (b *Builder) AddBuilt(e Tool) { b.l.Tools = append(b.l.Tools, e) }

// AddResource adds one resource entry.
func (b *Builder) AddResource(r surface.Resource) error {
	e, err := buildResource(&b.s.h, r)
	if err != nil {
		return fmt.Errorf("resource %q: %w", r.URI, err)
	}
	b.l.Resources = append(b.l.Resources, e)
	return nil
}

// AddPrompt adds one prompt entry.
func (b *Builder) AddPrompt(p surface.Prompt) error {
	e, err := buildPrompt(&b.s.h, p)
	if err != nil {
		return fmt.Errorf("prompt %q: %w", p.Name, err)
	}
	b.l.Prompts = append(b.l.Prompts, e)
	return nil
}

// Fork returns an empty Builder for building entries on another goroutine
// (a Builder is not safe for concurrent use); Join adds its entries to b.
// Entries are sorted by Finish, so the order in which they were added and
// joined does not show, except among entries with the same name or URI,
// which keep the order they were added in.
func (b *Builder) Fork() *Builder { return NewBuilder() }

// Join moves the entries of f, a Fork of b, into b.
func (b *Builder) Join(f *Builder) {
	b.l.Tools = append(b.l.Tools, f.l.Tools...)
	b.l.Resources = append(b.l.Resources, f.l.Resources...)
	b.l.Prompts = append(b.l.Prompts, f.l.Prompts...)
	f.l = Lock{}
}

// Len returns how many entries have been added.
func (b *Builder) Len() int { return len(b.l.Tools) + len(b.l.Resources) + len(b.l.Prompts) }

// Finish sorts the entries, computes the overall digest and returns the
// lock. The Builder must not be used afterwards.
func (b *Builder) Finish() (*Lock, error) {
	if !b.hasServer {
		return nil, errors.New("build lock: no server identity")
	}
	l := &b.l
	// Entries sort by code point (byte order of UTF-8), not UTF-16 order:
	// vector digest/entry-sorting pins it.
	l.Tools = sortToolsStable(l.Tools)
	slices.SortStableFunc(l.Resources, func(x, y Resource) int { return strings.Compare(x.URI, y.URI) })
	slices.SortStableFunc(l.Prompts, func(x, y Prompt) int { return strings.Compare(x.Name, y.Name) })
	d, err := overallDigest(&b.s.h, l)
	if err != nil {
		return nil, err
	}
	l.OverallDigest = d
	out := *l
	b.l = Lock{}
	return &out, nil
}

// sortToolsStable sorts tools by name, keeping repeated names in their
// order, as slices.SortStableFunc would. A Tool is some twenty words: the
// order is found on small keys — each name's first sixteen bytes as two
// numbers, and its index — and each entry then moved once, where a stable
// merge sort moves entries many times over and each comparison of names
// would reach into two entries and their names' bytes.
func sortToolsStable(tools []Tool) []Tool {
	byName := func(x, y Tool) int { return strings.Compare(x.Name, y.Name) }
	if slices.IsSortedFunc(tools, byName) {
		return tools
	}
	keys := make([]nameKey, len(tools))
	for i := range tools {
		keys[i] = newNameKey(tools[i].Name, i)
	}
	slices.SortFunc(keys, func(x, y nameKey) int {
		if c := cmp.Compare(x.hi, y.hi); c != 0 {
			return c
		}
		if c := cmp.Compare(x.lo, y.lo); c != 0 {
			return c
		}
		if c := strings.Compare(tools[x.i].Name, tools[y.i].Name); c != 0 {
			return c
		}
		return cmp.Compare(x.i, y.i)
	})
	sorted := make([]Tool, len(tools))
	for k, key := range keys {
		sorted[k] = tools[key.i]
	}
	return sorted
}

// nameKey orders a tool by its name's first sixteen bytes, zero-padded and
// read big-endian: two keys that differ order their names as
// strings.Compare does (a shorter name that is a prefix of a longer one
// pads with zeros, which no byte is below), and equal keys compare the
// names whole.
type nameKey struct {
	hi, lo uint64
	i      int32
}

func newNameKey(name string, i int) nameKey {
	var b [16]byte
	copy(b[:], name)
	return nameKey{hi: binary.BigEndian.Uint64(b[:8]), lo: binary.BigEndian.Uint64(b[8:]), i: int32(i)}
}

// BuildServer computes the launch identity and its command_digest (SPEC §6.1):
// hash({"command", "args"}) for stdio, hash({"url"}) for HTTP servers.
func BuildServer(s surface.Server) (Server, error) { return buildServer(&canon.Hasher{}, s) }

func buildServer(h *canon.Hasher, s surface.Server) (Server, error) {
	var body *jsonv.Value
	srv := Server{Command: s.Command, Args: append([]string{}, s.Args...)}
	if s.IsHTTP() {
		u := s.URL
		srv = Server{Command: "", Args: []string{}, URL: &u}
		body = jsonv.NewObject(jsonv.M("url", jsonv.NewString(u)))
	} else {
		body = jsonv.NewObject(
			jsonv.M("command", jsonv.NewString(s.Command)),
			jsonv.M("args", jsonv.NewStrings(srv.Args)),
		)
	}
	d, err := h.Hash(body)
	if err != nil {
		return Server{}, fmt.Errorf("command_digest: %w", err)
	}
	srv.CommandDigest = d
	return srv, nil
}

// hashOr hashes v, or the fallback when v is absent or JSON null.
func hashOr(h *canon.Hasher, v *jsonv.Value, fallback string) (string, error) {
	if v.IsNull() {
		return fallback, nil
	}
	return h.Hash(v)
}

// The digests of the absence values of SPEC §5.1 and §7.1, which most
// entries use for one field or another: hash(""), hash({}), hash([]) and
// hash(null). TestAbsenceDigests holds them to canon.Hash.
const (
	emptyStringDigest = "sha256:12ae32cb1ec02d01eda3581b127c1fee3b0dc53572ed6baf239721a03d82e126"
	emptyObjectDigest = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
	emptyArrayDigest  = "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
	nullDigest        = "sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"
)

// BuildTool makes a v4 tool entry (SPEC §5.1, §7.1, reference-behaviour §1.2).
func BuildTool(t surface.Tool) (Tool, error) { return buildTool(&scratch{}, t) }

func buildTool(sc *scratch, t surface.Tool) (Tool, error) {
	e, skel, out, err := buildToolParts(sc, t)
	if err != nil {
		return Tool{}, err
	}
	sc.keepSkeletons(&e, skel, out)
	return e, nil
}

// buildToolParts builds a tool entry but for its skeletons' text, and
// returns the skeletons, which stay valid until sc's next build.
func buildToolParts(sc *scratch, t surface.Tool) (e Tool, skel, out *skeleton.Skeleton, err error) {
	h := &sc.h
	e = Tool{Name: t.Name, HasV4: true}
	if e.DescriptionHash, err = hashOr(h, t.Description, emptyStringDigest); err != nil {
		return Tool{}, nil, nil, fmt.Errorf("description: %w", err)
	}
	// A present inputSchema that is not an object hashes as {} (vector
	// digest/malformed-input-schema) and contributes no capabilities.
	var obj *jsonv.Value
	if t.InputSchema != nil && t.InputSchema.Kind == jsonv.Object {
		obj = t.InputSchema
	}
	if e.InputSchemaHash, err = hashOr(h, obj, emptyObjectDigest); err != nil {
		return Tool{}, nil, nil, fmt.Errorf("inputSchema: %w", err)
	}
	if sc.caps != nil {
		e.Capabilities = sc.caps.Flags()
	} else {
		e.Capabilities = caps.Derive(t.Name, obj)
	}
	if e.Capabilities == nil {
		e.Capabilities = []string{}
	}
	// The skeleton walks the raw value, so a non-object schema still gives
	// {"props": {}}.
	in := t.InputSchema
	if in == nil {
		in = jsonv.NewNull()
	}
	// The skeletons are written out before the next tool is built: one
	// Extractor for input schemas, one for output schemas, serve the
	// whole build.
	skel = sc.x.Extract(in)
	if a := t.Annotations; !a.IsNull() && a.Kind != jsonv.Object {
		return Tool{}, nil, nil, fmt.Errorf("annotations is a %s, not an object", a.Kind)
	}
	if o := t.OutputSchema; !o.IsNull() && o.Kind != jsonv.Object {
		return Tool{}, nil, nil, fmt.Errorf("outputSchema is a %s, not an object", o.Kind)
	}
	if e.AnnotationsHash, err = hashOr(h, t.Annotations, nullDigest); err != nil {
		return Tool{}, nil, nil, fmt.Errorf("annotations: %w", err)
	}
	if e.OutputSchemaHash, err = hashOr(h, t.OutputSchema, nullDigest); err != nil {
		return Tool{}, nil, nil, fmt.Errorf("outputSchema: %w", err)
	}
	if !t.OutputSchema.IsNull() {
		out = sc.xo.Extract(t.OutputSchema)
	}
	if e.EntryDigest, err = builtToolDigest(h, &e, skel, out); err != nil {
		return Tool{}, nil, nil, fmt.Errorf("entry_digest: %w", err)
	}
	return e, skel, out, nil
}

// toolDigestFrom is the digest of a tool entry's body — the hash of
// toolObject(t, skel, out, omit) — written around the skeletons' canonical
// text (none present for JSON null), as the lock reader has them: the
// body's keys, those of them t has, in canonical order.
func toolDigestFrom(h *canon.Hasher, t *Tool, skel, out *transcoded, omit bool) (string, error) {
	h.Begin()
	h.WriteRaw("{")
	if t.HasV4 {
		h.WriteRaw(`"annotations_hash":`)
		h.WriteString(t.AnnotationsHash)
		h.WriteRaw(",")
	}
	h.WriteRaw(`"capabilities":[`)
	for i, c := range t.Capabilities {
		if i > 0 {
			h.WriteRaw(",")
		}
		h.WriteString(c)
	}
	h.WriteRaw(`],"description_hash":`)
	h.WriteString(t.DescriptionHash)
	h.WriteRaw(`,"input_schema_hash":`)
	h.WriteString(t.InputSchemaHash)
	if t.Inspection != nil {
		h.WriteRaw(`,"inspection":`)
		if err := h.WriteValue(t.Inspection, 1); err != nil {
			return "", err
		}
	}
	h.WriteRaw(`,"name":`)
	h.WriteString(t.Name)
	if t.HasV4 {
		h.WriteRaw(`,"output_schema_hash":`)
		h.WriteString(t.OutputSchemaHash)
		h.WriteRaw(`,"output_schema_skeleton":`)
		writeOrNull(h, out)
	}
	if !omit {
		h.WriteRaw(`,"schema_skeleton":`)
		writeOrNull(h, skel)
	}
	h.WriteRaw("}")
	return h.Sum(), nil
}

// writeOrNull writes a skeleton's canonical text, or null for none.
func writeOrNull(h *canon.Hasher, tc *transcoded) {
	if !tc.present {
		h.WriteRaw("null")
		return
	}
	h.WriteBytes(tc.canonical)
}

// builtToolDigest is the entry digest of a freshly built tool — the hash
// of toolObject(e, skel, out, false) — written straight into the digest:
// a built entry has the v4 commitments and no inspection block, so its
// canonical text is these keys in this order around the two skeletons.
func builtToolDigest(h *canon.Hasher, e *Tool, skel, out *skeleton.Skeleton) (string, error) {
	h.Begin()
	h.WriteRaw(`{"annotations_hash":`)
	h.WriteString(e.AnnotationsHash)
	h.WriteRaw(`,"capabilities":[`)
	for i, c := range e.Capabilities {
		if i > 0 {
			h.WriteRaw(",")
		}
		h.WriteString(c)
	}
	h.WriteRaw(`],"description_hash":`)
	h.WriteString(e.DescriptionHash)
	h.WriteRaw(`,"input_schema_hash":`)
	h.WriteString(e.InputSchemaHash)
	h.WriteRaw(`,"name":`)
	h.WriteString(e.Name)
	h.WriteRaw(`,"output_schema_hash":`)
	h.WriteString(e.OutputSchemaHash)
	h.WriteRaw(`,"output_schema_skeleton":`)
	if err := out.WriteCanonical(h, 1); err != nil {
		return "", err
	}
	h.WriteRaw(`,"schema_skeleton":`)
	if err := skel.WriteCanonical(h, 1); err != nil {
		return "", err
	}
	h.WriteRaw("}")
	return h.Sum(), nil
}

// BuildResource makes a resource entry (SPEC §7.2).
func BuildResource(r surface.Resource) (Resource, error) { return buildResource(&canon.Hasher{}, r) }

func buildResource(h *canon.Hasher, r surface.Resource) (Resource, error) {
	e := Resource{URI: r.URI}
	var err error
	if e.Name, err = optionalString(r.Name, "name"); err != nil {
		return Resource{}, err
	}
	if e.MimeType, err = optionalString(r.MimeType, "mimeType"); err != nil {
		return Resource{}, err
	}
	if e.DescriptionHash, err = hashOr(h, r.Description, emptyStringDigest); err != nil {
		return Resource{}, fmt.Errorf("description: %w", err)
	}
	e.EntryDigest = resourceDigest(h, &e)
	return e, nil
}

// BuildPrompt makes a prompt entry (SPEC §7.2).
func BuildPrompt(p surface.Prompt) (Prompt, error) { return buildPrompt(&canon.Hasher{}, p) }

func buildPrompt(h *canon.Hasher, p surface.Prompt) (Prompt, error) {
	e := Prompt{Name: p.Name}
	var err error
	if e.DescriptionHash, err = hashOr(h, p.Description, emptyStringDigest); err != nil {
		return Prompt{}, fmt.Errorf("description: %w", err)
	}
	if e.ArgumentsHash, err = hashOr(h, p.Arguments, emptyArrayDigest); err != nil {
		return Prompt{}, fmt.Errorf("arguments: %w", err)
	}
	e.EntryDigest = promptDigest(h, &e)
	return e, nil
}

func optionalString(v *jsonv.Value, what string) (*string, error) {
	if v.IsNull() {
		return nil, nil
	}
	s, ok := v.Str()
	if !ok {
		return nil, fmt.Errorf("%s is a %s, not a string", what, v.Kind)
	}
	return &s, nil
}

func strOrNull(s *string) *jsonv.Value {
	if s == nil {
		return jsonv.NewNull()
	}
	return jsonv.NewString(*s)
}

func valueOrNull(v *jsonv.Value) *jsonv.Value {
	if v == nil {
		return jsonv.NewNull()
	}
	return v
}

// ToolBody is the object a tool's entry_digest covers: every field of the
// entry except entry_digest, in the order the lock file writes them. A
// pre-skeleton (v1) entry's null skeleton is left out, as are v4 commitments
// the entry does not carry.
func ToolBody(t Tool, schemaVersion int) *jsonv.Value {
	mustBeWhole(&t)
	return toolObject(t, rawTree(t.SchemaSkeleton), rawTree(t.OutputSchemaSkeleton), omitSkeleton(t, schemaVersion))
}

// mustBeWhole stops a program that would hash or write an entry whose
// skeletons were left unread (see Lock.Load) as if they were null: a lock
// so written or hashed would be wrong, never refused.
func mustBeWhole(t *Tool) {
	if t.unloaded {
		panic(fmt.Sprintf("lock: tool entry %q used whole before Lock.Load read its skeletons", t.Name))
	}
}

// omitSkeleton reports whether t's body leaves its schema_skeleton out: a
// null skeleton at schema_version 1 (v1 entries were hashed without one).
func omitSkeleton(t Tool, schemaVersion int) bool {
	return t.SchemaSkeleton.IsNull() && schemaVersion < 2
}

// rawTree parses a skeleton back. Its text came from an accepted value, so
// it parses; were it ever not to, the skeleton would count as null, and the
// entry digest computed from it would fail to verify rather than pass.
func rawTree(r jsonv.Raw) *jsonv.Value {
	v, err := r.Value()
	if err != nil {
		return nil
	}
	return v
}

// toolObject renders a tool entry without entry_digest from its fields and
// its skeletons' trees (nil for null); omitSkeleton drops a null
// schema_skeleton.
func toolObject(t Tool, skel, out *jsonv.Value, omitSkeleton bool) *jsonv.Value {
	members := make([]jsonv.Member, 0, 10)
	members = append(members,
		jsonv.M("name", jsonv.NewString(t.Name)),
		jsonv.M("description_hash", jsonv.NewString(t.DescriptionHash)),
		jsonv.M("input_schema_hash", jsonv.NewString(t.InputSchemaHash)),
		jsonv.M("capabilities", jsonv.NewStrings(t.Capabilities)),
	)
	if t.Inspection != nil {
		members = append(members, jsonv.M("inspection", t.Inspection))
	}
	if !omitSkeleton {
		members = append(members, jsonv.M("schema_skeleton", valueOrNull(skel)))
	}
	if t.HasV4 {
		members = append(members,
			jsonv.M("annotations_hash", jsonv.NewString(t.AnnotationsHash)),
			jsonv.M("output_schema_hash", jsonv.NewString(t.OutputSchemaHash)),
			jsonv.M("output_schema_skeleton", valueOrNull(out)),
		)
	}
	return jsonv.NewObject(members...)
}

// newToolMemo memoises digest as the digest of t's body (see toolMemo); an
// entry with an inspection block is not memoised.
func newToolMemo(t Tool, omit bool, digest string) *toolMemo {
	if t.Inspection != nil {
		return nil
	}
	f := t
	f.memo = nil
	f.EntryDigest = ""
	f.Capabilities = slices.Clone(t.Capabilities)
	return &toolMemo{fields: f, omit: omit, digest: digest}
}

// toolDigest returns the digest of t's body at schemaVersion: the memoised
// one while t's body fields are unchanged, else computed.
func toolDigest(h *canon.Hasher, t Tool, schemaVersion int) (string, error) {
	omit := omitSkeleton(t, schemaVersion)
	if m := t.memo; m != nil && m.omit == omit && sameBody(&m.fields, &t) {
		return m.digest, nil
	}
	return h.Hash(ToolBody(t, schemaVersion))
}

// sameBody reports whether two tool entries have the same body fields;
// entries with an inspection block never compare the same.
func sameBody(a, b *Tool) bool {
	return a.Name == b.Name &&
		a.DescriptionHash == b.DescriptionHash &&
		a.InputSchemaHash == b.InputSchemaHash &&
		slices.Equal(a.Capabilities, b.Capabilities) &&
		a.Inspection == nil && b.Inspection == nil &&
		a.SchemaSkeleton == b.SchemaSkeleton &&
		a.HasV4 == b.HasV4 &&
		a.AnnotationsHash == b.AnnotationsHash &&
		a.OutputSchemaHash == b.OutputSchemaHash &&
		a.OutputSchemaSkeleton == b.OutputSchemaSkeleton &&
		a.unloaded == b.unloaded
}

// resourceDigest is the entry digest of r — the hash of ResourceBody(r) —
// written straight into the digest: the body's four keys in canonical
// order around its strings (TestEntryDigestsMatchTree holds it to hashing
// the tree).
func resourceDigest(h *canon.Hasher, r *Resource) string {
	h.Begin()
	h.WriteRaw(`{"description_hash":`)
	h.WriteString(r.DescriptionHash)
	h.WriteRaw(`,"mime_type":`)
	writeStrOrNull(h, r.MimeType)
	h.WriteRaw(`,"name":`)
	writeStrOrNull(h, r.Name)
	h.WriteRaw(`,"uri":`)
	h.WriteString(r.URI)
	h.WriteRaw("}")
	return h.Sum()
}

// promptDigest is the entry digest of p — the hash of PromptBody(p) —
// written straight into the digest.
func promptDigest(h *canon.Hasher, p *Prompt) string {
	h.Begin()
	h.WriteRaw(`{"arguments_hash":`)
	h.WriteString(p.ArgumentsHash)
	h.WriteRaw(`,"description_hash":`)
	h.WriteString(p.DescriptionHash)
	h.WriteRaw(`,"name":`)
	h.WriteString(p.Name)
	h.WriteRaw("}")
	return h.Sum()
}

// writeStrOrNull writes s as a JSON string, or null for none.
func writeStrOrNull(h *canon.Hasher, s *string) {
	if s == nil {
		h.WriteRaw("null")
		return
	}
	h.WriteString(*s)
}

// ResourceBody is the object a resource's entry_digest covers.
func ResourceBody(r Resource) *jsonv.Value {
	return jsonv.NewObject(
		jsonv.M("uri", jsonv.NewString(r.URI)),
		jsonv.M("name", strOrNull(r.Name)),
		jsonv.M("description_hash", jsonv.NewString(r.DescriptionHash)),
		jsonv.M("mime_type", strOrNull(r.MimeType)),
	)
}

// PromptBody is the object a prompt's entry_digest covers.
func PromptBody(p Prompt) *jsonv.Value {
	return jsonv.NewObject(
		jsonv.M("name", jsonv.NewString(p.Name)),
		jsonv.M("description_hash", jsonv.NewString(p.DescriptionHash)),
		jsonv.M("arguments_hash", jsonv.NewString(p.ArgumentsHash)),
	)
}

// OverallDigest computes SPEC §8.1's digest from the lock's schema_version,
// command_digest and the entry digests in entry-array order (the entries are
// sorted; the digest strings themselves are not re-sorted).
func OverallDigest(l *Lock) (string, error) { return overallDigest(&canon.Hasher{}, l) }

func overallDigest(h *canon.Hasher, l *Lock) (string, error) {
	// The canonical text of {"schema_version", "server": {"command_digest"},
	// "tools", "resources", "prompts"} (the lists of entry digests in the
	// lock's order), written straight into the digest with its keys in
	// canonical order; TestOverallDigestMatchesTree holds it to hashing
	// the tree.
	h.Begin()
	h.WriteRaw(`{"prompts":[`)
	for i := range l.Prompts {
		writeListed(h, i, l.Prompts[i].EntryDigest)
	}
	h.WriteRaw(`],"resources":[`)
	for i := range l.Resources {
		writeListed(h, i, l.Resources[i].EntryDigest)
	}
	h.WriteRaw(`],"schema_version":`)
	h.WriteRaw(strconv.Itoa(l.SchemaVersion))
	h.WriteRaw(`,"server":{"command_digest":`)
	h.WriteString(l.Server.CommandDigest)
	h.WriteRaw(`},"tools":[`)
	for i := range l.Tools {
		writeListed(h, i, l.Tools[i].EntryDigest)
	}
	h.WriteRaw(`]}`)
	return h.Sum(), nil
}

// writeListed writes the i-th string of a list.
func writeListed(h *canon.Hasher, i int, s string) {
	if i > 0 {
		h.WriteRaw(",")
	}
	h.WriteString(s)
}

// verifyServer recomputes command_digest the way BuildServer derives it
// (SPEC §6.1, reference-behaviour §1.3): hash({"url"}) when url is a
// non-empty string, else hash({"command", "args"}). A URL server's lock
// carries command "" and args []; anything else there would be shown to a
// reviewer as the launch without being covered by the digest, so it is
// refused too.
func verifyServer(h *canon.Hasher, s Server) error {
	launch := surface.Server{Command: s.Command, Args: s.Args}
	what := "server.command and server.args"
	if s.URL != nil && *s.URL != "" {
		if s.Command != "" || len(s.Args) > 0 {
			return errors.New("$.server: a URL server must have an empty command and args (the digest covers only the url)")
		}
		launch = surface.Server{URL: *s.URL}
		what = "server.url"
	}
	want, err := buildServer(h, launch)
	if err != nil {
		return fmt.Errorf("$.server: %w", err)
	}
	if want.CommandDigest != s.CommandDigest {
		return fmt.Errorf("$.server.command_digest does not match the stored launch (%s)", what)
	}
	return nil
}

// Verify is the self-consistency check: it recomputes command_digest from
// the stored launch (server.command and server.args, or server.url), every
// entry digest and the overall digest from the stored entries, at the
// lock's own schema_version, and reports the first disagreement.
func Verify(l *Lock) error {
	h := &canon.Hasher{}
	if err := verifyServer(h, l.Server); err != nil {
		return err
	}
	for i, t := range l.Tools {
		d, err := toolDigest(h, t, l.SchemaVersion)
		if err != nil {
			return fmt.Errorf("$.tools[%d]: %w", i, err)
		}
		if d != t.EntryDigest {
			return fmt.Errorf("$.tools[%d].entry_digest does not match the entry (tool %q)", i, t.Name)
		}
	}
	for i := range l.Resources {
		r := &l.Resources[i]
		if d := resourceDigest(h, r); d != r.EntryDigest {
			return fmt.Errorf("$.resources[%d].entry_digest does not match the entry (resource %q)", i, r.URI)
		}
	}
	for i := range l.Prompts {
		p := &l.Prompts[i]
		if d := promptDigest(h, p); d != p.EntryDigest {
			return fmt.Errorf("$.prompts[%d].entry_digest does not match the entry (prompt %q)", i, p.Name)
		}
	}
	d, err := overallDigest(h, l)
	if err != nil {
		return err
	}
	if d != l.OverallDigest {
		return fmt.Errorf("$.overall_digest does not match the entries (recomputed %s)", d)
	}
	return nil
}

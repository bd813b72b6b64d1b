package lock

import (
	"errors"
	"fmt"
	"sort"

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
	l := &Lock{SchemaVersion: CurrentSchemaVersion, Findings: []Finding{}}
	// One hasher for the whole build reuses its buffers across entries.
	h := &canon.Hasher{}
	srv, err := buildServer(h, s.Server)
	if err != nil {
		return nil, err
	}
	l.Server = srv
	l.Tools = make([]Tool, 0, len(s.Tools))
	for _, t := range s.Tools {
		e, err := buildTool(h, t)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		l.Tools = append(l.Tools, e)
	}
	l.Resources = make([]Resource, 0, len(s.Resources))
	for _, r := range s.Resources {
		e, err := buildResource(h, r)
		if err != nil {
			return nil, fmt.Errorf("resource %q: %w", r.URI, err)
		}
		l.Resources = append(l.Resources, e)
	}
	l.Prompts = make([]Prompt, 0, len(s.Prompts))
	for _, p := range s.Prompts {
		e, err := buildPrompt(h, p)
		if err != nil {
			return nil, fmt.Errorf("prompt %q: %w", p.Name, err)
		}
		l.Prompts = append(l.Prompts, e)
	}
	// Entries sort by code point (byte order of UTF-8), not UTF-16 order:
	// vector digest/entry-sorting pins it.
	sort.SliceStable(l.Tools, func(i, j int) bool { return l.Tools[i].Name < l.Tools[j].Name })
	sort.SliceStable(l.Resources, func(i, j int) bool { return l.Resources[i].URI < l.Resources[j].URI })
	sort.SliceStable(l.Prompts, func(i, j int) bool { return l.Prompts[i].Name < l.Prompts[j].Name })
	d, err := overallDigest(h, l)
	if err != nil {
		return nil, err
	}
	l.OverallDigest = d
	return l, nil
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
func hashOr(h *canon.Hasher, v, fallback *jsonv.Value) (string, error) {
	if v.IsNull() {
		v = fallback
	}
	return h.Hash(v)
}

// BuildTool makes a v4 tool entry (SPEC §5.1, §7.1, reference-behaviour §1.2).
func BuildTool(t surface.Tool) (Tool, error) { return buildTool(&canon.Hasher{}, t) }

func buildTool(h *canon.Hasher, t surface.Tool) (Tool, error) {
	e := Tool{Name: t.Name, HasV4: true}
	var err error
	if e.DescriptionHash, err = hashOr(h, t.Description, jsonv.NewString("")); err != nil {
		return Tool{}, fmt.Errorf("description: %w", err)
	}
	// A present inputSchema that is not an object hashes as {} (vector
	// digest/malformed-input-schema) and contributes no capabilities.
	var obj *jsonv.Value
	if t.InputSchema != nil && t.InputSchema.Kind == jsonv.Object {
		obj = t.InputSchema
	}
	if e.InputSchemaHash, err = hashOr(h, obj, jsonv.NewObject()); err != nil {
		return Tool{}, fmt.Errorf("inputSchema: %w", err)
	}
	e.Capabilities = caps.Derive(t.Name, obj)
	if e.Capabilities == nil {
		e.Capabilities = []string{}
	}
	// The skeleton walks the raw value, so a non-object schema still gives
	// {"props": {}}.
	in := t.InputSchema
	if in == nil {
		in = jsonv.NewNull()
	}
	e.SchemaSkeleton = skeleton.Extract(in).Value()
	if a := t.Annotations; !a.IsNull() && a.Kind != jsonv.Object {
		return Tool{}, fmt.Errorf("annotations is a %s, not an object", a.Kind)
	}
	if o := t.OutputSchema; !o.IsNull() && o.Kind != jsonv.Object {
		return Tool{}, fmt.Errorf("outputSchema is a %s, not an object", o.Kind)
	}
	if e.AnnotationsHash, err = hashOr(h, t.Annotations, jsonv.NewNull()); err != nil {
		return Tool{}, fmt.Errorf("annotations: %w", err)
	}
	if e.OutputSchemaHash, err = hashOr(h, t.OutputSchema, jsonv.NewNull()); err != nil {
		return Tool{}, fmt.Errorf("outputSchema: %w", err)
	}
	if !t.OutputSchema.IsNull() {
		e.OutputSchemaSkeleton = skeleton.Extract(t.OutputSchema).Value()
	}
	if e.EntryDigest, err = h.Hash(ToolBody(e, CurrentSchemaVersion)); err != nil {
		return Tool{}, fmt.Errorf("entry_digest: %w", err)
	}
	return e, nil
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
	if e.DescriptionHash, err = hashOr(h, r.Description, jsonv.NewString("")); err != nil {
		return Resource{}, fmt.Errorf("description: %w", err)
	}
	if e.EntryDigest, err = h.Hash(ResourceBody(e)); err != nil {
		return Resource{}, fmt.Errorf("entry_digest: %w", err)
	}
	return e, nil
}

// BuildPrompt makes a prompt entry (SPEC §7.2).
func BuildPrompt(p surface.Prompt) (Prompt, error) { return buildPrompt(&canon.Hasher{}, p) }

func buildPrompt(h *canon.Hasher, p surface.Prompt) (Prompt, error) {
	e := Prompt{Name: p.Name}
	var err error
	if e.DescriptionHash, err = hashOr(h, p.Description, jsonv.NewString("")); err != nil {
		return Prompt{}, fmt.Errorf("description: %w", err)
	}
	if e.ArgumentsHash, err = hashOr(h, p.Arguments, jsonv.NewArray()); err != nil {
		return Prompt{}, fmt.Errorf("arguments: %w", err)
	}
	if e.EntryDigest, err = h.Hash(PromptBody(e)); err != nil {
		return Prompt{}, fmt.Errorf("entry_digest: %w", err)
	}
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
	return toolObject(t, t.SchemaSkeleton == nil && schemaVersion < 2)
}

// toolObject renders a tool entry without entry_digest; omitSkeleton drops
// a null schema_skeleton (v1 entries were hashed without one).
func toolObject(t Tool, omitSkeleton bool) *jsonv.Value {
	body := jsonv.NewObject(
		jsonv.M("name", jsonv.NewString(t.Name)),
		jsonv.M("description_hash", jsonv.NewString(t.DescriptionHash)),
		jsonv.M("input_schema_hash", jsonv.NewString(t.InputSchemaHash)),
		jsonv.M("capabilities", jsonv.NewStrings(t.Capabilities)),
	)
	if t.Inspection != nil {
		body.Members = append(body.Members, jsonv.M("inspection", t.Inspection))
	}
	if !omitSkeleton {
		body.Members = append(body.Members, jsonv.M("schema_skeleton", valueOrNull(t.SchemaSkeleton)))
	}
	if t.HasV4 {
		body.Members = append(body.Members,
			jsonv.M("annotations_hash", jsonv.NewString(t.AnnotationsHash)),
			jsonv.M("output_schema_hash", jsonv.NewString(t.OutputSchemaHash)),
			jsonv.M("output_schema_skeleton", valueOrNull(t.OutputSchemaSkeleton)),
		)
	}
	return body
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
	tools := make([]*jsonv.Value, len(l.Tools))
	for i, t := range l.Tools {
		tools[i] = jsonv.NewString(t.EntryDigest)
	}
	res := make([]*jsonv.Value, len(l.Resources))
	for i, r := range l.Resources {
		res[i] = jsonv.NewString(r.EntryDigest)
	}
	prompts := make([]*jsonv.Value, len(l.Prompts))
	for i, p := range l.Prompts {
		prompts[i] = jsonv.NewString(p.EntryDigest)
	}
	body := jsonv.NewObject(
		jsonv.M("schema_version", jsonv.NewInt(int64(l.SchemaVersion))),
		jsonv.M("server", jsonv.NewObject(jsonv.M("command_digest", jsonv.NewString(l.Server.CommandDigest)))),
		jsonv.M("tools", jsonv.NewArray(tools...)),
		jsonv.M("resources", jsonv.NewArray(res...)),
		jsonv.M("prompts", jsonv.NewArray(prompts...)),
	)
	d, err := h.Hash(body)
	if err != nil {
		return "", fmt.Errorf("overall_digest: %w", err)
	}
	return d, nil
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
		d, err := h.Hash(ToolBody(t, l.SchemaVersion))
		if err != nil {
			return fmt.Errorf("$.tools[%d]: %w", i, err)
		}
		if d != t.EntryDigest {
			return fmt.Errorf("$.tools[%d].entry_digest does not match the entry (tool %q)", i, t.Name)
		}
	}
	for i, r := range l.Resources {
		d, err := h.Hash(ResourceBody(r))
		if err != nil {
			return fmt.Errorf("$.resources[%d]: %w", i, err)
		}
		if d != r.EntryDigest {
			return fmt.Errorf("$.resources[%d].entry_digest does not match the entry (resource %q)", i, r.URI)
		}
	}
	for i, p := range l.Prompts {
		d, err := h.Hash(PromptBody(p))
		if err != nil {
			return fmt.Errorf("$.prompts[%d]: %w", i, err)
		}
		if d != p.EntryDigest {
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

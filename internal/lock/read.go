package lock

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
)

// MaxNoteLength bounds an attestation note, in code points, as the reference does.
const MaxNoteLength = 1000

// MaxFileBytes is the largest lock file warden reads: 64 MiB. A lock stores
// hashes and schema skeletons, about 10 KB for a tool with a 10-30 property
// schema, so a real server's lock (the largest list a few hundred items)
// is a few megabytes and 64 MiB holds some 6,000 such tools. A bigger file
// is refused before it is read: the lock comes from the repository, and a
// pull request must not be able to make warden read without bound.
const MaxFileBytes = 64 << 20

// ReadFile reads and strictly validates the lock at path (read as ReadBytes
// does).
func ReadFile(path string) (*Lock, error) {
	data, err := ReadBytes(path)
	if err != nil {
		return nil, err
	}
	l, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read lock %s: %w", path, err)
	}
	return l, nil
}

// ReadBytes returns the text of the lock file at path. Only a regular file
// of at most MaxFileBytes is read: a symbolic link is followed, but what it
// leads to must be a regular file too, so a FIFO (which would block), a
// device such as /dev/zero (endless), a directory or a socket is refused
// without being read. Errors name the path and fit on one line.
func ReadBytes(path string) ([]byte, error) {
	return readRegular(path, MaxFileBytes)
}

// readRegular implements ReadBytes with a size limit of max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	// Stat first, so that a FIFO or a device is never opened at all
	// (opening a FIFO blocks until a writer appears; opening some devices
	// has side effects).
	before, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read lock %s: %w", path, err)
	}
	if err := checkRegular(path, before, max); err != nil {
		return nil, err
	}
	// The file may have been swapped since: open without blocking and check
	// again that the open file is the regular file just inspected.
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("read lock %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read lock %s: %w", path, err)
	}
	if err := checkRegular(path, info, max); err != nil {
		return nil, err
	}
	if !os.SameFile(before, info) {
		return nil, fmt.Errorf("read lock %s: the file was replaced while it was being opened", path)
	}
	// The size can still grow while reading; the limit holds regardless.
	var buf bytes.Buffer
	buf.Grow(int(info.Size()) + 1)
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, fmt.Errorf("read lock %s: %w", path, err)
	}
	if int64(buf.Len()) > max {
		return nil, tooLarge(path, int64(buf.Len()), max)
	}
	return buf.Bytes(), nil
}

// checkRegular refuses anything but a regular file of at most max bytes.
func checkRegular(path string, info fs.FileInfo, max int64) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("read lock %s: not a regular file (%s); a lock must be a plain file", path, fileType(info.Mode()))
	}
	if info.Size() > max {
		return tooLarge(path, info.Size(), max)
	}
	return nil
}

// tooLarge refuses a file of size bytes (or more) against the limit max.
func tooLarge(path string, size, max int64) error {
	return fmt.Errorf("read lock %s: the file is larger than %s, the most a lock may be (%d bytes or more)", path, limitText(max), size)
}

// limitText renders a size limit: in MiB when it is a whole number of them.
func limitText(max int64) string {
	if max >= 1<<20 && max%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", max>>20)
	}
	return fmt.Sprintf("%d bytes", max)
}

// fileType names the type of a non-regular file for an error message.
func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "type " + m.Type().String()
}

// Parse parses and validates a lock document. JSON-level refusals (BOM,
// invalid UTF-8, duplicate keys, NaN/Infinity, nesting past 512) come from
// jsonv.Parse; structural ones name the JSON path of the offending value.
func Parse(data []byte) (*Lock, error) {
	v, err := jsonv.Parse(data, jsonv.Options{MaxDepth: canon.MaxDepth})
	if err != nil {
		return nil, fmt.Errorf("not a valid lock document: %w", err)
	}
	return FromValue(v)
}

// fieldError is a validation refusal at a JSON path.
type fieldError struct {
	path jsonv.Path
	msg  string
}

func (e *fieldError) Error() string { return e.path.String() + ": " + e.msg }

func errAt(p jsonv.Path, format string, args ...any) error {
	return &fieldError{path: p, msg: fmt.Sprintf(format, args...)}
}

// reader validates one object and remembers the first error, so that the
// field-by-field code below reads straight through.
type reader struct {
	err error
}

func (r *reader) fail(p jsonv.Path, format string, args ...any) {
	if r.err == nil {
		r.err = errAt(p, format, args...)
	}
}

func (r *reader) object(v *jsonv.Value, p jsonv.Path) bool {
	if v == nil || v.Kind != jsonv.Object {
		r.fail(p, "must be an object, found %s", kindOf(v))
		return false
	}
	return true
}

func kindOf(v *jsonv.Value) string {
	if v == nil {
		return "nothing"
	}
	return v.Kind.String()
}

// required returns obj[key], failing when absent.
func (r *reader) required(obj *jsonv.Value, p jsonv.Path, key string) *jsonv.Value {
	if !obj.Has(key) {
		r.fail(p, "missing required key %q", key)
		return nil
	}
	return obj.Get(key)
}

func (r *reader) str(obj *jsonv.Value, p jsonv.Path, key string) string {
	v := r.required(obj, p, key)
	if v == nil {
		return ""
	}
	s, ok := v.Str()
	if !ok {
		r.fail(p.Key(key), "must be a string, found %s", v.Kind)
	}
	return s
}

// optStr reads a key that may be absent or null.
func (r *reader) optStr(obj *jsonv.Value, p jsonv.Path, key string) *string {
	v := obj.Get(key)
	if v.IsNull() {
		return nil
	}
	s, ok := v.Str()
	if !ok {
		r.fail(p.Key(key), "must be a string or null, found %s", v.Kind)
		return nil
	}
	return &s
}

// nullableStr reads a key that must be present but may be null.
func (r *reader) nullableStr(obj *jsonv.Value, p jsonv.Path, key string) *string {
	if !obj.Has(key) {
		r.fail(p, "missing required key %q", key)
		return nil
	}
	return r.optStr(obj, p, key)
}

func (r *reader) strList(v *jsonv.Value, p jsonv.Path) []string {
	if v == nil || v.Kind != jsonv.Array {
		r.fail(p, "must be an array of strings, found %s", kindOf(v))
		return nil
	}
	out := make([]string, 0, len(v.Items))
	for i, it := range v.Items {
		s, ok := it.Str()
		if !ok {
			r.fail(p.Index(i), "must be a string, found %s", it.Kind)
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (r *reader) array(obj *jsonv.Value, p jsonv.Path, key string) []*jsonv.Value {
	v := r.required(obj, p, key)
	if v == nil {
		return nil
	}
	if v.Kind != jsonv.Array {
		r.fail(p.Key(key), "must be an array, found %s", v.Kind)
		return nil
	}
	return v.Items
}

// integer reads a JSON integer that fits an int. Strings, floats and booleans
// are refused even where the reference's lax validation would coerce them.
func (r *reader) integer(v *jsonv.Value, p jsonv.Path) (int, bool) {
	if v == nil || v.Kind != jsonv.Int {
		r.fail(p, "must be an integer, found %s", kindOf(v))
		return 0, false
	}
	var n int
	if _, err := fmt.Sscan(v.Text, &n); err != nil || len(v.Text) > 12 {
		r.fail(p, "integer %s out of range", v.Text)
		return 0, false
	}
	return n, true
}

// optObject reads a key that may be absent or null, or else an object.
func (r *reader) optObject(obj *jsonv.Value, p jsonv.Path, key string) *jsonv.Value {
	v := obj.Get(key)
	if v.IsNull() {
		return nil
	}
	if v.Kind != jsonv.Object {
		r.fail(p.Key(key), "must be an object or null, found %s", v.Kind)
		return nil
	}
	return v
}

// FromValue validates a parsed lock document: every SPEC §3 key present and
// of the right type, schema_version an integer 1..4, the v4 tool commitments
// present at v4, the depth bound. Unknown keys are ignored, except in pin
// where they are kept for rewriting.
func FromValue(doc *jsonv.Value) (*Lock, error) {
	if err := canon.CheckDepth(doc); err != nil {
		return nil, fmt.Errorf("not a valid lock document: %w", err)
	}
	r := &reader{}
	root := jsonv.Path{}
	if !r.object(doc, root) {
		return nil, r.err
	}
	l := &Lock{}
	for _, key := range []string{"schema_version", "warden_version", "server", "tools", "resources", "prompts", "findings", "overall_digest", "pin"} {
		r.required(doc, root, key)
	}
	if r.err != nil {
		return nil, r.err
	}
	sv, ok := r.integer(doc.Get("schema_version"), root.Key("schema_version"))
	if ok && (sv < 1 || sv > CurrentSchemaVersion) {
		if sv > CurrentSchemaVersion {
			r.fail(root.Key("schema_version"), "schema_version %d is newer than this warden implements (%d); upgrade warden", sv, CurrentSchemaVersion)
		} else {
			r.fail(root.Key("schema_version"), "schema_version %d is not a format level", sv)
		}
	}
	l.SchemaVersion = sv
	l.WardenVersion = r.str(doc, root, "warden_version")
	l.Server = r.server(doc.Get("server"), root.Key("server"))
	for i, t := range r.array(doc, root, "tools") {
		l.Tools = append(l.Tools, r.tool(t, root.Key("tools").Index(i), sv))
	}
	for i, x := range r.array(doc, root, "resources") {
		l.Resources = append(l.Resources, r.resource(x, root.Key("resources").Index(i)))
	}
	for i, x := range r.array(doc, root, "prompts") {
		l.Prompts = append(l.Prompts, r.prompt(x, root.Key("prompts").Index(i)))
	}
	l.Findings = []Finding{}
	for i, x := range r.array(doc, root, "findings") {
		l.Findings = append(l.Findings, r.finding(x, root.Key("findings").Index(i)))
	}
	l.OverallDigest = r.str(doc, root, "overall_digest")
	l.Pin = r.pin(doc.Get("pin"), root.Key("pin"))
	if r.err != nil {
		return nil, r.err
	}
	if l.Tools == nil {
		l.Tools = []Tool{}
	}
	if l.Resources == nil {
		l.Resources = []Resource{}
	}
	if l.Prompts == nil {
		l.Prompts = []Prompt{}
	}
	return l, nil
}

func (r *reader) server(v *jsonv.Value, p jsonv.Path) Server {
	var s Server
	if !r.object(v, p) {
		return s
	}
	s.CommandDigest = r.str(v, p, "command_digest")
	if c := v.Get("command"); !c.IsNull() {
		s.Command, _ = c.Str()
		if c.Kind != jsonv.String {
			r.fail(p.Key("command"), "must be a string, found %s", c.Kind)
		}
	}
	s.Args = []string{}
	if a := v.Get("args"); !a.IsNull() {
		s.Args = r.strList(a, p.Key("args"))
	}
	s.URL = r.optStr(v, p, "url")
	return s
}

func (r *reader) tool(v *jsonv.Value, p jsonv.Path, schemaVersion int) Tool {
	var t Tool
	if !r.object(v, p) {
		return t
	}
	t.Name = r.str(v, p, "name")
	t.DescriptionHash = r.str(v, p, "description_hash")
	t.InputSchemaHash = r.str(v, p, "input_schema_hash")
	if c := r.required(v, p, "capabilities"); c != nil {
		t.Capabilities = r.strList(c, p.Key("capabilities"))
	}
	t.EntryDigest = r.str(v, p, "entry_digest")
	t.Inspection = r.optObject(v, p, "inspection")
	t.SchemaSkeleton = r.optObject(v, p, "schema_skeleton")
	hasAny := v.Has("annotations_hash") || v.Has("output_schema_hash") || v.Has("output_schema_skeleton")
	if schemaVersion >= 4 || (hasAny && !v.Get("annotations_hash").IsNull()) {
		// At v4 the commitments are required (SPEC §7.1); below it they are
		// optional, but a half-present set is refused rather than guessed at.
		for _, key := range []string{"annotations_hash", "output_schema_hash"} {
			if x := v.Get(key); x.IsNull() {
				r.fail(p, "missing required v4 commitment %q", key)
			}
		}
		if !v.Has("output_schema_skeleton") {
			r.fail(p, "missing required v4 commitment %q", "output_schema_skeleton")
		}
		t.HasV4 = true
		t.AnnotationsHash = r.str(v, p, "annotations_hash")
		t.OutputSchemaHash = r.str(v, p, "output_schema_hash")
		t.OutputSchemaSkeleton = r.optObject(v, p, "output_schema_skeleton")
	}
	return t
}

func (r *reader) resource(v *jsonv.Value, p jsonv.Path) Resource {
	var x Resource
	if !r.object(v, p) {
		return x
	}
	x.URI = r.str(v, p, "uri")
	x.Name = r.nullableStr(v, p, "name")
	x.DescriptionHash = r.str(v, p, "description_hash")
	x.MimeType = r.nullableStr(v, p, "mime_type")
	x.EntryDigest = r.str(v, p, "entry_digest")
	return x
}

func (r *reader) prompt(v *jsonv.Value, p jsonv.Path) Prompt {
	var x Prompt
	if !r.object(v, p) {
		return x
	}
	x.Name = r.str(v, p, "name")
	x.DescriptionHash = r.str(v, p, "description_hash")
	x.ArgumentsHash = r.str(v, p, "arguments_hash")
	x.EntryDigest = r.str(v, p, "entry_digest")
	return x
}

func (r *reader) finding(v *jsonv.Value, p jsonv.Path) Finding {
	var f Finding
	if !r.object(v, p) {
		return f
	}
	f.RuleID = r.str(v, p, "rule_id")
	f.Severity = r.str(v, p, "severity")
	f.Target = r.str(v, p, "target")
	f.Message = r.str(v, p, "message")
	f.Snippet = r.str(v, p, "snippet")
	return f
}

// pinKeys are the pin members warden knows, in the order it writes them.
var pinKeys = []string{"created_at", "warden_version", "mcp_protocol_version", "approved", "approver", "approved_at", "approved_digest", "provenance_version", "pinner", "attestations", "rotated_at", "rotation_count"}

func (r *reader) pin(v *jsonv.Value, p jsonv.Path) Pin {
	var x Pin
	if !r.object(v, p) {
		return x
	}
	x.CreatedAt = r.str(v, p, "created_at")
	x.WardenVersion = r.str(v, p, "warden_version")
	x.MCPProtocolVersion = r.str(v, p, "mcp_protocol_version")
	if a := v.Get("approved"); !a.IsNull() {
		if a.Kind != jsonv.Bool {
			r.fail(p.Key("approved"), "must be a boolean, found %s", a.Kind)
		}
		x.Approved = a.Bool
	}
	x.Approver = r.optStr(v, p, "approver")
	x.ApprovedAt = r.optStr(v, p, "approved_at")
	x.ApprovedDigest = r.optStr(v, p, "approved_digest")
	if x.HasProvenanceVersion = v.Has("provenance_version"); x.HasProvenanceVersion {
		if pv := v.Get("provenance_version"); !pv.IsNull() {
			if n, ok := r.integer(pv, p.Key("provenance_version")); ok {
				x.ProvenanceVersion = &n
			}
		}
	}
	if x.HasPinner = v.Has("pinner"); x.HasPinner {
		x.Pinner = r.optObject(v, p, "pinner")
	}
	if x.HasAttestations = v.Has("attestations"); x.HasAttestations {
		if a := v.Get("attestations"); !a.IsNull() {
			if a.Kind != jsonv.Array {
				r.fail(p.Key("attestations"), "must be an array, found %s", a.Kind)
			} else {
				x.Attestations = []*jsonv.Value{}
				for i, at := range a.Items {
					r.attestation(at, p.Key("attestations").Index(i))
					x.Attestations = append(x.Attestations, at)
				}
			}
		}
	}
	if x.HasRotatedAt = v.Has("rotated_at"); x.HasRotatedAt {
		x.RotatedAt = r.optStr(v, p, "rotated_at")
	}
	if x.HasRotationCount = v.Has("rotation_count"); x.HasRotationCount {
		if rc := v.Get("rotation_count"); !rc.IsNull() {
			if n, ok := r.integer(rc, p.Key("rotation_count")); ok {
				x.RotationCount = &n
			}
		}
	}
	for _, m := range v.Members {
		if !isPinKey(m.Key) {
			x.Extra = append(x.Extra, m)
		}
	}
	return x
}

func isPinKey(k string) bool {
	for _, pk := range pinKeys {
		if pk == k {
			return true
		}
	}
	return false
}

func (r *reader) attestation(v *jsonv.Value, p jsonv.Path) {
	if !r.object(v, p) {
		return
	}
	r.str(v, p, "actor")
	r.str(v, p, "created_at")
	r.str(v, p, "bound_digest")
	if n := r.optStr(v, p, "note"); n != nil && len([]rune(*n)) > MaxNoteLength {
		r.fail(p.Key("note"), "longer than %d characters", MaxNoteLength)
	}
}

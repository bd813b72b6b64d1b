package lock

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// ToValue renders l as the JSON document warden writes, with the reference's
// key order (reference-behaviour §5.2). Marshal and WriteFile write the
// same text without building this tree.
func ToValue(l *Lock) *jsonv.Value {
	tools := make([]*jsonv.Value, len(l.Tools))
	for i, t := range l.Tools {
		tools[i] = ToolValue(t)
	}
	res := make([]*jsonv.Value, len(l.Resources))
	for i, r := range l.Resources {
		res[i] = ResourceValue(r)
	}
	prompts := make([]*jsonv.Value, len(l.Prompts))
	for i, p := range l.Prompts {
		prompts[i] = PromptValue(p)
	}
	findings := make([]*jsonv.Value, len(l.Findings))
	for i, f := range l.Findings {
		findings[i] = FindingValue(f)
	}
	return jsonv.NewObject(
		jsonv.M("schema_version", jsonv.NewInt(int64(l.SchemaVersion))),
		jsonv.M("warden_version", jsonv.NewString(l.WardenVersion)),
		jsonv.M("server", ServerValue(l.Server)),
		jsonv.M("tools", jsonv.NewArray(tools...)),
		jsonv.M("resources", jsonv.NewArray(res...)),
		jsonv.M("prompts", jsonv.NewArray(prompts...)),
		jsonv.M("findings", jsonv.NewArray(findings...)),
		jsonv.M("overall_digest", jsonv.NewString(l.OverallDigest)),
		jsonv.M("pin", PinValue(l.Pin)),
	)
}

// ServerValue renders the server block as written in the lock.
func ServerValue(s Server) *jsonv.Value {
	return jsonv.NewObject(
		jsonv.M("command", jsonv.NewString(s.Command)),
		jsonv.M("args", jsonv.NewStrings(s.Args)),
		jsonv.M("url", strOrNull(s.URL)),
		jsonv.M("command_digest", jsonv.NewString(s.CommandDigest)),
	)
}

// ToolValue renders one tool entry as written in the lock: a null skeleton
// is written as null even on v1 entries, as the reference rewrites them.
func ToolValue(t Tool) *jsonv.Value {
	mustBeWhole(&t)
	v := toolObject(t, rawTree(t.SchemaSkeleton), rawTree(t.OutputSchemaSkeleton), false)
	v.Members = append(v.Members, jsonv.M("entry_digest", jsonv.NewString(t.EntryDigest)))
	return v
}

// ResourceValue renders one resource entry as written in the lock.
func ResourceValue(r Resource) *jsonv.Value {
	v := ResourceBody(r)
	v.Members = append(v.Members, jsonv.M("entry_digest", jsonv.NewString(r.EntryDigest)))
	return v
}

// PromptValue renders one prompt entry as written in the lock.
func PromptValue(p Prompt) *jsonv.Value {
	v := PromptBody(p)
	v.Members = append(v.Members, jsonv.M("entry_digest", jsonv.NewString(p.EntryDigest)))
	return v
}

// FindingValue renders one finding as written in the lock.
func FindingValue(f Finding) *jsonv.Value {
	return jsonv.NewObject(
		jsonv.M("rule_id", jsonv.NewString(f.RuleID)),
		jsonv.M("severity", jsonv.NewString(f.Severity)),
		jsonv.M("target", jsonv.NewString(f.Target)),
		jsonv.M("message", jsonv.NewString(f.Message)),
		jsonv.M("snippet", jsonv.NewString(f.Snippet)),
	)
}

func intOrNull(n *int) *jsonv.Value {
	if n == nil {
		return jsonv.NewNull()
	}
	return jsonv.NewInt(int64(*n))
}

// PinValue renders pin: the known keys in the reference's order (optional
// ones only when the document had them), then unknown keys as found.
func PinValue(p Pin) *jsonv.Value {
	v := jsonv.NewObject(
		jsonv.M("created_at", jsonv.NewString(p.CreatedAt)),
		jsonv.M("warden_version", jsonv.NewString(p.WardenVersion)),
		jsonv.M("mcp_protocol_version", jsonv.NewString(p.MCPProtocolVersion)),
		jsonv.M("approved", jsonv.NewBool(p.Approved)),
		jsonv.M("approver", strOrNull(p.Approver)),
		jsonv.M("approved_at", strOrNull(p.ApprovedAt)),
		jsonv.M("approved_digest", strOrNull(p.ApprovedDigest)),
	)
	if p.HasProvenanceVersion {
		v.Members = append(v.Members, jsonv.M("provenance_version", intOrNull(p.ProvenanceVersion)))
	}
	if p.HasPinner {
		v.Members = append(v.Members, jsonv.M("pinner", valueOrNull(p.Pinner)))
	}
	if p.HasAttestations {
		if p.Attestations == nil {
			v.Members = append(v.Members, jsonv.M("attestations", jsonv.NewNull()))
		} else {
			v.Members = append(v.Members, jsonv.M("attestations", jsonv.NewArray(p.Attestations...)))
		}
	}
	if p.HasRotatedAt {
		v.Members = append(v.Members, jsonv.M("rotated_at", strOrNull(p.RotatedAt)))
	}
	if p.HasRotationCount {
		v.Members = append(v.Members, jsonv.M("rotation_count", intOrNull(p.RotationCount)))
	}
	if len(p.AcceptedListErrors) > 0 {
		v.Members = append(v.Members, jsonv.M(acceptedKey, acceptedValue(p.AcceptedListErrors)))
	}
	v.Members = append(v.Members, p.Extra...)
	return v
}

// acceptedValue renders pin.accepted_list_errors.
func acceptedValue(list []AcceptedListError) *jsonv.Value {
	items := make([]*jsonv.Value, len(list))
	for i, a := range list {
		items[i] = jsonv.NewObject(
			jsonv.M("list", jsonv.NewString(a.List)),
			jsonv.M("code", jsonv.NewInt(a.Code)),
		)
	}
	return jsonv.NewArray(items...)
}

// Marshal returns the exact bytes of the lock file: Python's
// json.dumps(indent=2, ensure_ascii=False) text plus one trailing newline.
func Marshal(l *Lock) []byte {
	var buf bytes.Buffer
	encode(&buf, l) // a bytes.Buffer never fails to take a write
	return buf.Bytes()
}

// lockIndent is the lock file's indent (json.dumps(indent=2)).
const lockIndent = 2

// encoder writes a lock's text to w a part at a time, through a buffer it
// hands over whenever it passes flushAt bytes.
type encoder struct {
	w   io.Writer
	b   []byte
	err error
}

const flushAt = 32 << 10

func (e *encoder) flush() {
	if e.err == nil && len(e.b) > 0 {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

func (e *encoder) maybeFlush() {
	// Without a writer (AppendToolText) the text simply grows.
	if e.w != nil && len(e.b) >= flushAt {
		e.flush()
	}
}

// member starts the member key of an object whose members sit at level.
func (e *encoder) member(first bool, key string, level int) {
	if !first {
		e.b = append(e.b, ',')
	}
	e.b = pyfmt.Newline(e.b, lockIndent, level)
	e.b = jsonv.AppendQuoted(e.b, key)
	e.b = append(e.b, ": "...)
}

// stringMember writes a member whose value is the string value.
func (e *encoder) stringMember(first bool, key, value string, level int) {
	e.member(first, key, level)
	e.b = jsonv.AppendQuoted(e.b, value)
}

// array writes an array of n items whose items sit at level, item(i)
// writing each.
func (e *encoder) array(n, level int, item func(i int)) {
	if n == 0 {
		e.b = append(e.b, "[]"...)
		return
	}
	e.b = append(e.b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = pyfmt.Newline(e.b, lockIndent, level)
		item(i)
		e.maybeFlush()
	}
	e.b = append(pyfmt.Newline(e.b, lockIndent, level-1), ']')
}

// encode writes the lock file's text of l to w: exactly
// pyfmt.DumpsIndent(ToValue(l), 2) and a newline, written one entry at a
// time without building the document's tree; the skeletons are written
// straight from their compact text.
func encode(w io.Writer, l *Lock) error {
	e := &encoder{w: w, b: make([]byte, 0, 2*flushAt)}
	e.head(l)
	e.array(len(l.Tools), 2, func(i int) { e.tool(&l.Tools[i]) })
	e.tail(l)
	e.flush()
	return e.err
}

// head writes the text before the tools array: the opening brace, the
// members up to server, and the "tools" key.
func (e *encoder) head(l *Lock) {
	e.b = append(e.b, '{')
	e.member(true, "schema_version", 1)
	e.b = strconv.AppendInt(e.b, int64(l.SchemaVersion), 10)
	e.stringMember(false, "warden_version", l.WardenVersion, 1)
	e.member(false, "server", 1)
	e.b = pyfmt.AppendIndent(e.b, ServerValue(l.Server), lockIndent, 1)
	e.member(false, "tools", 1)
}

// tail writes the text after the tools array: the members from resources
// on, the closing brace and the trailing newline.
func (e *encoder) tail(l *Lock) {
	e.member(false, "resources", 1)
	e.array(len(l.Resources), 2, func(i int) {
		e.b = pyfmt.AppendIndent(e.b, ResourceValue(l.Resources[i]), lockIndent, 2)
	})
	e.member(false, "prompts", 1)
	e.array(len(l.Prompts), 2, func(i int) {
		e.b = pyfmt.AppendIndent(e.b, PromptValue(l.Prompts[i]), lockIndent, 2)
	})
	e.member(false, "findings", 1)
	e.array(len(l.Findings), 2, func(i int) { e.finding(&l.Findings[i]) })
	e.stringMember(false, "overall_digest", l.OverallDigest, 1)
	e.member(false, "pin", 1)
	e.b = pyfmt.AppendIndent(e.b, PinValue(l.Pin), lockIndent, 1)
	e.b = append(pyfmt.Newline(e.b, lockIndent, 0), '}', '\n')
}

// finding writes one finding as FindingValue renders it, at level 2,
// without building its tree (a pin of many tools embeds thousands).
func (e *encoder) finding(f *Finding) {
	const level = 3 // the finding's members
	e.b = append(e.b, '{')
	e.stringMember(true, "rule_id", f.RuleID, level)
	e.stringMember(false, "severity", f.Severity, level)
	e.stringMember(false, "target", f.Target, level)
	e.stringMember(false, "message", f.Message, level)
	e.stringMember(false, "snippet", f.Snippet, level)
	e.b = append(pyfmt.Newline(e.b, lockIndent, level-1), '}')
}

// AppendToolText appends the text of one tool entry exactly as the lock
// file holds it inside its tools array (from its opening brace to its
// closing one, indented for that place), so that entries can be rendered
// on the goroutines that build them and written by a StreamWriter.
func AppendToolText(dst []byte, t *Tool) []byte {
	e := &encoder{b: dst}
	e.tool(t)
	return e.b
}

// tool writes one tool entry as ToolValue renders it, at level 2.
func (e *encoder) tool(t *Tool) {
	mustBeWhole(t)
	e.toolWith(t, func(level int) { e.b = pyfmt.AppendIndentRaw(e.b, t.SchemaSkeleton, lockIndent, level) },
		func(level int) { e.b = pyfmt.AppendIndentRaw(e.b, t.OutputSchemaSkeleton, lockIndent, level) })
}

// toolWith is tool with the skeletons written by skel and out, which
// append the input and output schema skeleton as member values at level.
// The entry's members sit at a fixed level, so their keys are written
// with the line breaks and indentation before them as one constant each.
func (e *encoder) toolWith(t *Tool, skel, out func(level int)) {
	const level = 3 // the entry's members, at memberBreak's indentation
	e.b = append(e.b, "{"+memberBreak+`"name": `...)
	e.b = jsonv.AppendQuoted(e.b, t.Name)
	e.b = append(e.b, ","+memberBreak+`"description_hash": `...)
	e.b = jsonv.AppendQuoted(e.b, t.DescriptionHash)
	e.b = append(e.b, ","+memberBreak+`"input_schema_hash": `...)
	e.b = jsonv.AppendQuoted(e.b, t.InputSchemaHash)
	e.b = append(e.b, ","+memberBreak+`"capabilities": `...)
	if len(t.Capabilities) == 0 {
		e.b = append(e.b, "[]"...)
	} else {
		e.b = append(e.b, '[')
		for i, c := range t.Capabilities {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, capabilityBreak...)
			e.b = jsonv.AppendQuoted(e.b, c)
			e.maybeFlush()
		}
		e.b = append(e.b, memberBreak+"]"...)
	}
	if t.Inspection != nil {
		e.b = append(e.b, ","+memberBreak+`"inspection": `...)
		e.b = pyfmt.AppendIndent(e.b, t.Inspection, lockIndent, level)
	}
	e.b = append(e.b, ","+memberBreak+`"schema_skeleton": `...)
	skel(level)
	if t.HasV4 {
		e.b = append(e.b, ","+memberBreak+`"annotations_hash": `...)
		e.b = jsonv.AppendQuoted(e.b, t.AnnotationsHash)
		e.b = append(e.b, ","+memberBreak+`"output_schema_hash": `...)
		e.b = jsonv.AppendQuoted(e.b, t.OutputSchemaHash)
		e.b = append(e.b, ","+memberBreak+`"output_schema_skeleton": `...)
		out(level)
	}
	e.b = append(e.b, ","+memberBreak+`"entry_digest": `...)
	e.b = jsonv.AppendQuoted(e.b, t.EntryDigest)
	e.b = append(e.b, itemBreak+"}"...)
}

// memberBreak and capabilityBreak are the line breaks and indentation
// before a tool entry's members (level 3) and before the items of its
// capabilities (level 4); itemBreak (level 2) comes before its closing
// brace. TestToolBreaks holds them to pyfmt.Newline.
const (
	memberBreak     = "\n      "
	capabilityBreak = "\n        "
)

// WriteFile writes l to path atomically: the text goes through a buffered
// writer to a temporary file in the same directory, which is synced and
// then renamed over path, so a failure never leaves a half-written lock
// behind. A lock larger than MaxFileBytes is refused and nothing is
// written: warden would refuse to read it back.
func WriteFile(path string, l *Lock) error {
	return writeLockFile(path, l, MaxFileBytes, nil)
}

// WriteFileChecked is WriteFile that runs check while the lock is being
// written and replaces path only if check succeeds: a check of the lock's
// content (such as the stored-secret check of a pin) then costs no time of
// its own. check must only read l, which is also being read to be written.
func WriteFileChecked(path string, l *Lock, check func() error) error {
	return writeLockFile(path, l, MaxFileBytes, check)
}

// writeLockFile is WriteFile with a size limit of max bytes and an
// optional check (see WriteFileChecked).
func writeLockFile(path string, l *Lock, max int64, check func() error) error {
	var checked chan error
	if check != nil {
		checked = make(chan error, 1)
		go func() { checked <- check() }()
	}
	err := writeAtomic(path, func(w io.Writer) error {
		lw := &limitWriter{w: w, max: max}
		if err := encode(lw, l); err != nil {
			return err
		}
		if lw.n > max {
			return fmt.Errorf("write lock %s: the lock would be %d bytes, more than the %s a lock may be (warden could not read it back)", path, lw.n, limitText(max))
		}
		if checked != nil {
			err := <-checked
			checked = nil
			return err
		}
		return nil
	})
	if checked != nil {
		// The write failed before the check was waited for: wait now, so
		// that check never outlives the call.
		<-checked
	}
	return err
}

// limitWriter passes at most max bytes on to w and counts the rest.
type limitWriter struct {
	w      io.Writer
	n, max int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	l.n += int64(len(p))
	if l.n > l.max {
		return len(p), nil // refused once the whole size is known
	}
	return l.w.Write(p)
}

// WriteAtomic writes data to path through a synced temporary file in the
// same directory and a rename, so that readers see the old file or the new
// one, never a part. It never writes through a symbolic link: when path
// exists it must be a regular file (which the rename replaces); a link, a
// directory, a FIFO or a device there is refused, so that a link committed
// in place of a report cannot redirect the write, nor be silently replaced.
func WriteAtomic(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic is WriteAtomic for content that write produces through a
// buffered writer; an error from write leaves path as it was.
func writeAtomic(path string, write func(w io.Writer) error) error {
	tmp, err := createTemp(path)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			discardTemp(tmp)
		}
	}()
	bw := bufio.NewWriterSize(&fileWriter{f: tmp, path: path}, writeBuffer)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := commitTemp(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// writeBuffer is the size of the buffer a lock is written through.
const writeBuffer = 256 << 10

// createTemp creates the temporary file a write of path goes to, in the
// same directory (so that the rename is atomic), after refusing a path
// that exists and is not a regular file.
func createTemp(path string) (*os.File, error) {
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("write %s: it is %s, not a regular file; warden does not write through or replace it (remove it, or name another path)", path, infile.FileType(info.Mode()))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return tmp, nil
}

// commitTemp makes the fully written temporary file tmp path: its mode is
// set, it is synced, closed and renamed over path. On an error tmp is
// left for the caller to discard.
func commitTemp(tmp *os.File, path string) error {
	if err := finishTemp(tmp, path); err != nil {
		return err
	}
	replaced := holdReplaced(path)
	if err := os.Rename(tmp.Name(), path); err != nil {
		if replaced != nil {
			replaced.Close()
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	if replaced != nil {
		// The last close frees the old lock, off the caller's path.
		go replaced.Close()
	}
	return nil
}

// holdReplaced opens the large regular file at path, if there is one, so
// that the rename over it does not free it: freeing a lock of a hundred
// megabytes (its cached pages and its blocks) takes the kernel tens of
// milliseconds, which the caller need not wait for. Any failure is
// ignored: the rename then frees it as usual.
func holdReplaced(path string) *os.File {
	if runtime.GOOS == "windows" {
		// A file held open there cannot be renamed over.
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < holdReplacedSize {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	return f
}

// holdReplacedSize is the size from which a replaced lock is freed in
// the background: a small one is freed at once.
const holdReplacedSize = 4 << 20

// releaseReplaced starts dropping the cached pages of the large lock at
// path, if there is one, which the lock being written is to replace: the
// new lock then takes that memory instead of growing the page cache by as
// much again (two 100 MB copies of a lock at the moment of the rename), and
// the kernel frees less when the rename retires the old file. The file
// itself is left whole: a failed write keeps it, as it must. done is
// closed when the advice is given (nil when there was nothing to do).
func releaseReplaced(path string) (done <-chan struct{}) {
	f := holdReplaced(path)
	if f == nil {
		return nil
	}
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		dropCache(f)
		f.Close()
	}()
	return ch
}

// finishTemp sets the mode of the fully written temporary file tmp, syncs
// and closes it: all but the rename that puts it at path.
func finishTemp(tmp *os.File, path string) error {
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// StagedFile is a file written in full, synced and closed beside the path
// it is for, waiting to be renamed into place: a write that must land only
// after another one (a lock's surface snapshot, after the lock) stages it
// first, so that a failure before leaves both paths as they were.
type StagedFile struct {
	tmp, path string
}

// Stage writes what write produces, through a buffered writer, to a
// temporary file in path's folder, as WriteAtomic does but without the
// rename. Like WriteAtomic it refuses a path that exists and is not a
// regular file.
func Stage(path string, write func(w io.Writer) error) (*StagedFile, error) {
	tmp, err := createTemp(path)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(tmp, writeBuffer)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		discardTemp(tmp)
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := finishTemp(tmp, path); err != nil {
		discardTemp(tmp)
		return nil, err
	}
	return &StagedFile{tmp: tmp.Name(), path: path}, nil
}

// Path is where Commit puts the file.
func (s *StagedFile) Path() string { return s.path }

// Commit renames the staged file into place; on failure the path is left
// as it was, and the staged file stays for Discard.
func (s *StagedFile) Commit() error {
	if err := os.Rename(s.tmp, s.path); err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	return nil
}

// Discard removes the staged file.
func (s *StagedFile) Discard() { os.Remove(s.tmp) }

// discardTemp closes and removes a temporary file that will not become
// the lock (closing twice is harmless).
func discardTemp(tmp *os.File) {
	tmp.Close()
	os.Remove(tmp.Name())
}

// fileWriter names the destination path in write errors.
// It also starts the kernel writing each writebackChunk to disk as soon
// as it is written (startWriteback), so that the sync before the rename,
// which makes the lock durable, waits only for the last part of a large
// lock rather than for all of it.
type fileWriter struct {
	f    *os.File
	path string
	// written counts the bytes written; pushed is how many of them have
	// been handed to startWriteback.
	written, pushed int64
}

// writebackChunk is how much is written before it is pushed to disk.
const writebackChunk = 8 << 20

func (w *fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = fmt.Errorf("write %s: %w", w.path, err)
	}
	w.written += int64(n)
	if w.written-w.pushed >= writebackChunk {
		startWriteback(w.f, w.pushed, w.written-w.pushed)
		w.pushed = w.written
	}
	return n, err
}

// PinInfo is what a fresh pin records about who and what made it.
type PinInfo struct {
	Version         string
	ProtocolVersion string
	Now             time.Time
	// Approver, when non-empty, approves the lock at creation.
	Approver string
	// Actor and Environment fill pin.pinner (null when empty).
	Actor, Environment string
}

// TimeFormat is the pin timestamp format: RFC 3339 in UTC, whole seconds.
const TimeFormat = "2006-01-02T15:04:05Z"

// NewPin makes a fresh pin block for a lock whose overall digest is digest.
func NewPin(info PinInfo, digest string) Pin {
	created := info.Now.UTC().Format(TimeFormat)
	zero, one := 0, 1
	p := Pin{
		CreatedAt:            created,
		WardenVersion:        info.Version,
		MCPProtocolVersion:   info.ProtocolVersion,
		HasProvenanceVersion: true, ProvenanceVersion: &one,
		HasPinner: true, Pinner: jsonv.NewObject(
			jsonv.M("tool", jsonv.NewString("warden")),
			jsonv.M("tool_version", jsonv.NewString(info.Version)),
			jsonv.M("actor", strOrNull(nonEmpty(info.Actor))),
			jsonv.M("environment", strOrNull(nonEmpty(info.Environment))),
		),
		HasAttestations: true, Attestations: []*jsonv.Value{},
		HasRotatedAt:     true,
		HasRotationCount: true, RotationCount: &zero,
	}
	if info.Approver != "" {
		Approve(&p, info.Approver, created, digest)
		p.Attestations = append(p.Attestations, Attestation(info.Approver, "approver", created, digest, ""))
	}
	return p
}

// Approve sets the scalar approval fields of p to attest digest.
func Approve(p *Pin, approver, at, digest string) {
	p.Approved = true
	p.Approver = &approver
	p.ApprovedAt = &at
	p.ApprovedDigest = &digest
}

// Attestation builds one attestation record (note may be empty).
func Attestation(actor, role, at, digest, note string) *jsonv.Value {
	return jsonv.NewObject(
		jsonv.M("actor", jsonv.NewString(actor)),
		jsonv.M("role", jsonv.NewString(role)),
		jsonv.M("method", jsonv.NewString("manual")),
		jsonv.M("created_at", jsonv.NewString(at)),
		jsonv.M("bound_digest", jsonv.NewString(digest)),
		jsonv.M("note", strOrNull(nonEmpty(note))),
		jsonv.M("signature_bundle", jsonv.NewNull()),
	)
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

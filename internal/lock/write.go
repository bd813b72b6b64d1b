package lock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// ToValue renders l as the JSON document warden writes, with the reference's
// key order (reference-behaviour §5.2).
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
		jsonv.M("server", jsonv.NewObject(
			jsonv.M("command", jsonv.NewString(l.Server.Command)),
			jsonv.M("args", jsonv.NewStrings(l.Server.Args)),
			jsonv.M("url", strOrNull(l.Server.URL)),
			jsonv.M("command_digest", jsonv.NewString(l.Server.CommandDigest)),
		)),
		jsonv.M("tools", jsonv.NewArray(tools...)),
		jsonv.M("resources", jsonv.NewArray(res...)),
		jsonv.M("prompts", jsonv.NewArray(prompts...)),
		jsonv.M("findings", jsonv.NewArray(findings...)),
		jsonv.M("overall_digest", jsonv.NewString(l.OverallDigest)),
		jsonv.M("pin", PinValue(l.Pin)),
	)
}

// ToolValue renders one tool entry as written in the lock: a null skeleton
// is written as null even on v1 entries, as the reference rewrites them.
func ToolValue(t Tool) *jsonv.Value {
	v := toolObject(t, false)
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
	v.Members = append(v.Members, p.Extra...)
	return v
}

// Marshal returns the exact bytes of the lock file: Python's
// json.dumps(indent=2, ensure_ascii=False) text plus one trailing newline.
func Marshal(l *Lock) []byte {
	return append(pyfmt.DumpsIndent(ToValue(l), 2), '\n')
}

// WriteFile writes l to path atomically: the bytes go to a temporary file in
// the same directory, which is synced and then renamed over path, so a
// failure never leaves a half-written lock behind. A lock larger than
// MaxFileBytes is refused and nothing is written: warden would refuse to
// read it back.
func WriteFile(path string, l *Lock) error {
	return writeLock(path, Marshal(l), MaxFileBytes)
}

// writeLock writes the lock text data to path unless it exceeds max bytes.
func writeLock(path string, data []byte, max int64) error {
	if int64(len(data)) > max {
		return fmt.Errorf("write lock %s: the lock would be %d bytes, more than the %s a lock may be (warden could not read it back)", path, len(data), limitText(max))
	}
	return WriteAtomic(path, data)
}

// WriteAtomic writes data to path through a synced temporary file in the
// same directory and a rename, so that readers see the old file or the new
// one, never a part. It never writes through a symbolic link: when path
// exists it must be a regular file (which the rename replaces); a link, a
// directory, a FIFO or a device there is refused, so that a link committed
// in place of a report cannot redirect the write, nor be silently replaced.
func WriteAtomic(path string, data []byte) error {
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return fmt.Errorf("write %s: it is %s, not a regular file; warden does not write through or replace it (remove it, or name another path)", path, fileType(info.Mode()))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return nil
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

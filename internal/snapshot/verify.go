package snapshot

import (
	"fmt"
	"slices"

	"github.com/wardenlock/warden/internal/lock"
)

// MismatchError is the refusal of a snapshot that is not the surface its
// lock commits to. Its text starts "snapshot does not match lock" and
// names the first difference by entry and field, never quoting more of
// the server's text than a clipped name.
type MismatchError struct {
	// Where is the first difference ("tool \"x\": description_hash").
	Where string
	// Snapshot and Lock, when set, name the two files in the message.
	Snapshot, Lock string
}

func (e *MismatchError) Error() string {
	files := ""
	if e.Snapshot != "" && e.Lock != "" {
		files = e.Snapshot + " against " + e.Lock + ": "
	}
	return "snapshot does not match lock: " + files + e.Where + " (the snapshot was edited, or is not the one pinned with this lock: re-pin to write both again)"
}

func mismatch(format string, args ...any) error {
	return &MismatchError{Where: fmt.Sprintf(format, args...)}
}

// Verify checks that s is the surface l commits to: the lock rebuilt from
// s must have l's launch identity, the same entries with every field hash
// and entry digest equal, and l's overall digest; s must hold no member
// outside the surface shape, and its protocolVersion must be l's
// pin.mcp_protocol_version. Only a lock at lock.CurrentSchemaVersion is
// verifiable: below it the lock commits to less than a snapshot shows.
// Any failure is a *MismatchError.
func Verify(s *Snapshot, l *lock.Lock) error {
	if l.SchemaVersion != lock.CurrentSchemaVersion {
		return mismatch("the lock is at schema_version %d, and only a schema_version %d lock commits to everything a snapshot holds", l.SchemaVersion, lock.CurrentSchemaVersion)
	}
	if s.extra != "" {
		return mismatch("%s is not part of a surface, and no hash in the lock covers it", s.extra)
	}
	b, err := lock.Build(s.Surface)
	if err != nil {
		return mismatch("the snapshot does not build a lock (%v)", clipErr(err))
	}
	if b.Server.CommandDigest != l.Server.CommandDigest {
		return mismatch("server: command_digest")
	}
	if s.Surface.ProtocolVersion != l.Pin.MCPProtocolVersion {
		return mismatch("protocolVersion is not the lock's pin.mcp_protocol_version")
	}
	if err := tools(b.Tools, l.Tools); err != nil {
		return err
	}
	if err := resources(b.Resources, l.Resources); err != nil {
		return err
	}
	if err := prompts(b.Prompts, l.Prompts); err != nil {
		return err
	}
	if b.OverallDigest != l.OverallDigest {
		return mismatch("overall_digest")
	}
	return nil
}

// field is one named value compared between two entries.
type field struct {
	name string
	a, b string
}

// firstDiff returns the name of the first field that differs, or "".
func firstDiff(fields ...field) string {
	for _, f := range fields {
		if f.a != f.b {
			return f.name
		}
	}
	return ""
}

// walk compares two entry lists sorted by identity: an identity in one
// list only, or the first differing field of an entry in both.
func walk[T any](noun string, snap, locked []T, id func(T) string, diff func(a, b T) string) error {
	i, j := 0, 0
	for i < len(snap) || j < len(locked) {
		switch {
		case j == len(locked) || i < len(snap) && id(snap[i]) < id(locked[j]):
			return mismatch("%s %s is in the snapshot but not in the lock", noun, clipName(id(snap[i])))
		case i == len(snap) || id(locked[j]) < id(snap[i]):
			return mismatch("%s %s is in the lock but not in the snapshot", noun, clipName(id(locked[j])))
		}
		if f := diff(snap[i], locked[j]); f != "" {
			return mismatch("%s %s: %s", noun, clipName(id(snap[i])), f)
		}
		i++
		j++
	}
	return nil
}

func tools(snap, locked []lock.Tool) error {
	locked = sortedBy(locked, func(t lock.Tool) string { return t.Name })
	return walk("tool", snap, locked, func(t lock.Tool) string { return t.Name }, func(a, b lock.Tool) string {
		if f := firstDiff(
			field{"description_hash", a.DescriptionHash, b.DescriptionHash},
			field{"input_schema_hash", a.InputSchemaHash, b.InputSchemaHash},
			field{"annotations_hash", a.AnnotationsHash, b.AnnotationsHash},
			field{"output_schema_hash", a.OutputSchemaHash, b.OutputSchemaHash},
			field{"schema_skeleton", a.SchemaSkeleton.Text(), b.SchemaSkeleton.Text()},
			field{"output_schema_skeleton", a.OutputSchemaSkeleton.Text(), b.OutputSchemaSkeleton.Text()},
		); f != "" {
			return f
		}
		if !slices.Equal(a.Capabilities, b.Capabilities) {
			return "capabilities"
		}
		return firstDiff(field{"entry_digest", a.EntryDigest, b.EntryDigest})
	})
}

func resources(snap, locked []lock.Resource) error {
	locked = sortedBy(locked, func(r lock.Resource) string { return r.URI })
	return walk("resource", snap, locked, func(r lock.Resource) string { return r.URI }, func(a, b lock.Resource) string {
		return firstDiff(
			field{"name", opt(a.Name), opt(b.Name)},
			field{"description_hash", a.DescriptionHash, b.DescriptionHash},
			field{"mime_type", opt(a.MimeType), opt(b.MimeType)},
			field{"entry_digest", a.EntryDigest, b.EntryDigest},
		)
	})
}

func prompts(snap, locked []lock.Prompt) error {
	locked = sortedBy(locked, func(p lock.Prompt) string { return p.Name })
	return walk("prompt", snap, locked, func(p lock.Prompt) string { return p.Name }, func(a, b lock.Prompt) string {
		return firstDiff(
			field{"description_hash", a.DescriptionHash, b.DescriptionHash},
			field{"arguments_hash", a.ArgumentsHash, b.ArgumentsHash},
			field{"entry_digest", a.EntryDigest, b.EntryDigest},
		)
	})
}

// sortedBy returns list sorted by id in byte (code-point) order, as
// lock.Build sorts: a lock read from a file is in its file's order.
func sortedBy[T any](list []T, id func(T) string) []T {
	if slices.IsSortedFunc(list, func(a, b T) int { return cmp(id(a), id(b)) }) {
		return list
	}
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b T) int { return cmp(id(a), id(b)) })
	return out
}

func cmp(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// opt is a nullable string for comparison; nil differs from "".
func opt(s *string) string {
	if s == nil {
		return "\x00null"
	}
	return "=" + *s
}

// clipErr is err's text clipped: a build error may name an entry.
func clipErr(err error) string {
	s := err.Error()
	if len(s) > 160 {
		s = clipName(s[:160])
		return s
	}
	return fmt.Sprintf("%q", s)
}

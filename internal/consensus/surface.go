package consensus

import (
	"fmt"
	"strconv"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
)

// SurfaceDigest is a lock's launch-independent surface digest: the
// overall-digest payload of SPEC §8.1 without "server", over the lock's
// entry digests in its (sorted) entry order, at its schema_version.
func SurfaceDigest(l *lock.Lock) string {
	tools := make([]string, len(l.Tools))
	for i := range l.Tools {
		tools[i] = l.Tools[i].EntryDigest
	}
	res := make([]string, len(l.Resources))
	for i := range l.Resources {
		res[i] = l.Resources[i].EntryDigest
	}
	prompts := make([]string, len(l.Prompts))
	for i := range l.Prompts {
		prompts[i] = l.Prompts[i].EntryDigest
	}
	return surfaceDigest(l.SchemaVersion, tools, res, prompts)
}

func surfaceDigest(level int, tools, resources, prompts []string) string {
	h := &canon.Hasher{}
	h.Begin()
	list := func(ds []string) {
		h.WriteRaw("[")
		for i, d := range ds {
			if i > 0 {
				h.WriteRaw(",")
			}
			h.WriteString(d)
		}
		h.WriteRaw("]")
	}
	// Keys in canonical (sorted) order.
	h.WriteRaw(`{"prompts":`)
	list(prompts)
	h.WriteRaw(`,"resources":`)
	list(resources)
	h.WriteRaw(`,"schema_version":` + strconv.Itoa(level) + `,"tools":`)
	list(tools)
	h.WriteRaw(`}`)
	return h.Sum()
}

// LiveSurfaceDigest is the surface digest of observed, a lock warden built
// from a capture (level 4), with its entries rebuilt at level: as they are
// at 4; at 3 each tool entry without the three v4 commitments
// (annotations_hash, output_schema_hash, output_schema_skeleton; SPEC §7.1,
// §14.2), which is everything a level-3 entry commits. Resource and prompt
// entries are the same at both levels. Other levels cannot be rebuilt.
func LiveSurfaceDigest(observed *lock.Lock, level int) (string, error) {
	if observed.SchemaVersion != lock.CurrentSchemaVersion {
		return "", fmt.Errorf("the observed lock is at level %d, not %d", observed.SchemaVersion, lock.CurrentSchemaVersion)
	}
	switch level {
	case 4:
		s := *observed
		return SurfaceDigest(&s), nil
	case 3:
	default:
		return "", fmt.Errorf("cannot rebuild a capture at schema level %d (only 3 and 4)", level)
	}
	h := &canon.Hasher{}
	tools := make([]string, len(observed.Tools))
	for i, t := range observed.Tools {
		t.HasV4 = false
		t.AnnotationsHash, t.OutputSchemaHash = "", ""
		t.OutputSchemaSkeleton = jsonv.Raw{}
		d, err := h.Hash(lock.ToolBody(t, 3))
		if err != nil {
			return "", fmt.Errorf("tool %q at level 3: %w", t.Name, err)
		}
		tools[i] = d
	}
	res := make([]string, len(observed.Resources))
	for i := range observed.Resources {
		res[i] = observed.Resources[i].EntryDigest
	}
	prompts := make([]string, len(observed.Prompts))
	for i := range observed.Prompts {
		prompts[i] = observed.Prompts[i].EntryDigest
	}
	return surfaceDigest(3, tools, res, prompts), nil
}

// Package snapshot is the surface snapshot a pin writes beside its lock:
// the captured surface itself, in the shape of a surface file, so that a
// reviewer (and warden's explanations) can see the words behind each hash.
//
// The lock stays hashes only (SPEC §7). A snapshot is worth nothing unless
// it is the surface the lock commits to, so every reader verifies it first
// (Verify): the lock is rebuilt from the snapshot and every field hash,
// entry digest and the overall digest must equal the lock's. A snapshot
// that disagrees is refused, never shown.
//
// The text is canonical (Marshal): tools by name, resources by URI,
// prompts by name, in code-point order; each item's members in a fixed
// order; indented JSON with one member or array item per line, so that a
// git diff of two snapshots is as small as the change (an edited
// description is one changed line). Values are written from their raw
// form: number literals, explicit nulls and unknown keys inside them
// survive exactly.
package snapshot

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Suffix ends every snapshot's file name.
const Suffix = ".surface.json"

// Path returns where the snapshot of the lock at lockPath lives:
// warden.lock gives warden.surface.json, NAME.warden.lock gives
// NAME.warden.surface.json, any other X.lock gives X.surface.json, and a
// path not ending in .lock gets Suffix appended.
func Path(lockPath string) string {
	dir, base := filepath.Split(lockPath)
	if stem, ok := strings.CutSuffix(base, ".lock"); ok && stem != "" {
		return dir + stem + Suffix
	}
	return lockPath + Suffix
}

// clipName quotes an entry name for an error, clipped to 64 bytes on a
// character boundary: it is server text.
func clipName(name string) string {
	const max = 64
	if len(name) <= max {
		return strconv.QuoteToASCII(name)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return strconv.QuoteToASCII(name[:cut]) + "…"
}

package jsonv

import "unsafe"

// strArena hands out the longer strings of a Parser's documents, copied
// into chunks of a few kilobytes instead of each allocated on its own: a
// tool's text holds some ten such strings (its description, its
// properties' descriptions), and an allocation each cost more than their
// copy.
//
// A chunk is fresh memory that only this arena writes, once, in order:
// the bytes of a string handed out are never written again, so the
// string stays valid and unchanged for as long as anything holds it, like
// any other string. What a string kept for long costs is the rest of its
// chunk, which stays alive with it. That is bounded by the chunk's size,
// and the strings callers keep for long (names, identifiers, keys) are
// left out: a string of arenaMin bytes or less is allocated on its own
// (the intern table shares most of those anyway), and so is one longer
// than arenaMax, which would waste much of a chunk.
type strArena struct {
	// chunk is the current chunk, chunk[used:] its unused end: counted by
	// an index, since storing a slice (a pointer) costs a write barrier
	// while the collector runs.
	chunk []byte
	used  int
}

// arenaChunk is the size of a chunk; strings from arenaMin+1 to arenaMax
// bytes are cut from one. A tool name is at most 64 bytes in the MCP
// clients that bound it, so a kept name never keeps a chunk alive.
const (
	arenaChunk = 4 << 10
	arenaMin   = 64
	arenaMax   = arenaChunk / 4
)

// string returns b as a string.
func (a *strArena) string(b []byte) string {
	n := len(b)
	if n <= arenaMin || n > arenaMax {
		return string(b)
	}
	if n > len(a.chunk)-a.used {
		a.chunk, a.used = make([]byte, arenaChunk), 0
	}
	copy(a.chunk[a.used:], b)
	s := unsafe.String(&a.chunk[a.used], n)
	a.used += n
	return s
}

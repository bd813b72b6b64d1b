package skeleton

// slab hands out slices of T from blocks an Extractor keeps from one call
// to the next. The enum arrays, constraints objects and type lists of a
// skeleton are needed only until the next call (a lock builder writes each
// skeleton out first), so their memory is reused rather than allocated
// record by record.
type slab[T any] struct {
	blocks [][]T
	cur    int // the block being filled
	used   int // how much of it is handed out
}

const (
	// slabBlock is the longest block: blocks start at slabFirst and double
	// up to it, so that a one-off Extract of a small schema does not pay
	// for large blocks. A request longer than slabBlock gets a block of
	// its own, which reset does not keep.
	slabFirst = 16
	slabBlock = 256
	// slabKeep is how many blocks reset keeps for the next walk, so that
	// one huge schema does not pin its memory for the rest of a build.
	slabKeep = 8
)

// take returns n zero elements, valid until reset.
func (s *slab[T]) take(n int) []T {
	for s.cur < len(s.blocks) {
		if b := s.blocks[s.cur]; s.used+n <= len(b) {
			s.used += n
			return b[s.used-n : s.used : s.used]
		}
		s.cur++
		s.used = 0
	}
	size := slabFirst
	if k := len(s.blocks); k > 0 {
		size = min(2*len(s.blocks[k-1]), slabBlock)
	}
	s.blocks = append(s.blocks, make([]T, max(size, n)))
	s.used = n
	return s.blocks[s.cur][:n:n]
}

// reset takes back everything handed out. What was used is cleared, so
// the blocks keep no schema nodes alive, and only the first slabKeep
// blocks no longer than slabBlock are kept.
func (s *slab[T]) reset() {
	for i := 0; i < s.cur && i < len(s.blocks); i++ {
		clear(s.blocks[i])
	}
	if s.cur < len(s.blocks) {
		clear(s.blocks[s.cur][:s.used])
	}
	kept := s.blocks[:0]
	for _, b := range s.blocks {
		if len(b) <= slabBlock && len(kept) < slabKeep {
			kept = append(kept, b)
		}
	}
	clear(s.blocks[len(kept):])
	s.blocks = kept
	s.cur, s.used = 0, 0
}

package jsonv

// carver hands out the member and item slices of a Parser's documents
// (Parser.ParseOver): each is carved out of a block kept from one document
// to the next instead of being allocated, as the values themselves are.
type carver[T any] struct {
	// cur is the current block, cur[used:] its free part: counted by an
	// index, since storing a slice (a pointer) costs a write barrier
	// while the collector runs.
	cur  []T
	used int
	// blocks are the blocks of the current document; spare those of the
	// documents before it, to carve from again.
	blocks, spare [][]T
}

// carveBlock is the length of a block; a longer slice gets a block of its
// own.
const carveBlock = 2048

// carve returns a copy of src in a block.
func (c *carver[T]) carve(src []T) []T {
	n := len(src)
	if n > len(c.cur)-c.used {
		c.next(n)
	}
	s := c.cur[c.used : c.used+n : c.used+n]
	copy(s, src)
	c.used += n
	return s
}

// next makes cur a block of at least n elements.
func (c *carver[T]) next(n int) {
	var b []T
	if k := len(c.spare); k > 0 && n <= carveBlock {
		b = c.spare[k-1]
		c.spare = c.spare[:k-1]
	} else {
		b = make([]T, max(n, carveBlock))
	}
	c.blocks = append(c.blocks, b)
	c.cur, c.used = b, 0
}

// recycle makes every block carved so far spare: the caller is done with
// every slice handed out. A block made for one long slice is let go, so
// every spare block fits every slice up to carveBlock and the spare
// blocks are never more than one document needed.
func (c *carver[T]) recycle() {
	for _, b := range c.blocks {
		if len(b) == carveBlock {
			c.spare = append(c.spare, b)
		}
	}
	clear(c.blocks)
	c.blocks = c.blocks[:0]
	c.cur, c.used = nil, 0
}

//go:build !unix

package ops

// openNonBlock is not needed where opening a file cannot block on a FIFO.
const openNonBlock = 0

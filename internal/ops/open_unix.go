//go:build unix

package ops

import "syscall"

// openNonBlock makes opening a FIFO swapped in for a surface file return
// at once instead of waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK

package lock

import (
	"os"
	"syscall"
)

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start writing the range's
// dirty pages, without waiting for them.
const syncFileRangeWrite = 2

// startWriteback asks the kernel to start writing n bytes of f from off to
// disk. It is only a head start for the sync that follows: a failure is
// ignored, and that sync reports any error.
func startWriteback(f *os.File, off, n int64) {
	_ = syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWrite)
}

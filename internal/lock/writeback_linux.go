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

// fadvDontNeed is POSIX_FADV_DONTNEED.
const fadvDontNeed = 4

// dropCache asks the kernel to drop f's cached pages. It is only advice:
// a failure is ignored.
func dropCache(f *os.File) {
	_, _, _ = syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0)
}

package infile

import (
	"io/fs"
	"syscall"
)

// stampOf reads a Stamp from what fstat returned: the change time moves
// on every write and every change of the inode, and only the kernel sets
// it.
func stampOf(info fs.FileInfo) (Stamp, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return Stamp{}, false
	}
	return Stamp{
		size:  info.Size(),
		mtime: st.Mtim.Nano(),
		ctim:  st.Ctim.Nano(),
		dev:   uint64(st.Dev),
		ino:   st.Ino,
	}, true
}

//go:build !linux

package lock

import "os"

// startWriteback does nothing where sync_file_range(2) is missing: the
// sync before the rename writes the whole file.
func startWriteback(f *os.File, off, n int64) {}

// dropCache does nothing where posix_fadvise(2) is not called.
func dropCache(f *os.File) {}

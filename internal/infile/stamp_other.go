//go:build !linux && !darwin

package infile

import "io/fs"

// stampOf cannot tell a change here: warden knows of no change time that
// only the kernel sets on this platform.
func stampOf(fs.FileInfo) (Stamp, bool) { return Stamp{}, false }

//go:build !linux

package capture

// becomeSubreaper is not available outside Linux; the process group and
// process tree kills still apply.
func becomeSubreaper() bool { return false }

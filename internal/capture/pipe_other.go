//go:build !linux

package capture

import "os"

// pendingBytes cannot tell unread pipe bytes on this platform.
func pendingBytes(*os.File) (int, bool) { return 0, false }

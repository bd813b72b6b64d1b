//go:build unix

package drift

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the test process has used,
// so benchmarks can report CPU per operation next to wall time: on a shared,
// overloaded machine wall time mostly measures the neighbours.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

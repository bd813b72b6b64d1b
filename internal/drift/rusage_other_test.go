//go:build !unix

package drift

import "time"

// processCPU is unavailable here; benchmarks then report wall time only.
func processCPU() (time.Duration, bool) { return 0, false }

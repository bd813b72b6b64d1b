//go:build !unix

package capture

import (
	"errors"
	"os/exec"
)

// inOwnProcessGroup refuses: without process groups warden cannot promise
// that no process it started outlives the capture, so it does not start any.
func inOwnProcessGroup(*exec.Cmd) error {
	return errors.New("stdio servers are only supported on Unix-like systems, where the server's process group can be killed")
}

// killGroup is never reached: no process is started on these systems.
func killGroup(int) {}

// processParents, descendants, killAll, killAndReap, killPids, reapOwn and
// ownChildren are never reached: no process is started on these systems.
func processParents() map[int]int { return nil }
func descendants(int) []int       { return nil }
func killAll(int, []int, bool)    {}
func killAndReap([]int, bool)     {}
func killPids([]int)              {}
func reapOwn([]int)               {}
func ownChildren() []int          { return nil }

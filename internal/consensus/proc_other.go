//go:build !unix

package consensus

import "os/exec"

// setProcessGroup leaves git's cancellation to exec's default (killing git).
func setProcessGroup(cmd *exec.Cmd) {}

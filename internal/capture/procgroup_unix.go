//go:build unix

package capture

import (
	"os/exec"
	"syscall"
)

// inOwnProcessGroup makes the child lead a new process group, so that it and
// everything it spawns (an "npx" wrapper's node process, a shell script's
// children) can be killed together.
func inOwnProcessGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return nil
}

// killGroup sends SIGKILL to every process in the group. A group that is
// already gone is not an error.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

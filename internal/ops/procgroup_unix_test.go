//go:build unix

package ops

import (
	"os/exec"
	"syscall"
)

// ownGroup makes a server a test starts by hand lead a process group of its
// own, so that killTree ends what it spawned too: a server's child (a
// version check running npm) that outlived the test would write into the
// test's temporary directory after its cleanup.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killTree ends a server started with ownGroup and everything in its group.
func killTree(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

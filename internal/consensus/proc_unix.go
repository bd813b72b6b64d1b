//go:build unix

package consensus

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts git in its own process group and has a cancelled
// run kill the whole group (git's transport helpers with it).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

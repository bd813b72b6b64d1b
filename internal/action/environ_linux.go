package action

import (
	"fmt"
	"syscall"
)

// hideEnvironment makes warden's process non-dumpable (prctl
// PR_SET_DUMPABLE 0). In the Action's container the server warden starts
// runs as the same user; without this it could read warden's environment —
// the github-token input, ACTIONS_RUNTIME_TOKEN, header secrets — through
// /proc/<pid>/environ, or its memory through ptrace. A non-dumpable
// process's /proc files can be read only with CAP_SYS_PTRACE, which a
// container does not have by default. A process warden starts is dumpable
// again once it executes its program, so nothing else changes.
func hideEnvironment() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", errno)
	}
	return nil
}

// dumpable reports the process's dumpable flag (prctl PR_GET_DUMPABLE).
func dumpable() (bool, error) {
	r, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_DUMPABLE, 0, 0)
	if errno != 0 {
		return false, fmt.Errorf("prctl(PR_GET_DUMPABLE): %w", errno)
	}
	return r != 0, nil
}

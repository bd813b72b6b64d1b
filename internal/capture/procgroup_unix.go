//go:build unix

package capture

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
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

// processParents maps every process visible in /proc to its parent. It is
// empty where there is no /proc (the tree kill is then best-effort: the
// process group kill still applies).
func processParents() map[int]int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parents := make(map[int]int, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces and
		// parentheses, so parse from the last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(data[i+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(string(fields[1])); err == nil {
			parents[pid] = ppid
		}
	}
	return parents
}

// descendants returns every process below root in the process tree,
// whatever their process group or session: a server's child that called
// setsid() has left the group but is still in the tree while its parent
// lives.
func descendants(root int) []int {
	children := map[int][]int{}
	for pid, ppid := range processParents() {
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// killAll ends a server: its process tree and its process group, and
// reaps what was re-parented to warden.
func killAll(pgid int, tree []int) {
	killGroup(pgid)
	killAndReap(tree)
}

// killAndReap sends SIGKILL to each process and reaps those that are
// warden's children (orphans re-parented to warden as subreaper), so that
// none is left a zombie. Processes that are not warden's children are
// reaped by their own parents.
func killAndReap(pids []int) {
	self := os.Getpid()
	var ours []int
	parents := processParents()
	for _, p := range pids {
		if p <= 1 || p == self {
			continue
		}
		_ = syscall.Kill(p, syscall.SIGKILL)
		if parents[p] == self {
			ours = append(ours, p)
		}
	}
	for _, p := range ours {
		done := make(chan struct{})
		go func() {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p, &ws, 0, nil)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(reapGrace):
		}
	}
}

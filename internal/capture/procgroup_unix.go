//go:build unix

package capture

import (
	"bytes"
	"errors"
	"io/fs"
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

// childrenOf lists the children of pid from /proc/PID/task/*/children,
// which costs a read per thread rather than one per process on the machine.
// ok is false where the kernel does not offer those files; a pid that is
// gone has no children.
func childrenOf(pid int) (kids []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, errors.Is(err, fs.ErrNotExist) && procExists()
	}
	for _, t := range tasks {
		data, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if errors.Is(err, fs.ErrNotExist) {
			if _, terr := os.Stat(dir + "/" + t.Name()); terr == nil {
				return nil, false // no such file for a live thread: not offered
			}
			continue // the thread ended meanwhile
		}
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(data) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				kids = append(kids, c)
			}
		}
	}
	return kids, true
}

// procExists reports whether /proc is there to be read at all.
func procExists() bool {
	_, err := os.Stat("/proc/self/task")
	return err == nil
}

// descendants returns every process below root in the process tree,
// whatever their process group or session: a server's child that called
// setsid() has left the group but is still in the tree while its parent
// lives. It walks the children files, and falls back to reading every
// process's parent where the kernel has none.
func descendants(root int) []int {
	if out, ok := walkTree(root, childrenOf); ok {
		return out
	}
	children := map[int][]int{}
	for pid, ppid := range processParents() {
		children[ppid] = append(children[ppid], pid)
	}
	out, _ := walkTree(root, func(p int) ([]int, bool) { return children[p], true })
	return out
}

// walkTree lists the processes below root, breadth first, asking kids for
// each one's children; it gives up (ok false) when kids does.
func walkTree(root int, kids func(int) ([]int, bool)) (out []int, ok bool) {
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		cs, ok := kids(p)
		if !ok {
			return nil, false
		}
		for _, c := range cs {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out, true
}

// ownChildren returns this process's children.
func ownChildren() []int {
	if kids, ok := childrenOf(os.Getpid()); ok {
		return kids
	}
	self := os.Getpid()
	var kids []int
	for pid, ppid := range processParents() {
		if ppid == self {
			kids = append(kids, pid)
		}
	}
	return kids
}

// killAll ends a server: its process tree and its process group. With
// reap set (warden is a subreaper), what was re-parented to warden is
// reaped too.
func killAll(pgid int, tree []int, reap bool) {
	killGroup(pgid)
	killAndReap(tree, reap)
}

// killAndReap sends SIGKILL to each process and, with reap set, reaps those
// that are warden's children (orphans re-parented to warden as subreaper),
// so that none is left a zombie. Processes that are not warden's children
// are reaped by their own parents; without a subreaper none of a tree is.
func killAndReap(pids []int, reap bool) {
	killPids(pids)
	if reap {
		reapOwn(pids)
	}
}

// killPids sends SIGKILL to each process, never to init or to warden.
func killPids(pids []int) {
	self := os.Getpid()
	for _, p := range pids {
		if p > 1 && p != self {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// reapOwn waits for each of pids that is this process's child, at most
// reapGrace for each: they were killed, so the wait is for the kernel to
// finish them, not for them to exit of their own accord.
func reapOwn(pids []int) {
	if len(pids) == 0 {
		return
	}
	mine := map[int]bool{}
	for _, c := range ownChildren() {
		mine[c] = true
	}
	for _, p := range pids {
		if !mine[p] {
			continue
		}
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

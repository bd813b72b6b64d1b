package capture

import (
	"sync"
)

// Reaper ends the processes a stdio server leaves behind outside its
// process group: a child that called setsid(), or a daemon that
// double-forked so that its parent exited. On Linux it makes warden a child
// subreaper, so that such orphans are re-parented to warden instead of to
// init, and after each capture it kills every orphan that is not the leader
// of a capture still running.
//
// Being a subreaper is a property of the whole process, so there should be
// one Reaper per process, created by the program's entry point and shared
// by every capture (Options.Reaper). A process that also starts children of
// its own (a test binary running fixture servers) must not use one: the
// sweep cannot tell its children from orphans.
type Reaper struct {
	mu      sync.Mutex
	leaders map[int]int // pid of a running capture's server → count
	enabled bool
}

// NewReaper makes the calling process a child subreaper where the system
// supports it (Linux) and returns the Reaper that sweeps its orphans. On
// other systems the Reaper does nothing beyond what every capture does
// anyway: killing the server's process group and its process tree.
func NewReaper() *Reaper {
	return &Reaper{leaders: map[int]int{}, enabled: becomeSubreaper()}
}

// Enabled reports whether orphans are re-parented to this process.
func (r *Reaper) Enabled() bool { return r != nil && r.enabled }

// started records a capture's server leader, which a sweep must spare.
func (r *Reaper) started(pid int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.leaders[pid]++
	r.mu.Unlock()
}

// finished forgets a leader and kills every orphan re-parented to this
// process that is not the leader of another running capture.
//
// The sweep runs under startMu, and takes the set of leaders to spare only
// once it holds it: a server is started and registered under the same lock
// (startLeader), so every child the sweep sees is either a registered
// leader or an orphan, never a server forked a moment ago by a capture
// that has not registered it yet. The killed orphans are reaped after the
// lock is released: they stay this process's zombies until then, so their
// pids cannot be reused meanwhile, and a slow reap does not hold up starts.
func (r *Reaper) finished(pid int) {
	if r == nil {
		return
	}
	startMu.Lock()
	r.mu.Lock()
	if r.leaders[pid]--; r.leaders[pid] <= 0 {
		delete(r.leaders, pid)
	}
	spare := make(map[int]bool, len(r.leaders))
	for p := range r.leaders {
		spare[p] = true
	}
	r.mu.Unlock()
	var orphans []int
	if r.enabled {
		for _, p := range ownChildren() {
			if !spare[p] && p != pid {
				orphans = append(orphans, p)
			}
		}
		killPids(orphans)
	}
	startMu.Unlock()
	reapOwn(orphans)
}

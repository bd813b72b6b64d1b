package capture

import (
	"context"
	"sync"
	"time"
)

// probePoll is how often a probe whose timer ran out checks whether the
// server has read it yet.
const probePoll = 50 * time.Millisecond

// readGrace is how long a server that read the probe only after the probe
// timer ran out has to answer it: a server that is listening answers in
// milliseconds, so a few seconds tell a slow start from a server that
// ignores the request.
func readGrace(wait time.Duration) time.Duration {
	return min(max(wait/3, time.Second), 3*time.Second)
}

// probeContext is the context of the era probe on a stdio server. It is done
// when its parent is, or when the probe timer runs out; then Err reports
// context.DeadlineExceeded, as a deadline would.
type probeContext struct {
	context.Context
	done  chan struct{}
	heard chan struct{}
	once  sync.Once
	mu    sync.Mutex
	err   error
}

// spoke tells the probe timer that a message arrived from the server while
// warden waited for the probe's reply: a server that is talking (start-up
// logs, a flood of notifications or pings) is not silent, so silence is
// counted again from that message.
func (p *probeContext) spoke() {
	select {
	case p.heard <- struct{}{}:
	default:
	}
}

// heardFrom calls spoke when ctx is a probe's context.
func heardFrom(ctx context.Context) {
	if p, ok := ctx.(*probeContext); ok {
		p.spoke()
	}
}

func (p *probeContext) Done() <-chan struct{} { return p.done }

func (p *probeContext) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *probeContext) end(err error) {
	p.once.Do(func() {
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(p.done)
	})
}

// probeWait returns the probe's context and the function that releases it.
// The timer runs out at until; but while unread reports that the probe still
// sits unread in the server's stdin pipe, the server has not started
// listening (a package runner still downloading it, a slow start), which is
// not the silence of a server that ignores the request: the timer then waits
// until the server reads the probe and gives it grace to answer. The parent's
// deadline bounds all of it. unread may be nil where the pipe cannot be
// inspected. Each message the server sends meanwhile (see spoke) moves the
// end to at least grace after it, so only grace without a word is silence.
func probeWait(parent context.Context, until time.Time, grace time.Duration, unread func() bool) (context.Context, func()) {
	p := &probeContext{Context: parent, done: make(chan struct{}), heard: make(chan struct{}, 1)}
	stop := make(chan struct{})
	var stopOnce sync.Once
	release := func() {
		stopOnce.Do(func() { close(stop) })
		p.end(context.Canceled)
	}
	go func() {
		wait := func(d time.Duration) bool {
			end := time.Now().Add(d)
			t := time.NewTimer(d)
			defer t.Stop()
			for {
				select {
				case <-parent.Done():
					p.end(parent.Err())
					return false
				case <-stop:
					return false
				case <-p.heard:
					if time.Until(end) < grace {
						end = time.Now().Add(grace)
						t.Reset(grace)
					}
				case <-t.C:
					return true
				}
			}
		}
		if !wait(time.Until(until)) {
			return
		}
		if unread != nil && unread() {
			for unread() {
				if !wait(probePoll) {
					return
				}
			}
			if !wait(grace) {
				return
			}
		}
		p.end(context.DeadlineExceeded)
	}()
	return p, release
}

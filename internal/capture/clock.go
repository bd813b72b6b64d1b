package capture

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultStartupTimeout is how long a stdio server may take to start (until
// it reads its input) without using up Options.Timeout: long enough for a
// package runner's first download of the server on a cold cache.
const DefaultStartupTimeout = 2 * time.Minute

// clockTick is how often the capture's clock looks at the server.
const clockTick = 100 * time.Millisecond

// Progress lines come after progressFirst of waiting, then every
// progressEvery.
const (
	progressFirst = 5 * time.Second
	progressEvery = 10 * time.Second
)

// clock is a capture's deadline. It runs out Options.Timeout after the
// capture began, plus the time its stdio servers spent starting: from a
// spawn until the server first reads what warden wrote to it, it has not
// begun to speak MCP (npx or uvx may still be downloading it), and that
// time is bounded by Options.StartupTimeout instead, over the whole
// capture. While warden waits it reports progress, if asked.
type clock struct {
	parent context.Context
	done   chan struct{}
	stop   chan struct{}

	timeout, startup time.Duration
	progress         func(string)
	name             string

	mu      sync.Mutex
	err     error
	start   time.Time
	paused  time.Duration
	conn    *stdioConn
	started bool // conn has read what warden wrote
	stage   string
	since   time.Time // when warden began waiting for stage
	told    time.Time // the last progress line
}

// newClock starts the clock of a capture.
func newClock(parent context.Context, cfg *config) *clock {
	now := time.Now()
	c := &clock{
		parent: parent, done: make(chan struct{}), stop: make(chan struct{}),
		timeout: cfg.Timeout, startup: cfg.StartupTimeout, progress: cfg.Progress,
		name: oneLine(cfg.display, 80), start: now, since: now,
	}
	go c.run()
	return c
}

func (c *clock) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.start.Add(c.timeout + c.paused), true
}

func (c *clock) Done() <-chan struct{} { return c.done }

func (c *clock) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *clock) Value(key any) any { return c.parent.Value(key) }

// release stops the clock; its context is then cancelled.
func (c *clock) release() {
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	c.end(context.Canceled)
}

func (c *clock) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
}

// watch makes conn the stdio server whose start-up the clock waits out.
func (c *clock) watch(conn *stdioConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn, c.started = conn, false
}

// waiting notes what warden now waits for, for the progress lines.
func (c *clock) waiting(stage string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stage, c.since = stage, time.Now()
}

// startupSpent reports whether the capture ran out of start-up time with a
// server that never read its input.
func (c *clock) startupSpent() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn != nil && !c.started && c.paused >= c.startup
}

func (c *clock) run() {
	t := time.NewTicker(clockTick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-c.parent.Done():
			c.end(c.parent.Err())
			return
		case <-c.stop:
			return
		case now := <-t.C:
			if c.tick(now, now.Sub(last)) {
				c.end(context.DeadlineExceeded)
				return
			}
			last = now
		}
	}
}

// tick advances the clock by d and reports whether the deadline passed.
func (c *clock) tick(now time.Time, d time.Duration) bool {
	c.mu.Lock()
	conn, started := c.conn, c.started
	c.mu.Unlock()
	// The pipe is looked at without the lock: it is a system call.
	starting := conn != nil && !started && conn.wrote.Load() && conn.probeUnread()
	read := conn != nil && !started && conn.wrote.Load() && !starting

	c.mu.Lock()
	defer c.mu.Unlock()
	if conn != c.conn {
		return false // a new server since; the next tick looks at it
	}
	switch {
	case read:
		c.started = true
	case starting && c.paused < c.startup:
		c.paused = min(c.paused+d, c.startup)
	}
	if c.progress != nil && now.Sub(c.since) >= progressFirst && now.Sub(c.told) >= progressEvery {
		c.told = now
		c.progress(c.line(now, starting && c.paused < c.startup))
	}
	return now.After(c.start.Add(c.timeout + c.paused))
}

// line is the progress line: what warden waits for, and for how long.
func (c *clock) line(now time.Time, starting bool) string {
	if starting {
		return fmt.Sprintf("waiting for MCP server '%s' to start (it has not read its input yet; a package runner may be downloading it): %s so far, up to %s for its start-up",
			c.name, seconds(c.paused), seconds(c.startup))
	}
	stage := c.stage
	if stage == "" {
		stage = "its first reply"
	}
	return fmt.Sprintf("waiting for MCP server '%s' to answer %s: %s so far (the timeout is %s)",
		c.name, stage, seconds(now.Sub(c.since)), seconds(c.timeout))
}

// seconds writes d in whole seconds.
func seconds(d time.Duration) string {
	return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + " s"
}

// wroteFlag is embedded in stdioConn: whether warden has written anything to
// the server yet.
type wroteFlag struct{ wrote atomic.Bool }

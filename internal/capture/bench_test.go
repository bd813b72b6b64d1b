//go:build unix

package capture

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
	"github.com/wardenlock/warden/internal/testserver"
)

// cpuTime returns the user+system CPU time of this process (who =
// RUSAGE_SELF) or of its reaped children (RUSAGE_CHILDREN).
func cpuTime(b *testing.B, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCaptureSDKServer1000Tools captures 1,000 tools over 10 pages from
// the Go SDK server, process start and shutdown included. Besides ns/op it
// reports warden's own CPU time and the server's, so that warden's share can
// be told apart from the server's.
func BenchmarkCaptureSDKServer1000Tools(b *testing.B) {
	argv := []string{testserver.Build(b, sdkPkg), "-tools", "1000", "-page-size", "100"}
	ctx := context.Background()
	self0, child0 := cpuTime(b, syscall.RUSAGE_SELF), cpuTime(b, syscall.RUSAGE_CHILDREN)
	for b.Loop() {
		s, err := Capture(ctx, Options{Argv: argv})
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Tools) != 1000 {
			b.Fatalf("captured %d tools", len(s.Tools))
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64((cpuTime(b, syscall.RUSAGE_SELF)-self0).Microseconds())/1000/n, "warden-cpu-ms/op")
	b.ReportMetric(float64((cpuTime(b, syscall.RUSAGE_CHILDREN)-child0).Microseconds())/1000/n, "server-cpu-ms/op")
}

// timedConn measures how long the session spends blocked waiting for the
// server, as opposed to working.
type timedConn struct {
	conn
	waiting time.Duration
}

func (t *timedConn) recv(ctx context.Context) (*jsonv.Value, error) {
	start := time.Now()
	v, err := t.conn.recv(ctx)
	t.waiting += time.Since(start)
	return v, err
}

// BenchmarkSessionBreakdown runs the same capture as above in its parts:
// spawn, handshake and shutdown, the handshake split into the time the
// session goroutine is blocked in recv (the server working, the pipe, and
// warden's reader goroutine splitting and parsing lines) and the rest
// (building requests, validating items, checking duplicates).
func BenchmarkSessionBreakdown(b *testing.B) {
	argv := []string{testserver.Build(b, sdkPkg), "-tools", "1000", "-page-size", "100"}
	cfg, err := configure(Options{Argv: argv})
	if err != nil {
		b.Fatal(err)
	}
	var spawn, waiting, working, shutdown time.Duration
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
		t0 := time.Now()
		sc, err := startStdio(ctx, cfg, &budget{limit: cfg.MaxTotalBytes})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		tc := &timedConn{conn: sc}
		s := &session{c: tc, cfg: cfg}
		var surf *surface.Surface
		version, caps, err := s.legacyHandshake(ctx)
		if err == nil {
			surf, err = s.lists(ctx, version, caps)
		}
		t2 := time.Now()
		sc.close(err == nil)
		t3 := time.Now()
		cancel()
		if err != nil || len(surf.Tools) != 1000 {
			b.Fatalf("capture: %v", err)
		}
		spawn += t1.Sub(t0)
		waiting += tc.waiting
		working += t2.Sub(t1) - tc.waiting
		shutdown += t3.Sub(t2)
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n }
	b.ReportMetric(ms(spawn), "spawn-ms/op")
	b.ReportMetric(ms(waiting), "wait-recv-ms/op")
	b.ReportMetric(ms(working), "session-other-ms/op")
	b.ReportMetric(ms(shutdown), "shutdown-ms/op")
}

// BenchmarkCaptureHostileManyTools captures a server that lists 1.2 million
// minimal tools over 4 pages (about 58 MB, inside the byte and page bounds
// before items were charged) and reports the peak heap the refusal costs.
// Before the item limit and the per-value and per-item charges, the same
// server ran the machine out of memory.
func BenchmarkCaptureHostileManyTools(b *testing.B) {
	argv := []string{testserver.Build(b, rawPkg), "-mode", "many-tools", "-tools", "1200000", "-pages", "4"}
	var peakMiB float64
	for b.Loop() {
		var err error
		before, _, peak := measureHeap(func() {
			_, err = Capture(context.Background(), Options{Argv: argv})
		})
		var e *Error
		if !errors.As(err, &e) {
			b.Fatalf("capture was not refused: %v", err)
		}
		peakMiB = max(peakMiB, float64(peak-before.HeapInuse)/(1<<20))
	}
	b.ReportMetric(peakMiB, "peak-heap-MiB")
}

package capture

import (
	"context"
	"testing"
	"time"
)

// TestProbeWaitSilence holds the probe timer to silence: it runs out at its
// end when the server says nothing, while a server that keeps sending
// messages moves the end to grace after each one, so it runs out only grace
// after the last.
func TestProbeWaitSilence(t *testing.T) {
	t.Parallel()
	const grace = 300 * time.Millisecond
	for _, tc := range []struct {
		name string
		talk time.Duration // how long the server keeps sending
	}{
		{name: "silent", talk: 0},
		{name: "talking", talk: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			end := 200 * time.Millisecond
			ctx, release := probeWait(context.Background(), start.Add(end), grace, nil)
			defer release()
			for time.Since(start) < tc.talk {
				// The timer moves when it takes the message in, after this
				// reading of the clock, so it cannot run out before grace
				// after it.
				end = max(end, time.Since(start)+grace)
				heardFrom(ctx)
				time.Sleep(20 * time.Millisecond)
			}
			<-ctx.Done()
			if took := time.Since(start); took < end {
				t.Errorf("probe timer ran out after %v, want at least %v", took, end)
			}
			if err := ctx.Err(); err != context.DeadlineExceeded {
				t.Errorf("Err() = %v, want context.DeadlineExceeded", err)
			}
		})
	}
}

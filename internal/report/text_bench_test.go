package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
)

// BenchmarkWritePinText writes the pin result of a 10,000-tool lock with a
// finding per tool, as pin prints it after a large pin.
func BenchmarkWritePinText(b *testing.B) {
	fs := make([]lock.Finding, 10000)
	for i := range fs {
		fs[i] = lock.Finding{Severity: "medium", RuleID: "WRD-CAP-FS-READ", Target: fmt.Sprintf("tools/tool_%05d_read_file", i), Snippet: "name token 'read'"}
	}
	l := &lock.Lock{OverallDigest: "sha256:0123"}
	b.ReportAllocs()
	for b.Loop() {
		if err := WritePinText(io.Discard, "warden.lock", l, fs); err != nil {
			b.Fatal(err)
		}
	}
}

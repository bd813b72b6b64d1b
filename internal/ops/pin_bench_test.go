package ops

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
)

// BenchmarkPinSurfaceRealistic pins the realistic 10,000-tool surface
// (benchdata.Realistic) in process, without a snapshot, as procbench's
// BenchmarkPinSurface10k does in a whole process: for profiles of the
// streamed pin (go test -bench PinSurfaceRealistic -cpuprofile).
func BenchmarkPinSurfaceRealistic(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "surface.json")
	data := benchdata.Realistic(10000, benchdata.RealisticResources, benchdata.RealisticPrompts, nil)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	lockPath := filepath.Join(dir, "warden.lock")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Pin(context.Background(), PinOptions{Surface: path, LockPath: lockPath, Version: "bench", NoSnapshot: true}); err != nil {
			b.Fatal(err)
		}
	}
}

package ops

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
)

// everyThousandth is a changed set for benchdata.Realistic: ten of
// 10,000 tools.
func everyThousandth(i int) bool { return i%1000 == 0 }

// pinRealistic writes the realistic 10,000-tool surface, with the tools
// of changed changed (nil: none), and pins it without a snapshot; it
// returns the surface's and the lock's paths.
func pinRealistic(b *testing.B, dir, name string, changed func(int) bool) (surfacePath, lockPath string) {
	b.Helper()
	surfacePath = filepath.Join(dir, name+".json")
	data := benchdata.Realistic(10000, benchdata.RealisticResources, benchdata.RealisticPrompts, changed)
	if err := os.WriteFile(surfacePath, data, 0o644); err != nil {
		b.Fatal(err)
	}
	lockPath = filepath.Join(dir, name+".lock")
	if _, err := Pin(context.Background(), PinOptions{Surface: surfacePath, LockPath: lockPath, Version: "bench", NoSnapshot: true}); err != nil {
		b.Fatal(err)
	}
	return surfacePath, lockPath
}

// BenchmarkDiffRealistic diffs two locks of the realistic 10,000-tool
// surface, ten tools changed structurally, in process: for profiles of
// reading and verifying locks (go test -bench DiffRealistic -cpuprofile).
func BenchmarkDiffRealistic(b *testing.B) {
	dir := b.TempDir()
	_, a := pinRealistic(b, dir, "a", nil)
	_, c := pinRealistic(b, dir, "b", everyThousandth)
	for b.Loop() {
		res, err := Diff(context.Background(), a, c)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Drift) == 0 {
			b.Fatal("no drift")
		}
	}
}

// BenchmarkCheckSurfaceRealistic checks the realistic 10,000-tool surface
// against its own lock (clean), in process.
func BenchmarkCheckSurfaceRealistic(b *testing.B) {
	dir := b.TempDir()
	s, l := pinRealistic(b, dir, "a", nil)
	for b.Loop() {
		res, err := Check(context.Background(), CheckOptions{Surface: s, LockPath: l})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Drift) != 0 {
			b.Fatal("drift")
		}
	}
}

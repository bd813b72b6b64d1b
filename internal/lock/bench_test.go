package lock

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// genSurfaceJSON builds the surface JSON of n generated tools (see
// package benchdata).
func genSurfaceJSON(n int) []byte { return benchdata.Surface(n, nil) }

func benchBuild(b *testing.B, n int) {
	data := genSurfaceJSON(n)
	v, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		b.Fatal(err)
	}
	// Peak heap growth during one build, sampled outside the timed loop:
	// HeapInuse is read every millisecond while Build runs.
	peak := peakHeapDuring(func() {
		if _, err := Build(s); err != nil {
			b.Fatal(err)
		}
	})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Build(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data))/1e6, "surfaceMB")
	b.ReportMetric(float64(peak)/float64(len(data)), "peakheap/surface")
}

// peakHeapDuring runs f and returns the largest HeapInuse growth over the
// value before it, sampled every millisecond.
func peakHeapDuring(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > peak.Load() {
				peak.Store(m.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return peak.Load()
}

func BenchmarkBuild1k(b *testing.B)  { benchBuild(b, 1000) }
func BenchmarkBuild10k(b *testing.B) { benchBuild(b, 10000) }

// BenchmarkBuildToolText is pin --surface's per-tool lock work on 1,000
// generated tools: BuildToolText of each (analysed outside the timed
// loop) into one reused buffer, the entries kept only as names and
// digests.
func BenchmarkBuildToolText(b *testing.B) {
	data := genSurfaceJSON(1000)
	v, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		b.Fatal(err)
	}
	as := make([]*caps.Analysis, len(s.Tools))
	for i, t := range s.Tools {
		as[i] = caps.Analyze(t.Name, t.InputSchema)
	}
	bl := NewBuilder()
	var text []byte
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for i, t := range s.Tools {
			if _, text, err = bl.BuildToolText(t, as[i], text[:0], nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func benchReadVerify(b *testing.B, n int) {
	v, err := jsonv.Parse(genSurfaceJSON(n), jsonv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		b.Fatal(err)
	}
	l, err := Build(s)
	if err != nil {
		b.Fatal(err)
	}
	text := Marshal(l)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		got, err := Parse(text)
		if err != nil {
			b.Fatal(err)
		}
		if err := Verify(got); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadVerify1k(b *testing.B)  { benchReadVerify(b, 1000) }
func BenchmarkReadVerify10k(b *testing.B) { benchReadVerify(b, 10000) }

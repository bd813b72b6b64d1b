package lock

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

var words = strings.Fields("read write the file path to a directory from remote server and return its contents as text with optional encoding überprüfen données 日本語 fetch query records limit offset sort order by field name value")

func sentence(r *rand.Rand, minChars, maxChars int) string {
	n := minChars + r.IntN(maxChars-minChars+1)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// genSurfaceJSON builds the tools/list-style surface JSON of n tools with
// realistic schemas: 10-30 properties, nesting, $defs and $refs, enums,
// constraints, and descriptions of 200-2,000 characters with some non-ASCII.
func genSurfaceJSON(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString(`{"command": "node", "args": ["server.js"], "tools": [`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name": "tool_%05d_read_file", "description": %q, "inputSchema": {"type": "object", "$defs": {"mode": {"type": "string", "enum": ["fast", "safe", "thorough"], "maxLength": 16}}, "properties": {`, i, sentence(r, 200, 2000))
		props := 10 + r.IntN(21)
		for p := 0; p < props; p++ {
			if p > 0 {
				b.WriteByte(',')
			}
			desc := sentence(r, 20, 120)
			switch p % 5 {
			case 0:
				fmt.Fprintf(&b, `"path_%d": {"type": "string", "description": %q, "maxLength": %d, "pattern": "^[a-z/]+$"}`, p, desc, 64+p)
			case 1:
				fmt.Fprintf(&b, `"limit_%d": {"type": "integer", "minimum": 1, "maximum": %d.0, "description": %q}`, p, 100+p, desc)
			case 2:
				fmt.Fprintf(&b, `"mode_%d": {"$ref": "#/$defs/mode"}`, p)
			case 3:
				fmt.Fprintf(&b, `"opts_%d": {"type": "object", "additionalProperties": false, "properties": {"deep": {"type": ["string", "null"], "enum": ["a", "b", null, 1, 2.5]}, "list": {"type": "array", "items": {"type": "string", "format": "uri"}}}}`, p)
			default:
				fmt.Fprintf(&b, `"flag_%d": {"type": "boolean", "default": false, "description": %q}`, p, desc)
			}
		}
		b.WriteString(`}, "required": ["path_0"]}, "annotations": {"readOnlyHint": true}}`)
	}
	b.WriteString(`], "resources": [], "prompts": []}`)
	return []byte(b.String())
}

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

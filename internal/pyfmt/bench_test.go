package pyfmt_test

import (
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/skeleton"
)

// BenchmarkIndentRaw writes the schema skeletons of 100 generated tools
// (package benchdata) from their compact text at a lock's indentation, as
// the lock writer does.
func BenchmarkIndentRaw(b *testing.B) {
	v, err := jsonv.Parse(benchdata.Surface(100, nil), jsonv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var raws []jsonv.Raw
	n := 0
	for _, t := range v.Get("tools").Items {
		r := jsonv.CompactRaw(skeleton.Extract(t.Get("inputSchema")).AppendCompact(nil))
		raws = append(raws, r)
		n += r.Len()
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = buf[:0]
		for _, r := range raws {
			buf = pyfmt.AppendIndentRaw(buf, r, 2, 3)
		}
	}
}

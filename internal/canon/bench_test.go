package canon

import (
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/jsonv"
)

// benchTools returns the description, input schema and annotations of
// generated tools (package benchdata), the values a lock build hashes,
// and sets b's bytes to their canonical text.
func benchTools(b *testing.B, n int) []*jsonv.Value {
	v, err := jsonv.Parse(benchdata.Surface(n, nil), jsonv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var vals []*jsonv.Value
	for _, t := range v.Get("tools").Items {
		for _, k := range []string{"description", "inputSchema", "annotations", "outputSchema"} {
			if f := t.Get(k); f != nil {
				vals = append(vals, f)
			}
		}
	}
	size := 0
	for _, v := range vals {
		c, err := Canonical(v)
		if err != nil {
			b.Fatal(err)
		}
		size += len(c)
	}
	b.SetBytes(int64(size))
	return vals
}

// BenchmarkHashTools hashes every field of 100 generated tools with one
// Hasher, as a lock build does; SetBytes counts their canonical text.
func BenchmarkHashTools(b *testing.B) {
	vals := benchTools(b, 100)
	b.ReportAllocs()
	var h Hasher
	for b.Loop() {
		for _, v := range vals {
			if _, err := h.Hash(v); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkEncodeTools writes the canonical text of the same values as
// BenchmarkHashTools into one reused buffer without hashing it: the part
// of a hash that is not SHA-256.
func BenchmarkEncodeTools(b *testing.B) {
	vals := benchTools(b, 100)
	b.ReportAllocs()
	var e encoder
	for b.Loop() {
		for _, v := range vals {
			e.buf = e.buf[:0]
			if err := e.value(v, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
}

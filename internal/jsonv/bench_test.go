package jsonv_test

import (
	"bytes"
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/jsonv"
)

// BenchmarkDecodeSurface decodes a generated surface of 1,000 tools the way
// `warden pin --surface` reads one: a streaming Decoder over a reader, one
// tool's tree at a time.
//
//	go test ./internal/jsonv -run '^$' -bench DecodeSurface -benchmem
func BenchmarkDecodeSurface(b *testing.B) {
	data := benchdata.Surface(1000, nil)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := jsonv.NewDecoder(bytes.NewReader(data), jsonv.Options{})
		err := d.Object(func(key string) error {
			if key != "tools" {
				return d.Skip()
			}
			return d.Array(func(int) error {
				_, err := d.Value()
				return err
			})
		})
		if err == nil {
			err = d.Finish()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSurface parses the same surface whole from memory, as
// ParseCounted parses a captured reply.
func BenchmarkParseSurface(b *testing.B) {
	data := benchdata.Surface(1000, nil)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := jsonv.ParseCounted(data, jsonv.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendCompact writes every tool of a generated surface as
// compact JSON, the string escaping (AppendQuoted) a lock's hashing and
// writing do for every key and string.
func BenchmarkAppendCompact(b *testing.B) {
	data := benchdata.Surface(1000, nil)
	v, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	tools := v.Get("tools").Items
	var buf []byte
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range tools {
			buf = t.AppendCompact(buf[:0])
		}
	}
}

package jsonv_test

import (
	"bytes"
	"encoding/json"
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

// surfaceTools cuts every tool of a generated surface of n tools with
// RawContainer, as `warden pin --surface` hands them to its workers.
func surfaceTools(tb testing.TB, data []byte) [][]byte {
	tb.Helper()
	var tools [][]byte
	d := jsonv.NewDecoder(bytes.NewReader(data), jsonv.Options{})
	err := d.Object(func(key string) error {
		if key != "tools" {
			return d.Skip()
		}
		return d.Array(func(int) error {
			raw, err := d.RawContainer(nil, 0)
			tools = append(tools, raw)
			return err
		})
	})
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return tools
}

// BenchmarkRawContainerSurface cuts every tool of a generated surface of
// 1,000 tools out of a streaming Decoder, the serial reader stage of
// `warden pin --surface`.
func BenchmarkRawContainerSurface(b *testing.B) {
	benchRawContainer(b, benchdata.Surface(1000, nil))
}

// BenchmarkRawContainerIndented is BenchmarkRawContainerSurface on the
// surface indented by two blanks a level, as a lock file is: most of its
// bytes are blanks between short strings, the reader stage of `warden
// diff` and `check`.
func BenchmarkRawContainerIndented(b *testing.B) {
	var indented bytes.Buffer
	if err := json.Indent(&indented, benchdata.Surface(1000, nil), "", "  "); err != nil {
		b.Fatal(err)
	}
	benchRawContainer(b, indented.Bytes())
}

// benchRawContainer cuts every item of data's tools array out of a
// streaming Decoder.
func benchRawContainer(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		d := jsonv.NewDecoder(bytes.NewReader(data), jsonv.Options{})
		err := d.Object(func(key string) error {
			if key != "tools" {
				return d.Skip()
			}
			return d.Array(func(int) error {
				var err error
				buf, err = d.RawContainer(buf[:0], 4<<20)
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

// BenchmarkParseOverTools parses the cut-out tools of that surface with
// one Parser's ParseOver, each over the last, as a pin worker does.
func BenchmarkParseOverTools(b *testing.B) {
	data := benchdata.Surface(1000, nil)
	tools := surfaceTools(b, data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var p jsonv.Parser
	p.Options.MaxDepth = jsonv.HardMaxDepth - 2
	for b.Loop() {
		for _, t := range tools {
			if _, err := p.ParseOver(t); err != nil {
				b.Fatal(err)
			}
		}
	}
}

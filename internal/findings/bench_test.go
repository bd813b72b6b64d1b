package findings

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// Benchmark inputs. Run with
//
//	go test ./internal/findings -run '^$' -bench ScanField -benchmem
//
// Linear time shows as a constant MB/s across the 256 KiB, 1 MiB and 4 MiB
// sizes of each shape.

const benchAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_=-"

func benchToken(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = benchAlphabet[r.Intn(len(benchAlphabet))]
	}
	return string(b)
}

// fill repeats pieces from next until the text is size bytes long.
func fill(size int, next func() string) string {
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(next())
	}
	return b.String()[:size]
}

var benchShapes = []struct {
	name string
	make func(size int) string
}{
	// Ordinary prose: the common case, nothing to report.
	{"prose", func(size int) string {
		words := strings.Fields("the tool reads a file from the workspace and returns its contents as text with optional line ranges")
		r := rand.New(rand.NewSource(1))
		return fill(size, func() string { return words[r.Intn(len(words))] + " " })
	}},
	// Unrelated random tokens: every one is an entropy hit.
	{"tokens", func(size int) string {
		r := rand.New(rand.NewSource(2))
		return fill(size, func() string { return benchToken(r, 24+r.Intn(24)) + " " })
	}},
	// Tokens that contain each other: every candidate goes through the
	// containment automaton.
	{"related", func(size int) string {
		r := rand.New(rand.NewSource(3))
		base := benchToken(r, 4096)
		return fill(size, func() string {
			a := r.Intn(len(base) - 64)
			return base[a:a+24+r.Intn(40)] + " "
		})
	}},
	// Dense vendor matches.
	{"vendor", func(size int) string {
		r := rand.New(rand.NewSource(4))
		return fill(size, func() string {
			return fmt.Sprintf("sk-%024d AKIAIOSFODNN7EXAMPLE xoxb-123456789012-abc ", r.Int63())
		})
	}},
	// Shapes that make a backtracking regex engine rescan the same run
	// from every candidate.
	{"pathological", func(size int) string {
		half := size / 2
		return (strings.Repeat("-eyJ", half/4) + strings.Repeat("xoxb-", half/5) + strings.Repeat("a", size))[:size]
	}},
}

func BenchmarkScanField(b *testing.B) {
	for _, shape := range benchShapes {
		for _, size := range []int{256 << 10, 1 << 20, 4 << 20} {
			value := shape.make(size)
			b.Run(fmt.Sprintf("%s/%dKiB", shape.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(value)))
				for b.Loop() {
					ScanField(value, "tools/t")
				}
			})
		}
	}
}

// benchSurface is a generated surface of n tools (see package benchdata).
func benchSurface(b *testing.B, n int) *surface.Surface {
	b.Helper()
	v, err := jsonv.Parse(benchdata.Surface(n, nil), jsonv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkScanTools scans the tools of a generated surface as a pin does:
// each tool analysed once (caps.Analyze), its capability flags derived and
// its name, description and schema strings scanned.
//
//	go test ./internal/findings -run '^$' -bench 'ScanTools|MayHold' -benchmem
func BenchmarkScanTools(b *testing.B) {
	s := benchSurface(b, 200)
	b.ReportAllocs()
	for b.Loop() {
		var sc Scanner
		for _, t := range s.Tools {
			schema := t.InputSchema
			if schema != nil && schema.Kind != jsonv.Object {
				schema = nil
			}
			sc.AnalyzedTool(t, caps.Analyze(t.Name, schema))
		}
		sc.Findings()
	}
}

// BenchmarkScanAnalyzedTools is BenchmarkScanTools with the tools
// analysed beforehand: the findings package's own share of a pin's scan.
func BenchmarkScanAnalyzedTools(b *testing.B) {
	s := benchSurface(b, 200)
	analyses := make([]*caps.Analysis, len(s.Tools))
	for i, t := range s.Tools {
		schema := t.InputSchema
		if schema != nil && schema.Kind != jsonv.Object {
			schema = nil
		}
		analyses[i] = caps.Analyze(t.Name, schema)
	}
	b.ReportAllocs()
	for b.Loop() {
		var sc Scanner
		for i, t := range s.Tools {
			sc.AnalyzedTool(t, analyses[i])
		}
		sc.Findings()
	}
}

// BenchmarkMayHoldVendorSecret screens the compact schema skeletons of a
// generated surface's tools, as a pin screens the entries it stores.
func BenchmarkMayHoldVendorSecret(b *testing.B) {
	l, err := lock.Build(benchSurface(b, 200))
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, t := range l.Tools {
		size += len(t.SchemaSkeleton.Text())
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, t := range l.Tools {
			if MayHoldVendorSecret(t.SchemaSkeleton.Text()) {
				b.Fatal("a generated skeleton may hold a secret")
			}
		}
	}
}

// benchEntryTexts renders the lock entries of a generated surface's tools
// as a pin does (lock.Builder.BuildToolText), one text a tool: indented
// JSON of about 10 KB, full of the '_' and '-' of keys, tool and property
// names.
func benchEntryTexts(b *testing.B, n int) [][]byte {
	b.Helper()
	s := benchSurface(b, n)
	lb := lock.NewBuilder()
	var texts [][]byte
	for _, t := range s.Tools {
		schema := t.InputSchema
		if schema != nil && schema.Kind != jsonv.Object {
			schema = nil
		}
		_, text, err := lb.BuildToolText(t, caps.Analyze(t.Name, schema), nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, text)
	}
	return texts
}

// BenchmarkMayHoldVendorSecretBytes screens the rendered lock entries of a
// generated surface's tools, as a pin screens each entry text it has just
// written. An op is one tool's text.
func BenchmarkMayHoldVendorSecretBytes(b *testing.B) {
	texts := benchEntryTexts(b, 64)
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	b.SetBytes(int64(size / len(texts)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if MayHoldVendorSecretBytes(texts[i]) {
			b.Fatal("a generated entry may hold a secret")
		}
		if i++; i == len(texts) {
			i = 0
		}
	}
}

package ops

import (
	"encoding/json"
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// BenchmarkBuildRealisticTools is one pin worker's work on 2,000 tools of
// the realistic surface (benchdata.Realistic), serially: each tool's text
// parsed, analysed, built and rendered as a lock entry, and scanned for
// findings, as toolPool.build does for a streamed pin. It is the CPU
// that pin --surface and check --surface spend per tool, without the
// process, the file and the other core.
func BenchmarkBuildRealisticTools(b *testing.B) {
	data := benchdata.Realistic(2000, 0, 0, nil)
	var doc struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(data, &doc); err != nil {
		b.Fatal(err)
	}
	bl := lock.NewBuilder()
	var tp surface.ToolParser
	var sc findings.Scanner
	var text []byte
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, raw := range doc.Tools {
			t, err := tp.Parse(raw)
			if err != nil {
				b.Fatal(err)
			}
			a := caps.Analyze(t.Name, t.InputSchema)
			if _, text, err = bl.BuildToolText(t, a, text[:0], func(text []byte) bool {
				return findings.MayHoldVendorSecretBytes(text)
			}); err != nil {
				b.Fatal(err)
			}
			sc.AnalyzedTool(t, a)
		}
		sc = findings.Scanner{}
	}
}

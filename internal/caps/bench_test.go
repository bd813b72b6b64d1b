package caps

import (
	"encoding/json"
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/jsonv"
)

// BenchmarkAnalyzeRealistic is the capability analysis of 2,000 tools of
// the realistic surface (names and property names in several scripts), as
// a pin or check runs it for each tool.
func BenchmarkAnalyzeRealistic(b *testing.B) {
	var doc struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(benchdata.Realistic(2000, 0, 0, nil), &doc); err != nil {
		b.Fatal(err)
	}
	names := make([]string, len(doc.Tools))
	schemas := make([]*jsonv.Value, len(doc.Tools))
	for i, t := range doc.Tools {
		v, err := jsonv.Parse(t.InputSchema, jsonv.Options{})
		if err != nil {
			b.Fatal(err)
		}
		names[i], schemas[i] = t.Name, v
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range names {
			Analyze(names[i], schemas[i])
		}
	}
}

package drift

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// benchSchema returns a realistic input schema for tool i: 6–12 properties
// mixing strings with bounds and patterns, enums, integers, arrays of
// strings and a nested object. When changed is set the schema differs
// structurally: a bound raised, a type broadened, an enum dropped and a
// property added.
func benchSchema(i int, changed bool) string {
	var props []string
	var required []string
	n := 6 + i%7
	for k := 0; k < n; k++ {
		name := fmt.Sprintf("p%d", k)
		var p string
		switch k % 5 {
		case 0:
			maxLen := 64
			if changed {
				maxLen = 4096
			}
			p = fmt.Sprintf(`{"type": "string", "description": "Field %d of tool %d.", "maxLength": %d, "minLength": 1}`, k, i, maxLen)
			required = append(required, `"`+name+`"`)
		case 1:
			typ := `"string"`
			if changed {
				typ = `["string", "null"]`
			}
			p = `{"type": ` + typ + `, "pattern": "^[a-z0-9_-]+$", "format": "hostname"}`
		case 2:
			if changed {
				p = `{"type": "string"}`
			} else {
				p = `{"type": "string", "enum": ["read", "write", "append", "delete"]}`
			}
		case 3:
			p = `{"type": "array", "items": {"type": "string", "maxLength": 256}, "maxItems": 32}`
		case 4:
			p = `{"type": "object", "properties": {"key": {"type": "string"}, "value": {"type": "integer", "minimum": 0, "maximum": 1000}}, "required": ["key"], "additionalProperties": false}`
		}
		props = append(props, `"`+name+`": `+p)
	}
	if changed {
		props = append(props, `"extra": {"type": "string"}`)
	}
	return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "required": [` + strings.Join(required, ", ") + `], "additionalProperties": false}`
}

// benchLocks builds a baseline and a current lock of n tools in which every
// tenth tool changed structurally.
func benchLocks(b *testing.B, n int) (*lock.Lock, *lock.Lock) {
	b.Helper()
	build := func(changed bool) *lock.Lock {
		var tools []string
		for i := 0; i < n; i++ {
			c := changed && i%10 == 0
			tools = append(tools, fmt.Sprintf(`{"name": "tool_%05d", "description": "Does thing %d.", "inputSchema": %s}`, i, i, benchSchema(i, c)))
		}
		s, err := surface.FromVector(js(b, `{"command": "node", "args": ["server.js"], "tools": [`+strings.Join(tools, ", ")+`], "resources": [], "prompts": []}`))
		if err != nil {
			b.Fatal(err)
		}
		l, err := lock.Build(s)
		if err != nil {
			b.Fatal(err)
		}
		return l
	}
	return build(false), build(true)
}

var benchCache sync.Map // n → [2]*lock.Lock

func BenchmarkCompare(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			var base, cur *lock.Lock
			if v, ok := benchCache.Load(n); ok {
				pair := v.([2]*lock.Lock)
				base, cur = pair[0], pair[1]
			} else {
				base, cur = benchLocks(b, n)
				benchCache.Store(n, [2]*lock.Lock{base, cur})
			}
			items := Compare(base, cur)
			// 10% of tools changed; each yields several schema items.
			if len(items) < n/10 {
				b.Fatalf("only %d items for %d changed tools", len(items), n/10)
			}
			b.ReportAllocs()
			cpu0, cpuOK := processCPU()
			n := 0
			for b.Loop() {
				Compare(base, cur)
				n++
			}
			if cpu1, ok := processCPU(); cpuOK && ok && n > 0 {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(n), "cpu-ns/op")
			}
		})
	}
}

// TestBenchFixture keeps the benchmark's fixture honest: a changed tool
// yields exactly the structural items its schema change implies.
func TestBenchFixture(t *testing.T) {
	build := func(changed bool) *lock.Lock {
		s, err := surface.FromVector(js(t, `{"command": "node", "args": [], "tools": [{"name": "x", "inputSchema": `+benchSchema(5, changed)+`}], "resources": [], "prompts": []}`))
		if err != nil {
			t.Fatal(err)
		}
		l, err := lock.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	got := itemStrings(Compare(build(false), build(true)))
	// Tool 5 has 11 properties: p0, p5, p10 carry maxLength, p1, p6 a
	// type, p2, p7 an enum.
	want := []string{
		"schema-constraint-relaxed|medium|tools/x|maxLength 64→4096",
		"schema-constraint-relaxed|medium|tools/x|maxLength 64→4096",
		"schema-constraint-relaxed|medium|tools/x|maxLength 64→4096",
		"schema-enum-removed|high|tools/x|enum removed",
		"schema-enum-removed|high|tools/x|enum removed",
		"schema-type-broadened|high|tools/x|type ['string']→['null', 'string']",
		"schema-type-broadened|high|tools/x|type ['string']→['null', 'string']",
		"schema-unconstrained-added|high|tools/x|new optional unconstrained",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

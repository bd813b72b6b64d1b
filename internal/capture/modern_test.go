//go:build unix

package capture

import (
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/surface"
	"github.com/wardenlock/warden/internal/testserver"
)

// modernScript returns the TypeScript SDK 2.x fixture, skipping without node.
func modernScript(t *testing.T) string {
	t.Helper()
	return testserver.NodeScript(t, testserver.ModernServerJS)
}

// modernTarget is one way of reaching the TypeScript SDK 2.x fixture.
type modernTarget struct {
	name string
	opts func(t *testing.T) Options
}

func modernTargets(script, mode string) []modernTarget {
	return []modernTarget{
		{"stdio", func(*testing.T) Options { return Options{Argv: []string{"node", script, "-mode", mode}} }},
		{"http", func(t *testing.T) Options {
			return Options{URL: testserver.StartHTTP(t, "node", script, "-mode", mode)}
		}},
	}
}

// TestCaptureModernOnlyServer captures a server on the official TypeScript
// SDK 2.4.0 in strict mode (legacy: 'reject'), which refuses initialize: the
// probe must find it modern, over stdio and HTTP alike, with the same items.
func TestCaptureModernOnlyServer(t *testing.T) {
	t.Parallel()
	script := modernScript(t)
	var first []string
	for _, tc := range modernTargets(script, "strict") {
		t.Run(tc.name, func(t *testing.T) {
			s := mustCapture(t, tc.opts(t))
			if s.ProtocolVersion != ModernProtocolVersion {
				t.Errorf("ProtocolVersion = %q, want %q", s.ProtocolVersion, ModernProtocolVersion)
			}
			got := render(s)
			wantModernSurface(t, s)
			if first == nil {
				first = got
			} else {
				equalLines(t, got, first)
			}
		})
	}
}

// wantModernSurface checks the fixture's items as the modern era sends them.
func wantModernSurface(t *testing.T, s *surface.Surface) {
	t.Helper()
	var names []string
	for _, tool := range s.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "echo,read_file,numbers" || len(s.Resources) != 1 || len(s.Prompts) != 1 {
		t.Fatalf("surface = tools %v, %d resources, %d prompts", names, len(s.Resources), len(s.Prompts))
	}
	if got := compact(s.Tools[2].OutputSchema); got != `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"type":"number"}}` {
		t.Errorf("numbers outputSchema = %s", got)
	}
	if got := compact(s.Tools[0].Annotations); got != `{"readOnlyHint":true,"openWorldHint":false}` {
		t.Errorf("echo annotations = %s", got)
	}
}

// TestCaptureModernServerBothEras captures the same SDK server in dual mode
// in both eras. Every item is byte-identical except the one the SDK itself
// sends differently per era: a non-object outputSchema, which the 2025-era
// codec wraps in {"type":"object","properties":{"result":...}}.
func TestCaptureModernServerBothEras(t *testing.T) {
	t.Parallel()
	script := modernScript(t)
	for _, tc := range modernTargets(script, "dual") {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := tc.opts(t)
			auto := mustCapture(t, o)
			if auto.ProtocolVersion != ModernProtocolVersion {
				t.Errorf("auto: ProtocolVersion = %q, want %q", auto.ProtocolVersion, ModernProtocolVersion)
			}
			wantModernSurface(t, auto)
			o.Protocol = ProtocolLegacy
			old := mustCapture(t, o)
			if old.ProtocolVersion != "2025-11-25" {
				t.Errorf("legacy: ProtocolVersion = %q", old.ProtocolVersion)
			}
			a, b := render(auto), render(old)
			if len(a) != len(b) {
				t.Fatalf("eras differ in size:\n%s\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
			}
			for i := range a {
				if a[i] == b[i] {
					continue
				}
				if !strings.HasPrefix(a[i], "tool numbers ") ||
					!strings.Contains(b[i], `out={"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"result":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"type":"number"}}},"required":["result"]}`) {
					t.Errorf("eras differ beyond the wrapped outputSchema:\nmodern %s\nlegacy %s", a[i], b[i])
				}
			}
		})
	}
}

// TestCaptureForcedEra covers --protocol: legacy against a modern-only
// server fails with a hint, modern against a 2025-era server fails naming
// the probe, and modern against the modern server works.
func TestCaptureForcedEra(t *testing.T) {
	t.Parallel()
	script := modernScript(t)
	for _, tc := range modernTargets(script, "strict") {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := tc.opts(t)
			o.Protocol = ProtocolLegacy
			_, err := run(t, o)
			wantFailure(t, err, Failed, "initialize: ", "-32022", "the server speaks only 2026-07-28 (use --protocol auto or modern)")
			o.Protocol = ProtocolModern
			s := mustCapture(t, o)
			wantModernSurface(t, s)
		})
	}
	t.Run("modern-against-legacy", func(t *testing.T) {
		t.Parallel()
		_, err := run(t, Options{Argv: raw(t, "clean"), Protocol: ProtocolModern})
		wantFailure(t, err, Failed, "server/discover: server answered JSON-RPC error -32601")
	})
}

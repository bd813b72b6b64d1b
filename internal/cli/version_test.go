package cli

import (
	"runtime/debug"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/wardenlock/warden", Version: v}}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	tests := []struct {
		name    string
		stamped string
		read    func() (*debug.BuildInfo, bool)
		want    string
	}{
		{"release stamped by ldflags", "v1.4.0", info("(devel)"), "1.4.0"},
		{"stamped without v", "1.4.0", none, "1.4.0"},
		{"stamp wins over build info", "1.4.0", info("v1.3.9"), "1.4.0"},
		{"go install module@v1.4.0", "dev", info("v1.4.0"), "1.4.0"},
		{"go install from a pseudo-version", "dev", info("v0.0.0-20261101120000-abcdef123456"), "0.0.0-20261101120000-abcdef123456"},
		{"local build", "dev", info("(devel)"), "dev"},
		{"empty build info", "", info(""), "dev"},
		{"no build info", "dev", none, "dev"},
		{"nil reader", "", nil, "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResolveVersion(tt.stamped, tt.read); got != tt.want {
				t.Fatalf("ResolveVersion(%q) = %q, want %q", tt.stamped, got, tt.want)
			}
		})
	}
}

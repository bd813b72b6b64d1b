package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/wardenlock/warden", Version: v}}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	vcs := func(settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/wardenlock/warden", Version: "(devel)"}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	const rev = "c4a48acfab8bda9906d9a7f7231b0182008350aa"
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
		{"local build without a VCS stamp", "dev", info("(devel)"), "dev"},
		{"checkout build, Go 1.24+ pseudo-version", "dev", info("v0.0.0-20261202011144-c4a48acfab8b"), "0.0.0-20261202011144-c4a48acfab8b"},
		{"checkout build, dirty tree", "dev", info("v0.0.0-20261202011144-c4a48acfab8b+dirty"), "0.0.0-20261202011144-c4a48acfab8b+dirty"},
		{"VCS stamp only", "dev", vcs("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-12-02T01:11:44Z", "vcs.modified", "false"), "0.0.0-20261202011144-c4a48acfab8b"},
		{"VCS stamp, modified", "", vcs("vcs.revision", rev, "vcs.time", "2026-12-02T01:11:44Z", "vcs.modified", "true"), "0.0.0-20261202011144-c4a48acfab8b+dirty"},
		{"VCS stamp, time in another zone", "dev", vcs("vcs.revision", rev, "vcs.time", "2026-12-02T03:11:44+02:00"), "0.0.0-20261202011144-c4a48acfab8b"},
		{"VCS stamp without a time", "dev", vcs("vcs.revision", rev), "0.0.0-c4a48acfab8b"},
		{"VCS stamp with a bad time", "dev", vcs("vcs.revision", rev, "vcs.time", "yesterday"), "0.0.0-c4a48acfab8b"},
		{"short revision", "dev", vcs("vcs.revision", "abc123"), "0.0.0-abc123"},
		{"revision that is not hex", "dev", vcs("vcs.revision", "not-a-revision"), "dev"},
		{"empty revision", "dev", vcs("vcs.revision", "", "vcs.modified", "true"), "dev"},
		{"stamp wins over VCS", "1.4.0", vcs("vcs.revision", rev), "1.4.0"},
		{"a stamp of just v is no stamp", "v", vcs("vcs.revision", rev), "0.0.0-c4a48acfab8b"},
		{"a module version of just v is none", "", info("v"), "dev"},
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

// FuzzResolveVersion: whatever the stamp and the build info say, the
// version is never empty, never starts with "v", is the trimmed stamp when
// one is given, and is a pseudo-version naming the revision when only a
// hex revision is known.
func FuzzResolveVersion(f *testing.F) {
	f.Add("", "(devel)", "c4a48acfab8bda9906d9a7f7231b0182008350aa", "2026-12-02T01:11:44Z", "true")
	f.Add("v1.4.0", "", "", "", "")
	f.Add("dev", "v0.0.0-20261202011144-c4a48acfab8b+dirty", "zz", "x", "false")
	f.Fuzz(func(t *testing.T, stamped, mod, rev, vcsTime, modified string) {
		read := func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{
				Main: debug.Module{Version: mod},
				Settings: []debug.BuildSetting{
					{Key: "vcs.revision", Value: rev},
					{Key: "vcs.time", Value: vcsTime},
					{Key: "vcs.modified", Value: modified},
				},
			}, true
		}
		got := ResolveVersion(stamped, read)
		if got == "" {
			t.Fatal("empty version")
		}
		if s := strings.TrimPrefix(strings.TrimSpace(stamped), "v"); s != "" && s != DevVersion {
			if got != s {
				t.Fatalf("stamp %q gave %q", stamped, got)
			}
			return
		}
		if m := strings.TrimPrefix(mod, "v"); m == "" || m == "(devel)" {
			if isHex(rev) {
				short := rev
				if len(short) > 12 {
					short = short[:12]
				}
				if !strings.HasPrefix(got, "0.0.0-") || !strings.Contains(got, short) {
					t.Fatalf("revision %q gave %q", rev, got)
				}
			} else if got != DevVersion {
				t.Fatalf("no usable revision (%q) gave %q, want %q", rev, got, DevVersion)
			}
		}
	})
}

package cli

import (
	"runtime/debug"
	"strings"
	"time"
)

// DevVersion is the version of a build that carries no release version and
// no version-control stamp: neither one stamped with -ldflags "-X
// main.version=...", nor one recorded by `go install module@version`, nor a
// build from a git checkout (go build -buildvcs, the default there).
const DevVersion = "dev"

// ResolveVersion returns warden's version as `warden version`, locks
// (warden_version) and SARIF (driver.version) report it, from the first of:
//
//   - the version stamped at build time (the release workflow and the
//     Dockerfile stamp the tag);
//   - the module version the Go command recorded in the binary's build info:
//     `go install github.com/wardenlock/warden@v1.2.3` (or @latest) records
//     the release, and since Go 1.24 a build in a git checkout records a
//     pseudo-version such as 0.0.0-20261202011144-c4a48acfab8b, with
//     "+dirty" when the tree had uncommitted changes;
//   - the version-control stamp alone (vcs.revision, vcs.time and
//     vcs.modified), written in the same pseudo-version form, for a build
//     whose module version is "(devel)";
//   - DevVersion, for a build with none of these (-buildvcs=false outside a
//     release, or a source tree without .git, as GitHub's download of an
//     action is).
//
// A leading "v" is dropped: the lock format's warden_version is a bare
// semver ("1.2.3"). readBuildInfo is debug.ReadBuildInfo in main; tests pass
// their own.
func ResolveVersion(stamped string, readBuildInfo func() (*debug.BuildInfo, bool)) string {
	if v := strings.TrimPrefix(strings.TrimSpace(stamped), "v"); v != "" && v != DevVersion {
		return v
	}
	if readBuildInfo == nil {
		return DevVersion
	}
	info, ok := readBuildInfo()
	if !ok || info == nil {
		return DevVersion
	}
	if v := strings.TrimPrefix(info.Main.Version, "v"); v != "" && v != "(devel)" {
		return v
	}
	if v := vcsVersion(info.Settings); v != "" {
		return v
	}
	return DevVersion
}

// vcsVersion writes a build's version-control settings as a Go
// pseudo-version without the "v" (0.0.0-YYYYMMDDhhmmss-abcdefabcdef, and
// "+dirty" for a modified tree), or returns "" when the build carries no
// revision. A missing or unreadable commit time is left out
// (0.0.0-abcdefabcdef).
func vcsVersion(settings []debug.BuildSetting) string {
	var revision, stamp string
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				stamp = t.UTC().Format("20060102150405")
			}
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if !isHex(revision) {
		return ""
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	v := "0.0.0-"
	if stamp != "" {
		v += stamp + "-"
	}
	v += revision
	if dirty {
		v += "+dirty"
	}
	return v
}

// isHex reports whether s is a non-empty string of lower-case hex digits, as
// a git or Mercurial revision is.
func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

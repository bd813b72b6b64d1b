package cli

import (
	"runtime/debug"
	"strings"
)

// DevVersion is the version of a build that carries no release version:
// neither one stamped with -ldflags "-X main.version=..." nor one recorded by
// `go install module@version`.
const DevVersion = "dev"

// ResolveVersion returns warden's version as `warden version`, locks
// (warden_version) and SARIF (driver.version) report it: the version stamped
// at build time when there is one (the release workflow and the Dockerfile
// stamp the tag), else the module version the Go command recorded in the
// binary's build info (`go install github.com/wardenlock/warden@v1.2.3` or
// @latest records the release), else DevVersion. A leading "v" is dropped:
// the lock format's warden_version is a bare semver ("1.2.3").
//
// readBuildInfo is debug.ReadBuildInfo in main; tests pass their own.
func ResolveVersion(stamped string, readBuildInfo func() (*debug.BuildInfo, bool)) string {
	if v := strings.TrimSpace(stamped); v != "" && v != DevVersion {
		return strings.TrimPrefix(v, "v")
	}
	if readBuildInfo != nil {
		if info, ok := readBuildInfo(); ok && info != nil {
			if v := info.Main.Version; v != "" && v != "(devel)" {
				return strings.TrimPrefix(v, "v")
			}
		}
	}
	return DevVersion
}

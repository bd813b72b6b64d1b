#!/usr/bin/env bash
# Build warden's release binaries: static (CGO_ENABLED=0), reproducible
# (-trimpath, no VCS stamp), stamped with the release version, one per
# platform, plus SHA256SUMS over them. The release workflow runs this on a
# version tag; scripts/release/test.sh runs it locally.
#
# Usage: scripts/release/binaries.sh VERSION OUTDIR [GOOS/GOARCH...]
#   VERSION  the release version without the leading v (1.4.0)
#   OUTDIR   where warden_VERSION_GOOS_GOARCH[.exe] and SHA256SUMS go
#   default platforms: linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
#                      windows/amd64
set -euo pipefail

[[ $# -ge 2 ]] || {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
version=$1
out=$2
shift 2
platforms=("$@")
((${#platforms[@]})) || platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64)

# A semver without the v: it goes into locks as warden_version.
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] ||
	{ echo "binaries.sh: '$version' is not a version like 1.4.0 (no leading v)" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/warden_* "$out/SHA256SUMS"

names=()
for p in "${platforms[@]}"; do
	goos=${p%/*} goarch=${p#*/}
	name="warden_${version}_${goos}_${goarch}"
	[[ "$goos" == windows ]] && name+=.exe
	printf 'building %s\n' "$name"
	(cd "$repo" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch GOFLAGS=-buildvcs=false \
		go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$out/$name" .)
	names+=("$name")
done
(cd "$out" && sha256sum "${names[@]}" >SHA256SUMS)
cat "$out/SHA256SUMS"

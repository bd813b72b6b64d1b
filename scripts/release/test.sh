#!/usr/bin/env bash
# Local test of the release scripts, the part of the release workflow that
# can run here (scripts/test.sh runs it): binaries.sh builds static binaries
# stamped with a version and SHA256SUMS that verify, the binary reports the
# version and writes it into a lock as warden_version, and
# pin-action-image.sh moves action.yml to an image digest and refuses
# anything else. Pushing, signing and attesting need GitHub (release.yml).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/warden-release-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
check() {
	local desc=$1
	shift
	if "$@" >"$work/check.log" 2>&1; then
		passed=$((passed + 1))
		printf 'PASS %s\n' "$desc"
	else
		failed=$((failed + 1))
		printf 'FAIL %s\n' "$desc"
		sed 's/^/    | /' "$work/check.log" | tail -n 8
	fi
}

version=9.9.9-test
host="$(go env GOOS)/$(go env GOARCH)"
bin="$work/dist/warden_${version}_$(go env GOOS)_$(go env GOARCH)"

check "binaries.sh builds $host and windows/amd64 with SHA256SUMS" \
	bash "$repo/scripts/release/binaries.sh" "$version" "$work/dist" "$host" windows/amd64
check "SHA256SUMS verifies every binary" bash -c "cd '$work/dist' && sha256sum -c SHA256SUMS && test \$(wc -l <SHA256SUMS) -eq 2"
check "binaries.sh refuses a version with a leading v" \
	bash -c "! bash '$repo/scripts/release/binaries.sh' v1.0.0 '$work/bad' 2>/dev/null"
check "the binary is static (no dynamic section)" bash -c "! (command -v readelf >/dev/null && readelf -d '$bin' | grep -q NEEDED)"
check "'warden version' reports the release version" bash -c "test \"\$('$bin' version)\" = 'warden $version'"

# The stamped version reaches a lock as warden_version.
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/demo-server" ./testdata/demo/server)
check "a pin records warden_version $version" bash -c "
	'$bin' pin --lock '$work/v.lock' -- '$work/demo-server' >/dev/null &&
	grep -q '\"warden_version\": \"$version\"' '$work/v.lock'"

digest=sha256:$(printf '%064d' 7)
cp "$repo/action.yml" "$work/action.yml"
check "pin-action-image.sh moves runs.image to docker://IMAGE@DIGEST" bash -c "
	bash '$repo/scripts/release/pin-action-image.sh' ghcr.io/wardenlock/warden@$digest '$work/action.yml' >/dev/null &&
	grep -qx '  image: docker://ghcr.io/wardenlock/warden@$digest' '$work/action.yml' &&
	test \$(diff '$repo/action.yml' '$work/action.yml' | grep -c '^[<>]') -eq 2"
check "pin-action-image.sh re-pins an already pinned action.yml" bash -c "
	bash '$repo/scripts/release/pin-action-image.sh' ghcr.io/wardenlock/warden@sha256:$(printf '%064d' 8) '$work/action.yml' >/dev/null &&
	grep -qx '  image: docker://ghcr.io/wardenlock/warden@sha256:$(printf '%064d' 8)' '$work/action.yml'"
for bad in ghcr.io/wardenlock/warden:v1 ghcr.io/WardenLock/warden@$digest "ghcr.io/wardenlock/warden@sha256:abc" "x; rm -rf /@$digest"; do
	check "pin-action-image.sh refuses '$bad'" bash -c "
		cp '$work/action.yml' '$work/before.yml' &&
		! bash '$repo/scripts/release/pin-action-image.sh' '$bad' '$work/action.yml' 2>/dev/null &&
		cmp -s '$work/action.yml' '$work/before.yml'"
done

printf 'release: %d passed, %d failed\n' "$passed" "$failed"
((failed == 0))

#!/usr/bin/env bash
# Local test of the release scripts, the part of the release workflow that
# can run here (scripts/test.sh runs it): binaries.sh builds static binaries
# stamped with a version and SHA256SUMS that verify, the binary reports the
# version and writes it into a lock as warden_version, and
# pin-action-image.sh moves action.yml to an image digest and refuses
# anything else, tag-release.sh tags a release on a commit that runs the
# image (verify-release-tag.sh checks it), and a build from a git checkout
# reports its commit as its version. Pushing, signing and attesting need
# GitHub (release.yml).
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

# A release tag runs the prebuilt image: tag-release.sh commits action.yml
# moved to the image on top of the source commit and tags that commit, in a
# scratch repository holding this action.yml; the source commit keeps
# `image: Dockerfile`.
export GIT_AUTHOR_NAME=release-test GIT_AUTHOR_EMAIL=release-test@example.invalid
export GIT_COMMITTER_NAME=release-test GIT_COMMITTER_EMAIL=release-test@example.invalid
gitrepo="$work/tagrepo"
mkdir -p "$gitrepo"
cp "$repo/action.yml" "$gitrepo/action.yml"
git -C "$gitrepo" init -q
git -C "$gitrepo" add action.yml
git -C "$gitrepo" commit -q -m source
source=$(git -C "$gitrepo" rev-parse HEAD)
image="ghcr.io/wardenlock/warden@$digest"
check "a source commit with image: Dockerfile is refused as a release" bash -c "
	grep -qx '  image: Dockerfile' '$gitrepo/action.yml' &&
	! bash '$repo/scripts/release/verify-release-tag.sh' HEAD '$gitrepo' 2>'$work/verify.err' &&
	grep -q 'not a prebuilt image by digest' '$work/verify.err'"
check "tag-release.sh tags v9.9.9 on a commit that runs the image" bash -c "
	commit=\$(bash '$repo/scripts/release/tag-release.sh' 9.9.9 '$image' '$gitrepo') &&
	test \"\$(git -C '$gitrepo' rev-parse 'v9.9.9^{commit}')\" = \"\$commit\" &&
	test \"\$(git -C '$gitrepo' rev-parse \"\$commit^\")\" = '$source' &&
	git -C '$gitrepo' show v9.9.9:action.yml | grep -qx '  image: docker://$image' &&
	bash '$repo/scripts/release/verify-release-tag.sh' v9.9.9 '$gitrepo' &&
	bash '$repo/scripts/release/verify-release-tag.sh' \"\$commit\" '$gitrepo'"
check "the source commit still builds the Dockerfile" bash -c "
	git -C '$gitrepo' show '$source:action.yml' | grep -qx '  image: Dockerfile'"
check "a release moves the major tag v9 to the release commit" bash -c "
	test \"\$(git -C '$gitrepo' rev-parse 'v9^{commit}')\" = \"\$(git -C '$gitrepo' rev-parse 'v9.9.9^{commit}')\" &&
	bash '$repo/scripts/release/verify-release-tag.sh' v9 '$gitrepo'"
check "a pre-release is tagged and leaves the major tag" bash -c "
	git -C '$gitrepo' checkout -q '$source' &&
	bash '$repo/scripts/release/tag-release.sh' 9.10.0-rc.1 'ghcr.io/wardenlock/warden@sha256:$(printf '%064d' 9)' '$gitrepo' >/dev/null &&
	bash '$repo/scripts/release/verify-release-tag.sh' v9.10.0-rc.1 '$gitrepo' &&
	test \"\$(git -C '$gitrepo' rev-parse 'v9^{commit}')\" = \"\$(git -C '$gitrepo' rev-parse 'v9.9.9^{commit}')\""
check "an existing release tag is never moved" bash -c "
	git -C '$gitrepo' checkout -q '$source' &&
	before=\$(git -C '$gitrepo' rev-parse 'v9.9.9^{commit}') &&
	! bash '$repo/scripts/release/tag-release.sh' 9.9.9 '$image' '$gitrepo' 2>'$work/tag.err' &&
	grep -q 'already exists' '$work/tag.err' &&
	test \"\$(git -C '$gitrepo' rev-parse 'v9.9.9^{commit}')\" = \"\$before\" &&
	test \"\$(git -C '$gitrepo' rev-parse HEAD)\" = '$source'"
for bad in "v9.9.8 $image" "9.9 $image" "9.9.8 ghcr.io/wardenlock/warden:v1" "9.9.8 ghcr.io/wardenlock/warden@sha256:abc"; do
	check "tag-release.sh refuses '$bad' and tags nothing" bash -c "
		git -C '$gitrepo' checkout -q '$source' &&
		! bash '$repo/scripts/release/tag-release.sh' $bad '$gitrepo' 2>/dev/null &&
		test \"\$(git -C '$gitrepo' rev-parse HEAD)\" = '$source' &&
		! git -C '$gitrepo' rev-parse -q --verify refs/tags/v9.9.8 >/dev/null &&
		git -C '$gitrepo' diff --quiet"
done
check "a moving image tag in action.yml is not a release" bash -c "
	sed 's|^  image: .*|  image: docker://ghcr.io/wardenlock/warden:1|' '$repo/action.yml' >'$gitrepo/action.yml' &&
	git -C '$gitrepo' commit -q -m moving -- action.yml &&
	! bash '$repo/scripts/release/verify-release-tag.sh' HEAD '$gitrepo' 2>/dev/null"

# A build from a git checkout reports its commit, not "dev": a clone of this
# repository's HEAD built with the VCS stamp (go build's default in a
# checkout; this machine's GOFLAGS may turn it off, so it is asked for).
rev=$(git -C "$repo" rev-parse HEAD)
check "a build from a git checkout reports its commit as the version" bash -c "
	git clone -q --no-hardlinks '$repo' '$work/clone' &&
	cd '$work/clone' && CGO_ENABLED=0 GOFLAGS=-buildvcs=true go build -o '$work/vcs-warden' . &&
	got=\$('$work/vcs-warden' version) && echo \"\$got\" &&
	[[ \"\$got\" =~ ^warden\ 0\.0\.0-[0-9]{14}-${rev:0:12}$ ]]"

printf 'release: %d passed, %d failed\n' "$passed" "$failed"
((failed == 0))

#!/usr/bin/env bash
# Make the release commit and tag: action.yml moved to the released image by
# digest (pin-action-image.sh), committed on top of the source commit, and
# the annotated tag vVERSION made on that commit, so that the tag, and a
# commit SHA taken from it, run the signed prebuilt image and build nothing.
# For a release (no "-" in VERSION) the major tag (v1) is moved to the same
# commit; a pre-release leaves it. The source commit itself is not changed:
# the main branch keeps `image: Dockerfile`, so the action self-test goes
# on building and testing each pull request's own code.
#
# The release workflow runs this after pushing and signing the image, then
# pushes the tags. Nothing is pushed here.
#
# Usage: scripts/release/tag-release.sh VERSION IMAGE@sha256:DIGEST [REPO]
#   VERSION  the release version without the leading v (1.4.0, 1.5.0-rc.1)
#   REPO     the git work tree to commit in (default: this checkout), clean
#            and on the source commit
# Prints the release commit's SHA.
set -euo pipefail

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
[[ $# -ge 2 && $# -le 3 ]] || usage
version=$1
ref=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=${3:-$(cd "$here/../.." && pwd)}

[[ "$version" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]] ||
	{ echo "tag-release.sh: '$version' is not a version X.Y.Z[-pre] without a leading v" >&2; exit 2; }
tag="v$version"
major="v${BASH_REMATCH[1]}"
git -C "$repo" rev-parse --verify -q HEAD >/dev/null ||
	{ echo "tag-release.sh: $repo is not a git work tree with a commit" >&2; exit 2; }
if git -C "$repo" rev-parse --verify -q "refs/tags/$tag" >/dev/null; then
	echo "tag-release.sh: tag $tag already exists; a release tag is never moved (go.sum pins its contents)" >&2
	exit 1
fi
[[ -z "$(git -C "$repo" status --porcelain -- action.yml)" ]] ||
	{ echo "tag-release.sh: $repo/action.yml has uncommitted changes" >&2; exit 1; }

source=$(git -C "$repo" rev-parse HEAD)
bash "$here/pin-action-image.sh" "$ref" "$repo/action.yml" >/dev/null
git -C "$repo" commit -q -m "release $tag: action.yml runs $ref" -- action.yml
commit=$(git -C "$repo" rev-parse HEAD)
git -C "$repo" tag -a "$tag" -m "warden $tag (image $ref, source $source)" "$commit"
case "$version" in
*-*) ;;
*) git -C "$repo" tag -f -a "$major" -m "warden $tag (image $ref)" "$commit" >/dev/null ;;
esac
bash "$here/verify-release-tag.sh" "$tag" "$repo" >/dev/null
echo "$commit"

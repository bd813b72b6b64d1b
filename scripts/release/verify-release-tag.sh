#!/usr/bin/env bash
# Check that a release ref runs the prebuilt image: the action.yml of REF
# (a tag such as v1.4.0, the major tag v1, or a commit SHA) has exactly one
# runs.image, and it is docker://IMAGE@sha256:<64 hex digits>, never
# `Dockerfile` or a moving image tag. The release workflow runs it on the
# tags it makes and on any version tag pushed by hand.
#
# Usage: scripts/release/verify-release-tag.sh REF [REPO]
set -euo pipefail

[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: verify-release-tag.sh REF [REPO]" >&2; exit 2; }
ref=$1
repo=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
commit=$(git -C "$repo" rev-parse --verify -q "$ref^{commit}") ||
	{ echo "verify-release-tag.sh: no commit $ref in $repo" >&2; exit 2; }
yml=$(git -C "$repo" show "$commit:action.yml" 2>/dev/null) ||
	{ echo "verify-release-tag.sh: $ref has no action.yml" >&2; exit 1; }
images=$(awk '/^runs:/ { in_runs = 1; next } /^[^ \t#]/ { in_runs = 0 } in_runs && /^[ \t]+image:/ { sub(/^[ \t]+image:[ \t]*/, ""); print }' <<<"$yml")
n=$(grep -c . <<<"$images" || true)
[[ "$n" == 1 ]] || { echo "verify-release-tag.sh: $ref: expected one image: under runs: in action.yml, found $n" >&2; exit 1; }
image=${images//\"/}
if [[ ! "$image" =~ ^docker://[a-z0-9][^@[:space:]]*@sha256:[0-9a-f]{64}$ ]]; then
	echo "verify-release-tag.sh: $ref ($commit) runs 'image: $image', not a prebuilt image by digest: every run would build it; make release tags with the Release workflow" >&2
	exit 1
fi
echo "$ref runs $image"

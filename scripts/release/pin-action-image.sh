#!/usr/bin/env bash
# Point action.yml at a released image by digest, so the action stops
# building the Dockerfile on every run: `image: Dockerfile` (or an earlier
# docker:// reference) becomes `image: docker://IMAGE@sha256:DIGEST`. The
# release workflow runs this after pushing and signing the image, then
# commits the change.
#
# Usage: scripts/release/pin-action-image.sh IMAGE@sha256:DIGEST [ACTION_YML]
#   IMAGE  a lower-case registry reference without a tag (ghcr.io/owner/name)
set -euo pipefail

ref=${1:-}
file=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/action.yml}
[[ "$ref" =~ ^[a-z0-9]+([._-][a-z0-9]+)*(\.[a-z0-9-]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)+@sha256:[0-9a-f]{64}$ ]] ||
	{ echo "pin-action-image.sh: '$ref' is not IMAGE@sha256:<64 hex digits> (lower case, no tag)" >&2; exit 2; }
[[ -f "$file" ]] || { echo "pin-action-image.sh: no $file" >&2; exit 2; }

# The one `image:` line of the runs: block (a Docker action has exactly one).
n=$(awk '/^runs:/ { in_runs = 1; next } /^[^ \t#]/ { in_runs = 0 } in_runs && /^[ \t]+image:/ { n++ } END { print n + 0 }' "$file")
[[ "$n" == 1 ]] || { echo "pin-action-image.sh: expected one image: line under runs: in $file, found $n" >&2; exit 1; }
grep -Eq '^[ \t]+using:[ \t]*"?docker"?[ \t]*$' "$file" ||
	{ echo "pin-action-image.sh: $file is not a Docker container action (runs.using: docker)" >&2; exit 1; }

tmp=$(mktemp "$file.XXXXXX")
trap 'rm -f "$tmp"' EXIT
awk -v img="docker://$ref" '
	/^runs:/ { in_runs = 1; print; next }
	/^[^ \t#]/ { in_runs = 0 }
	in_runs && /^[ \t]+image:/ { match($0, /^[ \t]+/); print substr($0, 1, RLENGTH) "image: " img; next }
	{ print }' "$file" >"$tmp"
chmod --reference="$file" "$tmp" 2>/dev/null || true
mv "$tmp" "$file"
trap - EXIT
grep -E '^[ \t]+image:' "$file"

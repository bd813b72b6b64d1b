#!/usr/bin/env bash
# The one test command (README, .ci/run): installs what the tests need on a
# fresh machine, then runs vet, the Go test suite with the race detector, the
# conformance corpus, actionlint on the workflows and the container test.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

phase() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

phase "go modules"
go mod download

phase "npm servers (testdata/npm)"
if command -v npm >/dev/null 2>&1; then
  # The real MCP servers the capture tests launch, pinned by package-lock.json.
  (cd testdata/npm && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
else
  echo "npm not found: tests that need the npm servers will skip"
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

phase "container test"
if [ -x scripts/container/test.sh ]; then
  bash scripts/container/test.sh
else
  echo "SKIP: container test: scripts/container/test.sh missing"
fi

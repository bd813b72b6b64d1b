#!/usr/bin/env bash
# The main job on the bundled example: build the example MCP server, then
# verify it against its committed lock. Prints a clean verdict and exits 0.
# Pass --mutate to see drift (exit 1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Static binaries: the demo server's relative path also runs inside the
# Action's container (no Go toolchain there), so one lock serves both; and
# warden is built as it is released (README "Install").
CGO_ENABLED=0 go build -o testdata/demo/bin/demo-server ./testdata/demo/server
CGO_ENABLED=0 go build -o testdata/demo/bin/warden .

# --mutate drifts the declared surface with an unchanged launch (a rug-pull):
# the server reads DEMO_MUTATE, which warden passes with --env.
env_args=()
if [ "${1:-}" = "--mutate" ]; then
  env_args=(--env DEMO_MUTATE=1)
fi
exec testdata/demo/bin/warden check --lock testdata/demo/warden.lock "${env_args[@]}" -- testdata/demo/bin/demo-server

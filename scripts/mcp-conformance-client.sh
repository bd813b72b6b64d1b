#!/usr/bin/env bash
# The client under test for the official MCP conformance suite
# (docs/mcp-conformance.md): the suite runs it as `CMD URL`, with the
# scenario's name in MCP_CONFORMANCE_SCENARIO and, for some scenarios, a JSON
# object in MCP_CONFORMANCE_CONTEXT. It pins URL with warden into a temporary
# lock, then checks URL against that lock, so every scenario sees both of
# warden's capture paths (pin always probes; check starts in the lock's era).
#
# Environment:
#   WARDEN_BIN       the warden binary to run; unset, warden is built
#                    (CGO_ENABLED=0) from this checkout into the cache below
#                    and rebuilt only when a Go file is newer than that binary
#   WARDEN_CONFORMANCE_CACHE
#                    that cache (default
#                    ${XDG_CACHE_HOME:-~/.cache}/warden-conformance)
#   WARDEN_PROTOCOL  --protocol for pin and check (default auto, what users run)
#   WARDEN_TIMEOUT   --timeout in seconds for each capture (default warden's)
#
# Exit status: warden's own (1 drift, 2 error) when pin or check fails, 2 for
# bad usage or a failed build, 0 when both succeed.
set -euo pipefail

die() {
  printf 'mcp-conformance-client: %s\n' "$1" >&2
  exit 2
}

[ $# -eq 1 ] || die "usage: mcp-conformance-client.sh URL"
url=$1
case $url in
  http://* | https://*) ;;
  *) die "URL must start with http:// or https://" ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# build_warden prints the path of a warden binary built from this checkout.
# Concurrent runs (the suite starts scenarios in parallel) may both build; each
# writes its own file and renames it into place, so none runs a half-written
# binary.
build_warden() {
  local cache=${WARDEN_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/warden-conformance}
  local bin=$cache/warden
  # The fixture servers and node_modules under testdata/ are not warden.
  if [ -x "$bin" ] && [ -z "$(find "$repo" \( -path "$repo/.git" -o -path "$repo/testdata" \) -prune -o \( -name '*.go' -o -name go.mod -o -name go.sum \) -newer "$bin" -print -quit)" ]; then
    printf '%s\n' "$bin"
    return
  fi
  mkdir -p "$cache"
  local tmp
  tmp=$(mktemp "$cache/warden.XXXXXX")
  if ! (cd "$repo" && CGO_ENABLED=0 go build -o "$tmp" .) >&2; then
    rm -f "$tmp"
    die "building warden failed"
  fi
  mv -f "$tmp" "$bin"
  printf '%s\n' "$bin"
}

warden=${WARDEN_BIN:-}
[ -n "$warden" ] || warden=$(build_warden)
[ -x "$warden" ] || die "WARDEN_BIN is not an executable file"

work=$(mktemp -d "${TMPDIR:-/tmp}/warden-conformance.XXXXXX")
trap 'rm -rf "$work"' EXIT

args=(--url "$url" --lock "$work/warden.lock" --protocol "${WARDEN_PROTOCOL:-auto}")
[ -z "${WARDEN_TIMEOUT:-}" ] || args+=(--timeout "$WARDEN_TIMEOUT")

# The context is the suite's, not the server's, but it is still data: a
# "headers" object becomes --header flags whose values warden reads from the
# environment (${NAME}), so they never reach argv or a shell. The other keys
# the suite sends today are OAuth client credentials (below) and tool calls
# to make (a lister makes none).
if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
  command -v jq >/dev/null 2>&1 || die "MCP_CONFORMANCE_CONTEXT is set but jq is not installed to read it"
  jq -e 'type == "object"' <<<"$MCP_CONFORMANCE_CONTEXT" >/dev/null 2>&1 ||
    die "MCP_CONFORMANCE_CONTEXT is not a JSON object"
  n=0
  while IFS= read -r -d '' name && IFS= read -r -d '' value; do
    case $name in
      '' | *[!A-Za-z0-9-]*) die "context header name is not a token" ;;
    esac
    n=$((n + 1))
    export "WARDEN_CONFORMANCE_HEADER_$n=$value"
    args+=(--header "$name: \${WARDEN_CONFORMANCE_HEADER_$n}")
  done < <(jq -j '(.headers // {}) | to_entries[] | select(.value | type == "string") | .key, "\u0000", .value, "\u0000"' <<<"$MCP_CONFORMANCE_CONTEXT")
  # OAuth credentials for the non-interactive grants (docs/oauth.md): each
  # goes into an environment variable that a --oauth-* flag names as
  # ${NAME}; warden refuses secrets in argv. client_id with client_secret or
  # private_key_pem is the client credentials grant; valid_jwt (a workload
  # identity token) the JWT bearer grant.
  ctx_get() { jq -r --arg k "$1" '.[$k] // empty | select(type == "string")' <<<"$MCP_CONFORMANCE_CONTEXT"; }
  used='"name", "headers"'
  if [ -n "$(ctx_get client_secret)$(ctx_get private_key_pem)$(ctx_get valid_jwt)$(ctx_get idp_id_token)" ]; then
    export WARDEN_CONFORMANCE_CLIENT_ID WARDEN_CONFORMANCE_CLIENT_SECRET WARDEN_CONFORMANCE_PRIVATE_KEY WARDEN_CONFORMANCE_ASSERTION
    WARDEN_CONFORMANCE_CLIENT_ID=$(ctx_get client_id)
    WARDEN_CONFORMANCE_CLIENT_SECRET=$(ctx_get client_secret)
    WARDEN_CONFORMANCE_PRIVATE_KEY=$(ctx_get private_key_pem)
    WARDEN_CONFORMANCE_ASSERTION=$(ctx_get valid_jwt)
    [ -z "$WARDEN_CONFORMANCE_CLIENT_ID" ] || args+=(--oauth-client-id "\${WARDEN_CONFORMANCE_CLIENT_ID}")
    [ -z "$WARDEN_CONFORMANCE_CLIENT_SECRET" ] || args+=(--oauth-client-secret "\${WARDEN_CONFORMANCE_CLIENT_SECRET}")
    [ -z "$WARDEN_CONFORMANCE_PRIVATE_KEY" ] || args+=(--oauth-private-key "\${WARDEN_CONFORMANCE_PRIVATE_KEY}")
    [ -z "$(ctx_get signing_algorithm)" ] || args+=(--oauth-signing-alg "$(ctx_get signing_algorithm)")
    [ -z "$WARDEN_CONFORMANCE_ASSERTION" ] || args+=(--oauth-assertion "\${WARDEN_CONFORMANCE_ASSERTION}")
    used+=', "client_id", "client_secret", "private_key_pem", "signing_algorithm", "valid_jwt", "wrong_audience_jwt", "expired_jwt"'
  fi
  # Enterprise-managed authorization (SEP-990): the IdP's ID token is
  # exchanged at the IdP for an ID-JAG, presented with the JWT bearer grant.
  if [ -n "$(ctx_get idp_id_token)" ]; then
    export WARDEN_CONFORMANCE_ID_TOKEN
    WARDEN_CONFORMANCE_ID_TOKEN=$(ctx_get idp_id_token)
    args+=(--oauth-idp-token-endpoint "$(ctx_get idp_token_endpoint)" --oauth-idp-client-id "$(ctx_get idp_client_id)"
      --oauth-id-token "\${WARDEN_CONFORMANCE_ID_TOKEN}")
    used+=', "idp_id_token", "idp_token_endpoint", "idp_client_id", "idp_issuer"'
  fi
  unused=$(jq -r "[keys[] | select(IN($used) | not)] | join(\", \")" <<<"$MCP_CONFORMANCE_CONTEXT")
  [ -z "$unused" ] || printf 'mcp-conformance-client: context keys not used (warden lists; it makes no tool calls): %s\n' "$unused" >&2
fi

# auth_login signs in to URL with `warden auth login --no-browser` and plays
# the browser: the suite's authorization servers approve at once, so one GET
# of the printed authorization URL, following its redirect to warden's
# loopback listener, completes the login. The access token it prints goes to
# pin and check as an Authorization header read from the environment (the
# suite's servers issue no refresh token). A DPoP-bound token (RFC 9449)
# goes with its key instead: --oauth-access-token and --oauth-dpop-key, both
# ${NAME}, so pin and check sign a proof per request. A pre-registration context's
# client_id and client_secret become --client-id and a ${NAME} secret.
auth_login() {
  local login=(auth login --no-browser --print access-token --dpop-key-out "$work/dpop.pem" --timeout "${WARDEN_TIMEOUT:-30}")
  if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
    local id secret
    id=$(jq -r '.client_id // empty | strings' <<<"$MCP_CONFORMANCE_CONTEXT")
    secret=$(jq -r '.client_secret // empty | strings' <<<"$MCP_CONFORMANCE_CONTEXT")
    [ -z "$id" ] || login+=(--client-id "$id")
    if [ -n "$secret" ]; then
      export WARDEN_CONFORMANCE_CLIENT_SECRET=$secret
      login+=(--client-secret '${WARDEN_CONFORMANCE_CLIENT_SECRET}')
    fi
  fi
  # The URL the suite's client ID metadata document scenario expects.
  login+=(--client-metadata-url https://conformance-test.local/client-metadata.json)
  printf 'mcp-conformance-client: warden auth login (scenario %s)\n' "$MCP_CONFORMANCE_SCENARIO" >&2
  "$warden" "${login[@]}" "$url" >"$work/token" 2>"$work/login.err" &
  local pid=$! authurl="" i
  for ((i = 0; i < 300; i++)); do
    authurl=$(grep -m1 -E '^https?://' "$work/login.err" || true)
    [ -z "$authurl" ] || break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -z "$authurl" ] || curl -sS -L --max-redirs 3 --max-time 10 -o /dev/null "$authurl" || true
  local rc=0
  wait "$pid" || rc=$?
  cat "$work/login.err" >&2
  [ "$rc" -eq 0 ] || exit "$rc"
  WARDEN_CONFORMANCE_TOKEN=$(cat "$work/token")
  export WARDEN_CONFORMANCE_TOKEN
  # The context's client credentials were the login's (a pre-registered
  # client), not a client credentials grant for pin and check.
  args=(--url "$url" --lock "$work/warden.lock" --protocol "${WARDEN_PROTOCOL:-auto}")
  [ -z "${WARDEN_TIMEOUT:-}" ] || args+=(--timeout "$WARDEN_TIMEOUT")
  if [ -s "$work/dpop.pem" ]; then
    WARDEN_CONFORMANCE_DPOP_KEY=$(cat "$work/dpop.pem")
    export WARDEN_CONFORMANCE_DPOP_KEY
    args+=(--oauth-access-token '${WARDEN_CONFORMANCE_TOKEN}' --oauth-dpop-key '${WARDEN_CONFORMANCE_DPOP_KEY}')
  else
    args+=(--header 'Authorization: Bearer ${WARDEN_CONFORMANCE_TOKEN}')
  fi
}

# The authorization-code scenarios (every client auth/ scenario but the
# extensions with other grants; the DPoP ones are authorization code too)
# sign in first.
case ${MCP_CONFORMANCE_SCENARIO:-} in
  auth/client-credentials-* | auth/wif-* | auth/enterprise-*) ;;
  auth/*) auth_login ;;
esac

printf 'mcp-conformance-client: warden pin (scenario %s)\n' "${MCP_CONFORMANCE_SCENARIO:-unknown}" >&2
"$warden" pin "${args[@]}"
printf 'mcp-conformance-client: warden check\n' >&2
"$warden" check "${args[@]}"

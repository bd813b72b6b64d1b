#!/usr/bin/env bash
# Container test for warden's GitHub Action image.
#
# Builds the repository's Dockerfile exactly as GitHub builds it for the
# action (no build args, no edits) and runs the image the way GitHub's
# runner runs a Docker container action: as root, with the workspace and
# the file-command directory bind-mounted and the inputs passed as
# INPUT_<NAME> variables (upper-cased, hyphens kept: INPUT_SERVER-CMD).
#
# No container registry is reachable here, so build-bases.sh stands in for
# the images the Dockerfile names, under exactly those names (debian:*-slim
# from Debian's archive with debootstrap; the uv image as a stub). Two
# things differ from a GitHub runner, both on this side of the Dockerfile:
# podman builds with --pull=never (to take the stand-ins) and --network
# host, and, where this machine's TLS is intercepted by a local CA
# (/usr/local/share/ca-certificates), that CA is mounted into the build's
# RUN steps at /etc/ssl/certs/<hash>.0 so curl and Go trust it; podman
# leaves those mount points behind as empty files. What cannot be checked
# here at all (real uv) is listed in docs/action.md and checked by the
# action self-test workflow on GitHub.
#
# Scenarios:
#   static  the Dockerfile uses no BuildKit-only syntax
#   smoke   entrypoint, labels, root user, node/npm/npx/python3 and the uv
#           launchers in the image, `warden version` of an unstamped build
#   demo    testdata/demo/server built statically on the host into
#           testdata/demo/bin (the argv the committed lock pins), then in
#           the container: check against testdata/demo/warden.lock (clean,
#           exit 0), DEMO_MUTATE=1 via the env input and -mutate (drift,
#           exit 1; the launch shown argv by argv), a refused server-cmd
#           (error, exit 2), a pin into a scratch lock that must reproduce
#           the committed digest, and a pin to ../pinned.lock (refused
#           before capture, nothing written outside the workspace)
#   npm     @modelcontextprotocol/server-memory from testdata/npm (npm ci on
#           the host when missing), run by the image's node: pin into a
#           scratch lock, then check it (clean, exit 0)
#   owner   a scratch workspace and HOME owned by uid 1001, as the runner's
#           are: a pin and a drifting check into new directories leave
#           nothing there that uid 1001 does not own
#
# Checks marked [go] depend on the Go side (the `action` subcommand). Until
# action.yml exists at the repo root their failures are reported as
# PENDING and do not fail the run; from then on they count (override with
# WARDEN_CONTAINER_ACTION=strict|pending).
#
# Long silent steps (debootstrap, the image build) print a progress line
# every 15 seconds. The built image stays tagged between runs so that its
# layers cache the next build: only the layers after a changed input are
# rebuilt (a source edit rebuilds warden, not the toolchain or the apt
# installs); superseded layers are pruned.
#
# Exit status: 0 when every counted check passed; 0 after one
# "SKIP: container test: <reason>" line when this machine cannot run
# containers or the repo has no main package yet; 1 when a check, a base
# image or the Dockerfile build failed.
#
# Usage: scripts/container/test.sh
# Environment (all optional):
#   WARDEN_CONTAINER_STATE       state dir, kept between runs
#                                (default /var/tmp/warden-container)
#   WARDEN_CONTAINER_ACTION      auto|strict|pending (default auto)
#   WARDEN_CONTAINER_KEEP_IMAGE  0: remove the test image afterwards
#                                (default 1: keep it as the build cache)
#   WARDEN_CONTAINER_NO_INSTALL  1: never apt-get install missing tools
#   WARDEN_CONTAINER_PULL        1: pull the real base images (a machine
#                                that reaches the registries)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE
REPO=$(cd "$HERE/../.." && pwd)
readonly REPO
readonly STATE=${WARDEN_CONTAINER_STATE:-/var/tmp/warden-container}
readonly IMAGE=localhost/warden-action:test
# The Dockerfile's build stage, tagged so that pruning keeps its layers (the
# toolchain, the modules, the compiled packages) as the next build's cache.
readonly BUILD_STAGE_IMAGE=localhost/warden-action:build-stage
readonly PROBE_IMAGE=localhost/warden-probe:local
# What an unstamped build reports: GitHub passes no build args.
readonly VERSION=dev
# Test outputs (binaries, locks, SARIF) live inside the workspace, as a
# real repository's files would; /.cache/ is git-ignored.
readonly OUT_REL=.cache/container-test
readonly OUT="$REPO/$OUT_REL"
readonly WS=/github/workspace
# Where scripts/demo.sh and the action self-test workflow build the demo
# server (git-ignored); the committed demo lock pins exactly this argv.
readonly DEMO_BIN=testdata/demo/bin/demo-server
readonly MEMORY_JS=testdata/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js
# The image runs the servers; none of the scenarios needs a network, and
# `none` does not depend on CNI plugins being installed.
readonly RUN_NETWORK=none

WORK=""
DEMO=""
NPM_OK=false
ACTION_STRICT=false
BUILT_IMAGE=false
CREATED_CACHE_DIR=false
CREATED_DEMO_BIN=false
CONTAINERS=()
TIMINGS=()
PHASE=""
PHASE_T0=0
PASSED=0
FAILED=0
PENDING=0
IMAGE_SIZE=""
DEMO_RUN_MS=""
NPM_RUN_MS=""
BUILD_MS=""
# Set by run_action.
RC=0
RUN_MS=0
FC=""
LOG=""

log() { printf '%s\n' "$*"; }
die() {
	printf 'FAIL container test: %s\n' "$*"
	exit 1
}
# A machine that cannot run containers is not a test failure, but it must
# never look like a pass: one explicit line, then exit 0.
skip() {
	printf 'SKIP: container test: %s\n' "$*"
	exit 0
}

now_ms() {
	local ns
	ns=$(date +%s%N)
	printf '%d\n' $((ns / 1000000))
}
fmt_ms() { printf '%d.%ds' $(($1 / 1000)) $((($1 % 1000) / 100)); }

phase() {
	end_phase
	PHASE=$1
	PHASE_T0=$(now_ms)
	printf '\n== %s\n' "$PHASE"
}
end_phase() {
	[[ -n "$PHASE" ]] || return 0
	local ms
	ms=$(($(now_ms) - PHASE_T0))
	TIMINGS+=("$(printf '%-12s %s' "$PHASE" "$(fmt_ms "$ms")")")
	printf -- '-- %s: %s\n' "$PHASE" "$(fmt_ms "$ms")"
	PHASE=""
}

pass() {
	PASSED=$((PASSED + 1))
	printf 'PASS %s\n' "$1"
}
fail() {
	FAILED=$((FAILED + 1))
	printf 'FAIL %s\n' "$1"
}
pending() {
	PENDING=$((PENDING + 1))
	printf 'PENDING %s\n' "$1"
}
# check DESC CMD...: a property of the Dockerfile, the image or the harness.
check() {
	local desc=$1
	shift
	if "$@"; then pass "$desc"; else fail "$desc"; fi
}
# check_go DESC CMD...: a property that depends on the Go side.
check_go() {
	local desc="[go] $1"
	shift
	if "$@"; then
		pass "$desc"
	elif [[ "$ACTION_STRICT" == true ]]; then
		fail "$desc"
	else
		pending "$desc (not counted: Go side not final)"
	fi
}

cleanup() {
	local rc=$? c
	set +e
	for c in "${CONTAINERS[@]}"; do
		podman rm -f --ignore "$c" >/dev/null 2>&1
	done
	if [[ "$BUILT_IMAGE" == true && "${WARDEN_CONTAINER_KEEP_IMAGE:-1}" == 0 ]]; then
		podman rmi -f "$IMAGE" "$BUILD_STAGE_IMAGE" >/dev/null 2>&1
	fi
	if [[ "$BUILT_IMAGE" == true ]]; then
		# Layers of earlier builds that the tagged image no longer uses.
		# Images built FROM the stand-ins inherit their stamp label, so
		# nothing else on the machine is touched.
		podman image prune -f --filter "label=org.wardenlock.warden.base-stamp" >/dev/null 2>&1
	fi
	[[ -n "$WORK" ]] && rm -rf "$WORK"
	rm -rf "$OUT"
	[[ "$CREATED_CACHE_DIR" == true ]] && rmdir "$REPO/.cache" 2>/dev/null
	[[ "$CREATED_DEMO_BIN" == true ]] && rm -f "$REPO/$DEMO_BIN"
	exit "$rc"
}

# --- preflight -------------------------------------------------------------

decide_strictness() {
	local how=${WARDEN_CONTAINER_ACTION:-auto}
	case $how in
	strict) ACTION_STRICT=true ;;
	pending) ACTION_STRICT=false ;;
	auto) if [[ -f "$REPO/action.yml" ]]; then ACTION_STRICT=true; fi ;;
	*) die "WARDEN_CONTAINER_ACTION must be auto, strict or pending" ;;
	esac
	if [[ "$ACTION_STRICT" == true ]]; then
		log "[go] checks: counted ($how)"
	else
		log "[go] checks: reported as PENDING, not counted ($how)"
	fi
}

# podman and runc run the containers, debootstrap makes the bases. As root
# no uidmap/slirp4netns/fuse-overlayfs is needed (those serve rootless).
ensure_tools() {
	local t need=()
	for t in podman runc debootstrap; do
		command -v "$t" >/dev/null 2>&1 || need+=("$t")
	done
	# openssl names the local CAs mounted into the build (host_ca_mounts).
	if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null && ! command -v openssl >/dev/null 2>&1; then
		need+=(openssl)
	fi
	((${#need[@]} == 0)) && return 0
	[[ "${WARDEN_CONTAINER_NO_INSTALL:-0}" != 1 ]] ||
		skip "${need[*]} not installed (WARDEN_CONTAINER_NO_INSTALL=1)"
	command -v apt-get >/dev/null 2>&1 || skip "${need[*]} not installed and no apt-get"
	log "installing ${need[*]}"
	if ! {
		apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
	} >"$WORK/apt.log" 2>&1; then
		tail -n 15 "$WORK/apt.log"
		skip "could not install ${need[*]} with apt-get (log above)"
	fi
}

# shellcheck source=scripts/container/containers-conf.sh
source "$(dirname "${BASH_SOURCE[0]}")/containers-conf.sh"

# A kernel or filesystem without overlay support (e.g. storage on overlayfs
# itself) needs vfs: slower and bigger, but it works everywhere. Kept in a
# storage root of its own so it never mixes with the default store.
use_vfs_storage() {
	cat >"$STATE/storage-vfs.conf" <<-EOF
		[storage]
		driver = "vfs"
		graphroot = "$STATE/storage-vfs"
		runroot = "$STATE/run-vfs"
	EOF
	export CONTAINERS_STORAGE_CONF="$STATE/storage-vfs.conf"
}

# Can this machine run a container at all? A tiny image (one static Go
# binary) answers in seconds, before minutes go into the bases. Failures
# here are about the machine (namespaces, cgroups, storage), hence SKIP.
probe_runtime() {
	local src="$WORK/probe-src" root="$WORK/probe-root" out
	mkdir -p "$src" "$root"
	printf 'module probe\n\ngo 1.21\n' >"$src/go.mod"
	cat >"$src/main.go" <<-'EOF'
		package main

		import "fmt"

		func main() { fmt.Println("probe ok") }
	EOF
	(cd "$src" && CGO_ENABLED=0 GOWORK=off GOFLAGS='' go build -o "$root/probe" .) ||
		die "could not build the probe binary with the host's Go"
	if ! out=$(podman info --format '{{.Store.GraphDriverName}}' 2>&1); then
		skip "podman info failed: $(tail -n 1 <<<"$out")"
	fi
	log "podman $(podman version --format '{{.Client.Version}}'), runc $(runc --version | awk 'NR==1 {print $3}'), storage $out"
	local attempt
	for attempt in default vfs; do
		if out=$(tar -C "$root" -c . | podman import -q --change 'ENTRYPOINT ["/probe"]' - "$PROBE_IMAGE" 2>&1) &&
			out=$(podman run --rm --network none "$PROBE_IMAGE" 2>&1) && [[ "$out" == *"probe ok"* ]]; then
			log "container runtime works (storage: $attempt)"
			# Re-imported each run: drop it rather than leave untagged copies.
			podman rmi "$PROBE_IMAGE" >/dev/null 2>&1 || true
			return 0
		fi
		if [[ "$attempt" == default && "$out" == *overlay* ]]; then
			log "overlay storage failed ($(tail -n 1 <<<"$out")); retrying with vfs"
			use_vfs_storage
			continue
		fi
		break
	done
	skip "cannot run containers here: $(tail -n 1 <<<"$out")"
}

# --- host preparation -------------------------------------------------------

prepare_host() {
	local pkg
	pkg=$(cd "$REPO" && go list -e -f '{{.Name}}' . 2>/dev/null) || pkg=""
	[[ "$pkg" == main ]] || skip "no main package at the repo root yet (the Dockerfile builds '.')"
	mkdir -p "$OUT" "$WORK/home" "$WORK/workflow"
	printf '{}\n' >"$WORK/workflow/event.json"

	if [[ -d "$REPO/testdata/demo/server" ]]; then
		# No Go toolchain in the runtime image: build the demo server on
		# the host, static so it runs on any base.
		[[ -e "$REPO/$DEMO_BIN" ]] || CREATED_DEMO_BIN=true
		if (cd "$REPO" && CGO_ENABLED=0 go build -trimpath -o "$DEMO_BIN" ./testdata/demo/server); then
			DEMO=$DEMO_BIN
			pass "demo server builds statically on the host"
		else
			fail "demo server builds statically on the host"
		fi
	else
		pending "[go] testdata/demo/server is not in the repo yet: demo scenario not run"
	fi

	if [[ ! -f "$REPO/testdata/npm/package-lock.json" ]]; then
		pending "[go] testdata/npm/package-lock.json is not in the repo yet: npm scenario not run"
	elif [[ -f "$REPO/$MEMORY_JS" ]]; then
		NPM_OK=true
	elif ! command -v npm >/dev/null 2>&1; then
		fail "npm on the host to install testdata/npm (not found)"
	elif (cd "$REPO/testdata/npm" && npm ci --ignore-scripts --no-audit --no-fund >"$WORK/npm.log" 2>&1) &&
		[[ -f "$REPO/$MEMORY_JS" ]]; then
		NPM_OK=true
	else
		tail -n 15 "$WORK/npm.log" 2>/dev/null
		fail "npm ci in testdata/npm"
	fi
}

# --- image -------------------------------------------------------------------

# with_progress LABEL LOG CMD...: run CMD with its output in LOG, printing
# a line every 15 s while it runs (elapsed time and LOG's last STEP line),
# so a long silent step shows it is alive. Returns CMD's status.
with_progress() {
	local label=$1 logf=$2 pid t0 next rc last
	shift 2
	t0=$SECONDS
	next=$((t0 + 15))
	"$@" >"$logf" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if ((SECONDS >= next)); then
			next=$((SECONDS + 15))
			last=$(grep -E 'STEP [0-9]+/[0-9]+|^\[build-bases\]' "$logf" 2>/dev/null | tail -n 1 | cut -c1-100)
			printf '  ... %s: %ds%s\n' "$label" $((SECONDS - t0)) "${last:+ ($last)}"
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	return "$rc"
}

# The local CAs this machine trusts beyond Debian's (a TLS-intercepting
# egress proxy's), as podman build -v arguments: each at
# /etc/ssl/certs/<subject hash>.0, where OpenSSL's CA path (curl) and Go's
# certificate directory scan find it. Nothing on a GitHub runner needs
# this; the Dockerfile is unchanged.
host_ca_mounts() {
	local f h
	command -v openssl >/dev/null 2>&1 || return 0
	for f in /usr/local/share/ca-certificates/*.crt; do
		[[ -f "$f" ]] || continue
		h=$(openssl x509 -noout -subject_hash -in "$f" 2>/dev/null) || continue
		printf -- '-v\n%s:/etc/ssl/certs/%s.0:ro\n' "$f" "$h"
	done
}

build_image() {
	local t0 args=(
		--pull=never
		# RUN steps use the host's network stack: no CNI plugins needed.
		--network host
		-f "$REPO/Dockerfile"
		-t "$IMAGE"
	)
	mapfile -t -O "${#args[@]}" args < <(host_ca_mounts)
	BUILT_IMAGE=true
	t0=$(now_ms)
	# The build stage first, tagged (its layers would otherwise be dangling
	# and pruned), then the image; the second build reuses the first's
	# layers.
	if ! with_progress "podman build (build stage)" "$WORK/build.log" \
		podman build "${args[@]/#$IMAGE/$BUILD_STAGE_IMAGE}" --target build "$REPO" ||
		! with_progress "podman build" "$WORK/build-image.log" podman build "${args[@]}" "$REPO"; then
		cat "$WORK/build-image.log" >>"$WORK/build.log" 2>/dev/null || true
		tail -n 40 "$WORK/build.log"
		die "podman build of the Dockerfile failed (last 40 lines above)"
	fi
	cat "$WORK/build-image.log" >>"$WORK/build.log"
	BUILD_MS=$(($(now_ms) - t0))
	log "built in $(fmt_ms "$BUILD_MS"); steps taken from cache: $(grep -c 'Using cache' "$WORK/build.log" || true) of $(grep -cE 'STEP [0-9]+/[0-9]+' "$WORK/build.log" || true)"
	IMAGE_SIZE=$(podman image inspect --format '{{.Size}}' "$IMAGE")
	log "image $IMAGE: $IMAGE_SIZE bytes ($((IMAGE_SIZE / 1000000)) MB)"
}

# lacks ERE FILE: no instruction line of FILE (comments left out) matches ERE.
lacks() { ! grep -v '^[[:space:]]*#' "$2" | grep -Eq -- "$1"; }

# The Dockerfile builds with any builder: none of BuildKit's own syntax.
static_checks() {
	local df="$REPO/Dockerfile"
	check "Dockerfile has no RUN --mount (BuildKit only)" lacks '--mount=' "$df"
	check "Dockerfile has no heredoc (BuildKit only)" lacks '^[[:space:]]*(RUN|COPY)[^#]*<<' "$df"
	check "Dockerfile has no COPY --link / --chmod / --parents (BuildKit only)" lacks '--(link|chmod|parents)' "$df"
	check "Dockerfile has no # syntax= directive" bash -c '! grep -Eq "^#[[:space:]]*syntax=" "$1"' _ "$df"
	check "Dockerfile takes no base image from a build arg" lacks '^FROM[[:space:]]+[^[:space:]]*\$' "$df"
}

is_root_user() { [[ -z "$1" || "$1" == root || "$1" == 0 || "$1" == 0:0 ]]; }

in_image() {
	podman run --rm --network "$RUN_NETWORK" --entrypoint /bin/sh "$IMAGE" -c "$1"
}

smoke_tests() {
	local ep user ver out
	ep=$(podman image inspect --format '{{json .Config.Entrypoint}}' "$IMAGE")
	check "entrypoint is /usr/local/bin/warden (got $ep)" [ "$ep" = '["/usr/local/bin/warden"]' ]
	ver=$(podman image inspect --format '{{index .Labels "org.opencontainers.image.version"}}' "$IMAGE")
	check "label org.opencontainers.image.version=$VERSION (got $ver)" [ "$ver" = "$VERSION" ]
	user=$(podman image inspect --format '{{.Config.User}}' "$IMAGE")
	check "image runs as root, as GitHub expects (User='$user')" is_root_user "$user"
	out=$(in_image 'node --version && npm --version && npx --version && python3 --version' 2>&1) || true
	log "runtimes: $(tr '\n' ' ' <<<"$out")"
	check "node, npm, npx, python3 run in the image" in_image 'node --version && npm --version && npx --version && python3 --version'
	check "node is at least 20 (current npm MCP servers need it)" \
		in_image 'test "$(node -p "process.versions.node.split(\".\")[0]")" -ge 20'
	check "uv and uvx are on PATH (here the stand-in; real uv: GitHub only)" \
		in_image 'uv --version && uvx --version'
	check "CA roots for npx and uvx downloads" in_image 'test -s /etc/ssl/certs/ca-certificates.crt'
	check "git runs in the image (the pull-request review reads the base lock with it)" in_image 'git --version'
	out=$(podman run --rm --network "$RUN_NETWORK" "$IMAGE" version 2>&1) || true
	log "warden version: $out"
	check_go "warden version of the unstamped image is 'warden $VERSION'" [ "$out" = "warden $VERSION" ]
}

# --- running the action ---------------------------------------------------------

# run_action NAME MODE SERVER_CMD LOCK SARIF [INPUT_X=value...]
# Runs the image like GitHub's runner: root, --workdir on the mounted
# workspace, file commands under /github/file_commands, HOME on a mount,
# and every input action.yml declares as INPUT_* (GitHub passes defaults
# too). LOCK and SARIF are relative to the workspace, which is the repo
# unless WS_HOST names another directory (HOME_HOST: the same for HOME). Sets RC, RUN_MS
# (podman run to exit, wall time), FC (file-command dir) and LOG.
run_action() {
	local name=$1 mode=$2 cmd=$3 lock=$4 sarif=$5 t0 kv
	shift 5
	local -A input=(
		[SERVER-CMD]=$cmd [SERVER-URL]='' [HEADERS]='' [ENV]=''
		[LOCK]=$lock [SARIF]=$sarif [TIMEOUT]=60 [MAX-PAGES]=256
		[WORKING-DIRECTORY]=. [MODE]=$mode [APPROVER]=''
	)
	# On drift a check writes the captured lock; keep it among the test's
	# outputs, not beside the committed lock (a pin refuses the input).
	[[ "$mode" == check ]] && input[CANDIDATE-LOCK]="$OUT_REL/$name.candidate.lock"
	for kv in "$@"; do
		kv=${kv#INPUT_}
		input[${kv%%=*}]=${kv#*=}
	done
	local inputs=()
	for kv in "${!input[@]}"; do
		inputs+=(-e "INPUT_$kv=${input[$kv]}")
	done
	FC="$WORK/file_commands-$name"
	LOG="$WORK/$name.log"
	mkdir -p "$FC"
	: >"$FC/output"
	: >"$FC/summary"
	: >"$FC/env"
	: >"$FC/path"
	: >"$FC/state"
	CONTAINERS+=("warden-ct-$$-$name")
	t0=$(now_ms)
	set +e
	podman run --rm --name "warden-ct-$$-$name" --network "$RUN_NETWORK" \
		--workdir "$WS" \
		-v "${WS_HOST:-$REPO}:$WS" \
		-v "$FC:/github/file_commands" \
		-v "${HOME_HOST:-$WORK/home}:/github/home" \
		-v "$WORK/workflow:/github/workflow" \
		-e HOME=/github/home \
		-e CI=true -e GITHUB_ACTIONS=true -e RUNNER_OS=Linux -e RUNNER_ARCH=X64 \
		-e GITHUB_WORKSPACE="$WS" \
		-e GITHUB_REPOSITORY=wardenlock/warden -e GITHUB_RUN_ID=1 -e GITHUB_ACTOR=container-test \
		-e GITHUB_EVENT_NAME=push -e GITHUB_EVENT_PATH=/github/workflow/event.json \
		-e GITHUB_OUTPUT=/github/file_commands/output \
		-e GITHUB_STEP_SUMMARY=/github/file_commands/summary \
		-e GITHUB_ENV=/github/file_commands/env \
		-e GITHUB_PATH=/github/file_commands/path \
		-e GITHUB_STATE=/github/file_commands/state \
		"${inputs[@]}" \
		"$IMAGE" action >"$LOG" 2>&1
	RC=$?
	set -e
	RUN_MS=$(($(now_ms) - t0))
	log "$name: mode=$mode exit=$RC in $(fmt_ms "$RUN_MS")"
	sed 's/^/    | /' "$LOG" | tail -n 12
}

# gh_output NAME: the last value of output NAME in $FC/output, in either
# file-command form GitHub accepts: `name=value` or a heredoc
# `name<<DELIM ... DELIM` (what go-githubactions writes).
gh_output() {
	awk -v want="$1" '
		delim != "" {
			if ($0 == delim) { if (key == want) { out = val; found = 1 }; delim = ""; next }
			val = (nl ? val "\n" : "") $0; nl = 1; next
		}
		{
			eq = index($0, "="); hd = index($0, "<<")
			if (eq > 0 && (hd == 0 || eq < hd)) {
				if (substr($0, 1, eq - 1) == want) { out = substr($0, eq + 1); found = 1 }
			} else if (hd > 0) {
				key = substr($0, 1, hd - 1); delim = substr($0, hd + 2); val = ""; nl = 0
			}
		}
		END { if (found) print out; exit !found }' "$FC/output"
}

output_is() { [[ "$(gh_output "$1" 2>/dev/null)" == "$2" ]]; }

# json_py FILE CODE: run Python CODE with `d` bound to FILE's parsed JSON,
# with the host's python3 or else the image's (which always has one).
json_py() {
	local f=$1 prog
	prog='import json, sys
d = json.load(open(sys.argv[1]))
'"$2"
	[[ -s "$f" ]] || return 1
	if command -v python3 >/dev/null 2>&1; then
		python3 -c "$prog" "$f" 2>/dev/null
	else
		podman run --rm --network none -v "$f:/check.json:ro" --entrypoint python3 "$IMAGE" \
			-c "$prog" /check.json 2>/dev/null
	fi
}

# json_query FILE EXPR: FILE is JSON and the Python EXPR over it is truthy.
json_query() { json_py "$1" "sys.exit(0 if ($2) else 1)"; }

lock_digest() { json_py "$1" 'print(d["overall_digest"])'; }

digest_is() { [[ -n "$2" && "$(lock_digest "$1")" == "$2" ]]; }

# Assertions shared by every check-mode run (all depend on the Go side).
assert_check_run() {
	local name=$1 want_rc=$2 want_verdict=$3 sarif=$4
	check_go "$name: exit code $want_rc (got $RC)" [ "$RC" -eq "$want_rc" ]
	check_go "$name: output exit-code=$want_rc" output_is exit-code "$want_rc"
	check_go "$name: output verdict=$want_verdict (got '$(gh_output verdict 2>/dev/null || true)')" \
		output_is verdict "$want_verdict"
	check_go "$name: output sarif=$sarif" output_is sarif "$sarif"
	check_go "$name: step summary is not empty" [ -s "$FC/summary" ]
	check_go "$name: SARIF file exists and is JSON with runs" json_query "$REPO/$sarif" '"runs" in d'
}

scenario_demo() {
	[[ -n "$DEMO" ]] || return 0
	local lock=testdata/demo/warden.lock want
	want=$(lock_digest "$REPO/$lock") || want=""
	# The committed lock pins argv ["testdata/demo/bin/demo-server"]: the
	# same relative launch works on the host and in the container.
	run_action demo-check check "$DEMO" "$lock" "$OUT_REL/demo-check.sarif"
	DEMO_RUN_MS=$RUN_MS
	assert_check_run demo-check 0 clean "$OUT_REL/demo-check.sarif"
	check_go "demo-check: output drift-count=0" output_is drift-count 0
	check_go "demo-check: output overall-digest equals the committed lock's" \
		output_is overall-digest "$want"

	# Same launch, drifted declarations (the rug-pull case): DEMO_MUTATE
	# reaches the server only through the action's env input.
	run_action demo-drift check "$DEMO" "$lock" "$OUT_REL/demo-drift.sarif" INPUT_ENV=DEMO_MUTATE=1
	assert_check_run demo-drift 1 drift "$OUT_REL/demo-drift.sarif"
	check_go "demo-drift: SARIF has WRD-DRIFT-* results" json_query "$REPO/$OUT_REL/demo-drift.sarif" \
		'any(r.get("ruleId", "").startswith("WRD-DRIFT-") for r in d["runs"][0]["results"])'

	# -mutate changes the launch as well: identity and surface drift.
	run_action demo-mutate check "$DEMO -mutate" "$lock" "$OUT_REL/demo-mutate.sarif"
	assert_check_run demo-mutate 1 drift "$OUT_REL/demo-mutate.sarif"
	check_go "demo-mutate: the log shows the launch argv by argv" grep -q -- '\* argv\[1\]  (none)' "$LOG"
	check_go "demo-mutate: the summary shows the launch beside the item" grep -q 'Launch (server-identity)' "$FC/summary"

	# Refused input: a shell metacharacter is an error (2), never a run.
	run_action demo-refused check "$DEMO; echo injected" "$lock" "$OUT_REL/demo-refused.sarif"
	check_go "demo-refused: exit code 2 (got $RC)" [ "$RC" -eq 2 ]
	check_go "demo-refused: output verdict=error" output_is verdict error
	check_go "demo-refused: no SARIF written" [ ! -e "$REPO/$OUT_REL/demo-refused.sarif" ]


	# A lock outside the workspace is refused before anything runs, and the
	# message names it as the workflow wrote it, not as the container sees it.
	run_action demo-outside pin "$DEMO" ../pinned.lock "$OUT_REL/demo-outside.sarif"
	check_go "demo-outside: pin to ../pinned.lock exits 2 (got $RC)" [ "$RC" -eq 2 ]
	check_go "demo-outside: nothing written outside the workspace" [ ! -e "$(dirname "$REPO")/pinned.lock" ]
	check_go "demo-outside: the error names ../pinned.lock once, workspace-relative" \
		bash -c '[[ $(grep -cx "error: input lock: \"../pinned.lock\" is outside the workspace" "$1") == 1 && $(grep -c "/github/workspace" "$1") == 0 ]]' _ "$LOG"

	# Pinning inside the container reproduces the committed digest.
	run_action demo-pin pin "$DEMO" "$OUT_REL/demo-pinned.lock" "$OUT_REL/demo-pin.sarif"
	check_go "demo-pin: exit code 0 (got $RC)" [ "$RC" -eq 0 ]
	check_go "demo-pin: output exit-code=0" output_is exit-code 0
	check_go "demo-pin: lock written with the committed overall_digest" \
		digest_is "$REPO/$OUT_REL/demo-pinned.lock" "$want"
}

scenario_npm() {
	[[ "$NPM_OK" == true ]] || return 0
	local cmd="node $MEMORY_JS" lock="$OUT_REL/npm.lock"
	run_action npm-pin pin "$cmd" "$lock" "$OUT_REL/npm-pin.sarif"
	check_go "npm-pin: exit code 0 (got $RC)" [ "$RC" -eq 0 ]
	check_go "npm-pin: output exit-code=0" output_is exit-code 0
	check_go "npm-pin: lock written, JSON with tools" json_query "$REPO/$lock" 'len(d["tools"]) > 0'
	run_action npm-check check "$cmd" "$lock" "$OUT_REL/npm-check.sarif"
	NPM_RUN_MS=$RUN_MS
	assert_check_run npm-check 0 clean "$OUT_REL/npm-check.sarif"
}

# A workspace and HOME owned by the runner's user (uid 1001), as GitHub
# mounts them into the container, which runs as root: whatever a run makes
# there (locks, SARIF, a candidate lock, their new directories) must be
# uid 1001's afterwards, or the next checkout cannot delete it.
scenario_owner() {
	[[ -n "$DEMO" ]] || return 0
	local ws="$WORK/ws-1001" home="$WORK/home-1001" bad
	mkdir -p "$ws/$(dirname "$DEMO")" "$home"
	cp "$REPO/$DEMO" "$ws/$DEMO"
	chown -R 1001:1001 "$ws" "$home"
	WS_HOST=$ws HOME_HOST=$home run_action owner-pin pin "$DEMO" locks/deep/warden.lock reports/deep/pin.sarif
	check_go "owner-pin: exit code 0 (got $RC)" [ "$RC" -eq 0 ]
	WS_HOST=$ws HOME_HOST=$home run_action owner-check check "$DEMO -mutate" locks/deep/warden.lock reports/deep/check.sarif
	check_go "owner-check: exit code 1 (got $RC)" [ "$RC" -eq 1 ]
	check_go "owner-check: the candidate lock was written" [ -f "$ws/$OUT_REL/owner-check.candidate.lock" ]
	bad=$(find "$ws" "$home" \( ! -uid 1001 -o ! -gid 1001 \) -printf '%P(%U:%G) ' | head -c 300)
	check_go "owner: every entry in the workspace and HOME is uid 1001's${bad:+ (not: $bad)}" [ -z "$bad" ]
}

report() {
	local t
	end_phase
	printf '\n== summary\n'
	[[ -n "$BUILD_MS" ]] && printf 'image build    %s (podman build, this run)\n' "$(fmt_ms "$BUILD_MS")"
	[[ -n "$IMAGE_SIZE" ]] && printf 'image size     %s bytes (%d MB)\n' "$IMAGE_SIZE" $((IMAGE_SIZE / 1000000))
	[[ -n "$DEMO_RUN_MS" ]] && printf 'demo check run %s (podman run to exit)\n' "$(fmt_ms "$DEMO_RUN_MS")"
	[[ -n "$NPM_RUN_MS" ]] && printf 'npm check run  %s (podman run to exit)\n' "$(fmt_ms "$NPM_RUN_MS")"
	for t in "${TIMINGS[@]}"; do
		printf 'phase %s\n' "$t"
	done
	printf 'container: %d passed, %d failed, %d skipped\n' "$PASSED" "$FAILED" "$PENDING"
}

main() {
	[[ $# -eq 0 ]] || {
		sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
		exit 0
	}
	[[ $(id -u) -eq 0 ]] || skip "needs root (debootstrap and rootful podman); running as uid $(id -u)"
	command -v go >/dev/null 2>&1 || die "go not found (needed for the bases and the demo server)"
	mkdir -p "$STATE"
	[[ -d "$REPO/.cache" ]] || CREATED_CACHE_DIR=true
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/warden-container-test.XXXXXX")
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# One run at a time per machine: runs share the image tag and the bases.
	exec 8>"$STATE/test.lock"
	flock 8

	phase preflight
	decide_strictness
	ensure_tools
	ensure_containers_conf
	probe_runtime

	phase static
	static_checks

	phase bases
	if ! with_progress "base images" "$WORK/bases.log" \
		env WARDEN_CONTAINER_STATE="$STATE" bash "$HERE/build-bases.sh"; then
		cat "$WORK/bases.log"
		die "making the Dockerfile's base images available failed"
	fi
	grep -E 'built in|is current' "$WORK/bases.log" || true
	local out base
	base=$(bash "$HERE/build-bases.sh" --list | sed -n 1p)
	out=$(podman run --rm --network none "$base" true 2>&1) ||
		skip "cannot run the base image $base: $(tail -n 1 <<<"$out")"

	phase host-prep
	prepare_host

	phase build
	build_image

	phase smoke
	smoke_tests

	phase demo
	scenario_demo

	phase npm
	scenario_npm

	phase owner
	scenario_owner

	report
	((FAILED == 0))
}

main "$@"

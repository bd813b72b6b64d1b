# warden as a Docker container action.
#
# GitHub builds this file on every workflow run (action.yml: runs.using:
# docker, image: Dockerfile, args: ["action"]) with plain `docker build`, so
# the defaults below must work with no --build-arg at all. Local and CI test
# builds (scripts/container/test.sh) swap the base images for stand-ins
# made by scripts/container/build-bases.sh, because no registry other than
# the Go module proxy, npm and Debian's archive is reachable there:
#
#   podman build --network host --pull=never \
#     --build-arg GO_IMAGE=localhost/warden-go-base:1.26 \
#     --build-arg RUNTIME_IMAGE=localhost/warden-runtime-base:bookworm \
#     --build-arg UV_IMAGE=localhost/warden-uv-standin:local \
#     -t localhost/warden-action:test .
#
# To leave uv out instead of using the stand-in, point UV_IMAGE at any
# local image and pass --build-arg WITH_UV=false.
#
# RUN --mount (cache and bind mounts below) needs BuildKit, which is what
# `docker build` uses by default since Docker 23 and on GitHub's hosted
# runners; buildah/podman support the same syntax.
#
# Pins are exact versions, not floating tags, so a rebuild next month starts
# from the same toolchain; bump them deliberately (ideally also pin digests:
# golang:1.26.8-bookworm@sha256:...).

# Go toolchain for the build stage. Any image with Go >= go.mod's version
# and a POSIX shell works.
ARG GO_IMAGE=golang:1.26.8-bookworm
# Runtime: Debian bookworm (slim) carrying Node.js, npm and npx. Node 24 LTS
# rather than Debian's own nodejs 18 (end of life) because current npm MCP
# servers declare engines >= 20. python3 is added below when missing.
ARG RUNTIME_IMAGE=node:24.21.0-bookworm-slim
# Official uv image: a scratch image holding only /uv and /uvx.
ARG UV_IMAGE=ghcr.io/astral-sh/uv:0.13.8
# Stamped into the binary (main.version) and the image label. GitHub passes
# no build args to a Dockerfile action, so this default is what the
# published action reports and records in locks as warden_version: set it
# when cutting a release.
ARG WARDEN_VERSION=dev

# `COPY --from=` does not expand build args (BuildKit rejects it), so the uv
# image gets a stage of its own that later steps refer to by name. Locally
# UV_IMAGE points at the stand-in (same layout, stub programs), or at any
# image already present together with WITH_UV=false, which turns the
# install step into a no-op.
FROM ${UV_IMAGE} AS uv

# ---------------------------------------------------------------------------
FROM ${GO_IMAGE} AS build

# Module download settings. Defaults equal Go's own; override to use a
# mirror, or to build from a prebuilt module cache without network, e.g.
# with podman:
#   podman build -v "$(go env GOMODCACHE)":/gomodcache-seed:ro \
#     --build-arg GOPROXY=file:///gomodcache-seed/cache/download,off ...
ARG GOPROXY=https://proxy.golang.org,direct
ARG GOFLAGS=
ARG WARDEN_VERSION

# Fixed cache locations so the cache mounts below hit them whatever GOPATH
# the GO_IMAGE declares. CGO off: the binary must be static to run on any
# runtime base.
ENV CGO_ENABLED=0 \
    GOMODCACHE=/go/pkg/mod \
    GOCACHE=/root/.cache/go-build

WORKDIR /src

# Modules first, in their own layer, so source edits do not re-download.
# The cache mounts keep modules and compiled packages across builds without
# baking them into any layer (BuildKit and buildah both support them).
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download

COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags "-s -w -X main.version=${WARDEN_VERSION}" \
        -o /out/warden .

# ---------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE} AS runtime

ARG WARDEN_VERSION
# true: install uv/uvx from UV_IMAGE (the default; the real action needs
# them for uvx-launched servers). false: skip, for local builds that cannot
# pull UV_IMAGE. Anything else is an error rather than a silent skip.
ARG WITH_UV=true

# Make sure the launchers MCP servers are started with exist, whatever the
# base: the node image lacks python3 (and may lack CA roots); the local
# Debian stand-in already has everything, so this installs nothing there and
# needs no network. npm's update notifier is switched off globally because
# warden spawns servers with a scrubbed environment (env vars would not
# reach npx) and the notice would only add network calls and stderr noise.
RUN set -eu; \
    missing=""; \
    command -v node    >/dev/null 2>&1 || missing="$missing nodejs"; \
    command -v npm     >/dev/null 2>&1 || missing="$missing npm"; \
    command -v python3 >/dev/null 2>&1 || missing="$missing python3"; \
    test -s /etc/ssl/certs/ca-certificates.crt || missing="$missing ca-certificates"; \
    if [ -n "$missing" ]; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing; \
        apt-get clean; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    npm config --global set update-notifier false; \
    npm config --global set fund false; \
    echo "node $(node --version), npm $(npm --version), npx $(npx --version), $(python3 --version)"

RUN --mount=type=bind,from=uv,source=/,target=/mnt/uv \
    set -eu; \
    case "$WITH_UV" in \
      true)  install -m 0755 /mnt/uv/uv /mnt/uv/uvx /usr/local/bin/ \
             && uv --version && uvx --version ;; \
      false) echo "WITH_UV=false: uv/uvx not installed (local test build only)" ;; \
      *)     echo "WITH_UV must be true or false, got '$WITH_UV'" >&2; exit 1 ;; \
    esac

COPY --from=build /out/warden /usr/local/bin/warden

LABEL org.opencontainers.image.title="warden" \
      org.opencontainers.image.description="Pin and check the declared tool surface of MCP servers (GitHub Action)" \
      org.opencontainers.image.source="https://github.com/wardenlock/warden" \
      org.opencontainers.image.version="${WARDEN_VERSION}"

# Deliberately no USER: GitHub runs container actions as root with
# --workdir /github/workspace and bind-mounts the workspace, HOME and the
# file-command directory from the host, all owned by the runner's uid
# (1001). A non-root uid in the image would match neither, so writing
# $GITHUB_OUTPUT, the step summary, SARIF or a pinned lock would fail with
# EACCES. GitHub's documentation for Docker actions says the same: run as
# the default (root) user and do not set USER.
ENTRYPOINT ["/usr/local/bin/warden"]

# warden as a Docker container action.
#
# GitHub builds this file when action.yml says `image: Dockerfile` (the
# main branch between releases; a release moves action.yml to the prebuilt
# image by digest, see .github/workflows/release.yml). It builds with plain
# `docker build`, no build args, BuildKit or the classic builder: this file
# uses no BuildKit-only syntax (no RUN --mount, no heredocs, no COPY --link),
# so act, self-hosted runners without buildx and podman/buildah build it too.
#
# Every input comes from a source that GitHub's runners and warden's own
# development and CI machines (which reach no container registry) both
# reach, except the two images named in FROM / COPY --from:
#
#   base image        docker.io/library/debian:trixie-slim (Debian 13)
#   node, npm, npx,   Debian's archive (apt-get): Node.js 20 LTS, npm 9,
#   python3           Python 3.13
#   Go toolchain      the Go module proxy (golang.org/toolchain module),
#                     checked against the SHA-256 sums below
#   Go modules        the Go module proxy, checked against go.sum
#   uv, uvx           ghcr.io/astral-sh/uv (copied from the official image)
#
# scripts/container/test.sh builds this file unmodified, with no build args.
# Where no registry is reachable, scripts/container/build-bases.sh stands in
# for the two images under these exact names: debian:trixie-slim is made
# from Debian's archive with debootstrap (the same packages), uv is a stub
# that answers --version only. Real uv is therefore checked on GitHub only,
# by the action self-test workflow (docs/action.md, "What the container test
# cannot check here").

# ---------------------------------------------------------------------------
FROM docker.io/library/debian:trixie-slim AS build

RUN set -eu; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ca-certificates curl unzip; \
    rm -rf /var/lib/apt/lists/*

# The Go toolchain, as the `go` command itself fetches it with GOTOOLCHAIN:
# the golang.org/toolchain module zip from the module proxy. The sums are
# those of the official Go 1.26.8 release (the zip's bin/go is byte for byte
# the go.dev download); bump version and sums together.
ARG GO_VERSION=1.26.8
ARG GO_SHA256_AMD64=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7
ARG GO_SHA256_ARM64=02b36b6787b3ac767668f630e2998df45a3b1f9ffee08d1bf3ef6487cd658d99
# Module proxy for the toolchain and the modules (the first URL is used for
# the toolchain). Override to use a mirror.
ARG GOPROXY=https://proxy.golang.org,direct

ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    GOTOOLCHAIN=local \
    CGO_ENABLED=0 \
    GOFLAGS=-trimpath

RUN set -eu; \
    arch=$(dpkg --print-architecture); \
    case "$arch" in \
      amd64) sum=$GO_SHA256_AMD64 ;; \
      arm64) sum=$GO_SHA256_ARM64 ;; \
      *) echo "no Go toolchain checksum for $arch" >&2; exit 1 ;; \
    esac; \
    proxy=${GOPROXY%%[,|]*}; \
    case "$proxy" in http://* | https://*) ;; *) proxy=https://proxy.golang.org ;; esac; \
    mod="v0.0.1-go${GO_VERSION}.linux-${arch}"; \
    echo "fetching Go ${GO_VERSION} for ${arch} from ${proxy}"; \
    curl -fsSL --retry 3 -o /tmp/go.zip "${proxy}/golang.org/toolchain/@v/${mod}.zip"; \
    echo "${sum}  /tmp/go.zip" | sha256sum -c -; \
    unzip -q /tmp/go.zip -d /tmp/go; \
    mv "/tmp/go/golang.org/toolchain@${mod}" /usr/local/go; \
    rm -rf /tmp/go /tmp/go.zip; \
    go version

WORKDIR /src

# Modules first, in their own layer: a source edit does not download them
# again.
COPY go.mod go.sum ./
RUN go mod download

COPY . .
# Stamped into the binary (`warden version`, warden_version in locks) and
# the image label. GitHub passes no build args, so an image built from this
# file on a runner reports "dev"; the release workflow sets the tag.
ARG WARDEN_VERSION=dev
RUN go build -ldflags "-s -w -X main.version=${WARDEN_VERSION}" -o /out/warden . && \
    /out/warden version

# ---------------------------------------------------------------------------
FROM docker.io/library/debian:trixie-slim

# The launchers MCP servers are started with, and git, with which a check on
# a pull request reads the base branch's lock. npm's update notifier and
# funding notes are switched off globally: warden starts servers with a
# scrubbed environment (an npm_config_* variable would not reach npx), and
# they would only add network calls and stderr noise.
RUN set -eu; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ca-certificates git nodejs npm python3; \
    apt-get clean; \
    rm -rf /var/lib/apt/lists/*; \
    npm config --global set update-notifier false; \
    npm config --global set fund false; \
    echo "node $(node --version), npm $(npm --version), npx $(npx --version), $(python3 --version), $(git --version)"

# uv and uvx, for servers launched with `uvx pkg==version`.
COPY --from=ghcr.io/astral-sh/uv:0.13.0 /uv /uvx /usr/local/bin/
RUN uv --version && uvx --version

COPY --from=build /out/warden /usr/local/bin/warden

ARG WARDEN_VERSION=dev
LABEL org.opencontainers.image.title="warden" \
      org.opencontainers.image.description="Pin and check the declared tool surface of MCP servers (GitHub Action)" \
      org.opencontainers.image.source="https://github.com/wardenlock/warden" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${WARDEN_VERSION}"

# Deliberately no USER: GitHub runs container actions as root with
# --workdir /github/workspace and bind-mounts the workspace, HOME and the
# file-command directory from the host, all owned by the runner's uid
# (1001). A non-root uid in the image would match neither, so writing
# $GITHUB_OUTPUT, the step summary, SARIF or a pinned lock would fail with
# EACCES. GitHub's documentation for Docker actions says the same: run as
# the default (root) user and do not set USER. What a run makes as root in
# the workspace and in HOME, warden gives back to their owner as it ends
# (docs/action.md, "Files in the workspace"), so the runner user can
# delete it. No cache or home directory is set here: npm, npx and uv keep
# theirs under HOME, which the runner points at /github/home, outside the
# workspace (and which is /root when nothing sets it).
ENTRYPOINT ["/usr/local/bin/warden"]

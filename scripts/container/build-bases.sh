#!/usr/bin/env bash
# Build the local stand-ins for the Dockerfile's base images.
#
# No container registry is reachable from development and CI machines, so
# golang:*, node:* and debian:* cannot be pulled. This script builds two
# equivalent images from Debian's archive (reachable through apt's mirror)
# and `podman import`s them:
#
#   runtime base  debootstrap --variant=minbase bookworm + nodejs, npm,
#                 python3, ca-certificates, trimmed like bookworm-slim
#   Go base       debootstrap --variant=minbase bookworm + ca-certificates +
#                 the host's Go toolchain (GOROOT) at /usr/local/go, with the
#                 same GOPATH/PATH/GOTOOLCHAIN settings as the golang image
#   uv stand-in   a scratch image laid out like ghcr.io/astral-sh/uv (/uv,
#                 /uvx), whose two files are shell stubs that answer
#                 --version and refuse everything else, so a local build can
#                 run the Dockerfile's default WITH_UV=true path
#
# Each image carries a stamp label: a hash of this script, the package list,
# the mirror and (for Go) the host's Go version. A base whose stamp still
# matches is kept, so repeated runs cost a few `podman image inspect`s.
#
# Usage: scripts/container/build-bases.sh [--force]
# Environment (all optional):
#   WARDEN_RUNTIME_BASE    image name  (default localhost/warden-runtime-base:bookworm)
#   WARDEN_GO_BASE         image name  (default localhost/warden-go-base:1.26)
#   WARDEN_UV_STANDIN      image name  (default localhost/warden-uv-standin:local)
#   WARDEN_DEBIAN_MIRROR   archive URI (default: the bookworm mirror apt uses here)
#   WARDEN_CONTAINER_STATE state dir   (default /var/tmp/warden-container)
#   CONTAINERS_CONF        podman config; a runc/cgroupfs one is written if unset
set -euo pipefail

readonly SUITE=bookworm
readonly STAMP_LABEL=org.wardenlock.warden.base-stamp
readonly RUNTIME_BASE=${WARDEN_RUNTIME_BASE:-localhost/warden-runtime-base:bookworm}
readonly GO_BASE=${WARDEN_GO_BASE:-localhost/warden-go-base:1.26}
readonly UV_STANDIN=${WARDEN_UV_STANDIN:-localhost/warden-uv-standin:local}
readonly STATE=${WARDEN_CONTAINER_STATE:-/var/tmp/warden-container}
# What the Dockerfile's runtime stage expects to find (node, npm, npx,
# python3, CA roots); anything else would only grow the image.
readonly RUNTIME_PACKAGES=(nodejs npm python3 ca-certificates)
# The Go base only needs CA roots to reach the module proxy over https.
readonly GO_PACKAGES=(ca-certificates)
readonly SELF="${BASH_SOURCE[0]}"

FORCE=false
WORKDIR=""
MOUNTED=()

log() { printf '[build-bases] %s\n' "$*" >&2; }
die() { printf '[build-bases] ERROR: %s\n' "$*" >&2; exit 1; }

cleanup() {
	local m
	# Unmount in reverse order before deleting, or rm would descend into
	# the host's /proc.
	for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
		m=${MOUNTED[i]}
		umount -l "$m" 2>/dev/null || true
	done
	if [[ -n "$WORKDIR" && -d "$WORKDIR" ]]; then
		rm -rf --one-file-system "$WORKDIR"
	fi
}

# Print the first archive URI that apt on this machine uses for SUITE
# ("bookworm", "bookworm-security", ...), from deb822 .sources files and
# one-line .list files alike. Empty output when none.
apt_uri_for_suite() {
	local suite=$1 f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r "$f" ]] || continue
		# Paragraph mode: one deb822 stanza per record.
		awk -v want="$suite" '
			BEGIN { RS = ""; FS = "\n" }
			{
				types = ""; uris = ""; suites = ""; enabled = 1
				for (i = 1; i <= NF; i++) {
					line = $i
					if (line ~ /^[ \t]*#/) continue
					if (line ~ /^Types:/)   { sub(/^Types:[ \t]*/, "", line); types = " " line " " }
					if (line ~ /^URIs:/)    { sub(/^URIs:[ \t]*/, "", line); uris = line }
					if (line ~ /^Suites:/)  { sub(/^Suites:[ \t]*/, "", line); suites = " " line " " }
					if (line ~ /^Enabled:[ \t]*no/) enabled = 0
				}
				if (enabled && types ~ / deb / && suites ~ (" " want " ") && uris != "") {
					split(uris, u, /[ \t]+/); print u[1]; exit
				}
			}' "$f"
	done | head -n 1
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -r "$f" ]] || continue
		awk -v want="$suite" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == want) { print $i; exit }
			}' "$f"
	done | head -n 1
}

# Resolve the mirrors once: main archive (required) plus updates/security
# when the host uses them, so the image's apt sees the same archive state.
resolve_mirrors() {
	MIRROR=${WARDEN_DEBIAN_MIRROR:-$(apt_uri_for_suite "$SUITE" | head -n 1)}
	MIRROR=${MIRROR:-http://deb.debian.org/debian}
	UPDATES_URI=$(apt_uri_for_suite "$SUITE-updates" | head -n 1)
	SECURITY_URI=$(apt_uri_for_suite "$SUITE-security" | head -n 1)
	log "mirror: $MIRROR (updates: ${UPDATES_URI:-none}, security: ${SECURITY_URI:-none})"
}

# shellcheck source=scripts/container/containers-conf.sh
source "$(dirname "${BASH_SOURCE[0]}")/containers-conf.sh"

require_tools() {
	local t missing=()
	for t in debootstrap podman tar chroot sha256sum awk; do
		command -v "$t" >/dev/null 2>&1 || missing+=("$t")
	done
	((${#missing[@]} == 0)) || die "missing tools: ${missing[*]} (apt-get install debootstrap podman)"
	[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap, chroot and rootful podman)"
}

# The stamp covers everything that shapes an image's content.
stamp_of() {
	local kind=$1
	{
		sha256sum "$SELF" | cut -d' ' -f1
		printf 'suite=%s mirror=%s updates=%s security=%s\n' \
			"$SUITE" "$MIRROR" "$UPDATES_URI" "$SECURITY_URI"
		case $kind in
		runtime) printf 'packages=%s\n' "${RUNTIME_PACKAGES[*]}" ;;
		go)
			printf 'packages=%s\n' "${GO_PACKAGES[*]}"
			printf 'go=%s goroot=%s\n' "$(go env GOVERSION)" "$(go env GOROOT)"
			;;
		uv) printf 'uv-standin\n' ;;
		esac
	} | sha256sum | cut -c1-32
}

image_stamp() {
	podman image inspect --format "{{ index .Labels \"$STAMP_LABEL\" }}" "$1" 2>/dev/null || true
}

# One debootstrap per invocation, shared by both bases (each copies it).
# --cache-dir keeps the .debs so a rebuild does not download them again.
ensure_minbase() {
	local dir="$WORKDIR/minbase"
	if [[ ! -d "$dir" ]]; then
		mkdir -p "$STATE/debootstrap-cache"
		log "debootstrap --variant=minbase $SUITE from $MIRROR"
		if ! debootstrap --variant=minbase --include=ca-certificates \
			--cache-dir="$STATE/debootstrap-cache" \
			"$SUITE" "$dir" "$MIRROR" >"$WORKDIR/debootstrap.log" 2>&1; then
			tail -n 30 "$WORKDIR/debootstrap.log" >&2
			die "debootstrap failed (log above)"
		fi
	fi
}

# apt sources inside the image mirror the host's, so apt-get in a
# Dockerfile RUN step works the same locally as the base would on Docker Hub.
write_apt_sources() {
	local root=$1 suites="$SUITE"
	[[ -n "$UPDATES_URI" && "$UPDATES_URI" == "$MIRROR" ]] && suites="$suites $SUITE-updates"
	rm -f "$root/etc/apt/sources.list"
	{
		printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n' "$MIRROR" "$suites"
		printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
		if [[ -n "$SECURITY_URI" ]]; then
			printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\n' "$SECURITY_URI" "$SUITE"
			printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
		fi
	} >"$root/etc/apt/sources.list.d/debian.sources"
}

# Same trimming as Debian's -slim images: no docs, man pages or locales.
write_slim_dpkg_excludes() {
	cat >"$1/etc/dpkg/dpkg.cfg.d/90-warden-slim" <<-'EOF'
		path-exclude /usr/share/doc/*
		path-include /usr/share/doc/*/copyright
		path-exclude /usr/share/man/*
		path-exclude /usr/share/info/*
		path-exclude /usr/share/locale/*
		path-include /usr/share/locale/locale.alias
		path-exclude /usr/share/groff/*
		path-exclude /usr/share/lintian/*
		path-exclude /usr/share/linda/*
	EOF
}

chroot_run() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# Install packages with apt inside the chroot. /proc is mounted because
# some maintainer scripts read it; policy-rc.d stops any daemon start.
apt_install_in() {
	local root=$1
	shift
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
	mount -t proc proc "$root/proc"
	MOUNTED+=("$root/proc")
	chroot_run "$root" apt-get update -q >"$WORKDIR/apt.log" 2>&1 ||
		{ tail -n 20 "$WORKDIR/apt.log" >&2; die "apt-get update in chroot failed"; }
	chroot_run "$root" apt-get install -y -q --no-install-recommends "$@" >>"$WORKDIR/apt.log" 2>&1 ||
		{ tail -n 30 "$WORKDIR/apt.log" >&2; die "apt-get install $* in chroot failed"; }
	umount "$root/proc"
	rm -f "$root/usr/sbin/policy-rc.d"
}

# Remove what a container image should not ship: apt lists and caches,
# logs, the host's resolv.conf (podman supplies one per container).
trim_rootfs() {
	local root=$1
	rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
		"$root"/var/cache/apt/archives/*.deb "$root"/var/cache/debconf/*-old \
		"$root"/var/log/* "$root"/tmp/* "$root"/root/.cache
	: >"$root/etc/resolv.conf"
	: >"$root/etc/hostname"
}

# podman import from a tarball of the rootfs. --numeric-owner keeps uids
# as in the chroot; the --change lines add what a Dockerfile base would
# carry (environment, default command, the cache stamp).
import_rootfs() {
	local root=$1 image=$2 stamp=$3
	shift 3
	local changes=(--change "LABEL $STAMP_LABEL=$stamp")
	local c old new
	for c in "$@"; do
		changes+=(--change "$c")
	done
	old=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
	new=$(tar --numeric-owner --xattrs -C "$root" -c . |
		podman import --quiet "${changes[@]}" --message "warden local base ($stamp)" - "$image")
	# The superseded base is now untagged; drop it unless something (a
	# cached build layer) still uses it.
	if [[ -n "$old" && "$new" != *"$old"* ]]; then
		podman rmi "$old" >/dev/null 2>&1 || true
	fi
}

build_runtime_base() {
	local stamp=$1 root="$WORKDIR/runtime"
	log "building $RUNTIME_BASE (${RUNTIME_PACKAGES[*]})"
	ensure_minbase
	cp -a "$WORKDIR/minbase" "$root"
	write_apt_sources "$root"
	write_slim_dpkg_excludes "$root"
	apt_install_in "$root" "${RUNTIME_PACKAGES[@]}"
	# Fail here, not later in the Dockerfile, if a launcher is missing.
	chroot_run "$root" sh -ec 'node --version; npm --version; npx --version; python3 --version' |
		tr '\n' ' ' | sed 's/^/[build-bases] runtime tools: /; s/ $/\n/' >&2
	trim_rootfs "$root"
	import_rootfs "$root" "$RUNTIME_BASE" "$stamp" \
		'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		'ENV LANG=C.UTF-8' \
		'CMD ["/bin/bash"]'
}

build_go_base() {
	local stamp=$1 root="$WORKDIR/go" goroot
	goroot=$(go env GOROOT)
	log "building $GO_BASE (Go $(go env GOVERSION) from $goroot)"
	ensure_minbase
	cp -a "$WORKDIR/minbase" "$root"
	write_apt_sources "$root"
	# The compiler's own test suite is the only large part `go build`
	# never reads.
	mkdir -p "$root/usr/local/go" "$root/go/bin" "$root/go/src"
	tar -C "$goroot" --exclude=./test -c . | tar -C "$root/usr/local/go" -x
	# No /proc in the chroot, so go cannot locate itself: name GOROOT.
	chroot_run "$root" /usr/bin/env GOROOT=/usr/local/go \
		/usr/local/go/bin/go version 2>/dev/null >&2
	trim_rootfs "$root"
	import_rootfs "$root" "$GO_BASE" "$stamp" \
		'ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		'ENV GOPATH=/go' \
		'ENV GOTOOLCHAIN=local' \
		'ENV LANG=C.UTF-8' \
		'WORKDIR /go' \
		'CMD ["/bin/bash"]'
}

# The official uv image is FROM scratch with /uv and /uvx at its root; the
# stand-in keeps that layout. Its stubs make any real use fail loudly (exit
# 127) instead of pretending that uv works.
build_uv_base() {
	local stamp=$1 root="$WORKDIR/uv" name
	log "building $UV_STANDIN (uv/uvx stubs)"
	mkdir -p "$root"
	for name in uv uvx; do
		cat >"$root/$name" <<-'EOF'
			#!/bin/sh
			# Local stand-in for uv/uvx (ghcr.io/astral-sh/uv cannot be
			# pulled on this machine). Not the real tool.
			me=${0##*/}
			case "${1:-}" in
			--version | -V | version)
				echo "$me 0.0.0 (local stand-in, not the real uv)"
				exit 0
				;;
			esac
			echo "$me: not available in this local test image (UV_IMAGE stand-in)" >&2
			exit 127
		EOF
		chmod 0755 "$root/$name"
	done
	import_rootfs "$root" "$UV_STANDIN" "$stamp" 'ENTRYPOINT ["/uv"]'
}

# Build one base unless its stamp label already matches.
ensure_base() {
	local kind=$1 image=$2 want have started
	want=$(stamp_of "$kind")
	have=$(image_stamp "$image")
	if [[ "$FORCE" == false && "$have" == "$want" ]]; then
		log "$image is current (stamp $want)"
		return
	fi
	started=$SECONDS
	"build_${kind}_base" "$want"
	log "$image built in $((SECONDS - started))s (stamp $want)"
}

main() {
	while (($#)); do
		case $1 in
		--force) FORCE=true ;;
		-h | --help)
			sed -n '2,/^set -euo/p' "$SELF" | sed '$d; s/^# \{0,1\}//'
			return 0
			;;
		*) die "unknown argument: $1" ;;
		esac
		shift
	done
	require_tools
	command -v go >/dev/null 2>&1 || die "go not found: the Go base copies the host's GOROOT"
	ensure_containers_conf
	mkdir -p "$STATE"
	# Two concurrent runs would import over each other's images.
	exec 9>"$STATE/build-bases.lock"
	flock 9
	WORKDIR=$(mktemp -d "$STATE/bases.XXXXXX")
	trap cleanup EXIT
	resolve_mirrors
	ensure_base runtime "$RUNTIME_BASE"
	ensure_base go "$GO_BASE"
	ensure_base uv "$UV_STANDIN"
}

main "$@"

#!/usr/bin/env bash
# Make the images the Dockerfile names available to podman under exactly the
# names it uses, so that the unmodified Dockerfile builds here.
#
# The Dockerfile's external images are read from it: every FROM that is not
# an earlier stage, and every COPY --from= that names an image. No container
# registry is reachable from warden's development and CI machines, so each
# one is stood in for locally, tagged with the very name the Dockerfile uses:
#
#   docker.io/library/debian:SUITE-slim
#                 debootstrap --variant=minbase SUITE from Debian's archive
#                 (the archive the real image is made from), trimmed and
#                 configured like Debian's -slim images (no docs, man pages
#                 or locales; apt sources for SUITE, SUITE-updates and
#                 SUITE-security; apt lists removed)
#   ghcr.io/astral-sh/uv:VERSION
#                 a scratch image laid out like the official one (/uv,
#                 /uvx), whose two files are shell stubs that answer
#                 --version and refuse everything else: real uv is checked
#                 on GitHub only (docs/action.md)
#
# A name the script has no stand-in for is an error: add one here, or run
# on a machine that can pull it (WARDEN_CONTAINER_PULL=1).
#
# Each stand-in carries a stamp label: a hash of the recipe version, the
# mirror and the suite. A stand-in whose stamp still matches is kept, so repeated
# runs cost a few `podman image inspect`s.
#
# Usage: scripts/container/build-bases.sh [--force] [--list]
#   --force  rebuild every stand-in
#   --list   print the Dockerfile's external images and exit
# Environment (all optional):
#   WARDEN_DOCKERFILE      the Dockerfile (default: the repository's)
#   WARDEN_CONTAINER_PULL  1: podman pull the real images instead
#   WARDEN_DEBIAN_MIRROR   archive URI (default: the one apt uses here)
#   WARDEN_CONTAINER_STATE state dir   (default /var/tmp/warden-container)
#   CONTAINERS_CONF        podman config; a runc/cgroupfs one is written if unset
set -euo pipefail

readonly STAMP_LABEL=org.wardenlock.warden.base-stamp
# The stand-ins' recipe version, part of their stamp.
readonly RECIPE=1
readonly STATE=${WARDEN_CONTAINER_STATE:-/var/tmp/warden-container}
readonly SELF="${BASH_SOURCE[0]}"
HERE=$(cd "$(dirname "$SELF")" && pwd)
readonly HERE
readonly DOCKERFILE=${WARDEN_DOCKERFILE:-$HERE/../../Dockerfile}

FORCE=false
WORKDIR=""
MOUNTED=()
MIRROR=""
SECURITY_URI=""

log() { printf '[build-bases] %s\n' "$*" >&2; }
die() {
	printf '[build-bases] ERROR: %s\n' "$*" >&2
	exit 1
}

cleanup() {
	local m i
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

# external_images FILE: the images FILE builds from, one per line, in
# order, each once. Stage names (FROM x AS name) are not images; neither is
# a --from= that names a stage or a stage number.
external_images() {
	awk '
		function strip(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
		function add(img) { if (!(img in seen) && !(tolower(img) in stage) && img !~ /^[0-9]+$/) { seen[img] = 1; print img } }
		{ line = $0 }
		# Joined continuation lines are not needed: FROM and COPY --from
		# carry the image on their first line.
		toupper($1) == "FROM" {
			i = 2
			while (i <= NF && $i ~ /^--/) i++
			if (i <= NF) add($i)
			for (j = i + 1; j < NF; j++) if (toupper($j) == "AS") stage[tolower($(j + 1))] = 1
			next
		}
		toupper($1) == "COPY" || toupper($1) == "ADD" {
			for (j = 2; j <= NF; j++) if ($j ~ /^--from=/) { img = substr($j, 8); add(img) }
		}' "$1"
}

# Print the first archive URI that apt on this machine uses for SUITE,
# from deb822 .sources files and one-line .list files alike. Empty output
# when none.
apt_uri_for_suite() {
	local suite=$1 f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r "$f" ]] || continue
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

# The Debian archive and security archive this machine's apt uses (for any
# suite it lists), else deb.debian.org.
resolve_mirrors() {
	local host_suite
	host_suite=$(. /etc/os-release 2>/dev/null && printf '%s' "${VERSION_CODENAME:-}")
	MIRROR=${WARDEN_DEBIAN_MIRROR:-}
	if [[ -z "$MIRROR" && -n "$host_suite" ]]; then
		MIRROR=$(apt_uri_for_suite "$host_suite")
	fi
	MIRROR=${MIRROR:-http://deb.debian.org/debian}
	if [[ -n "$host_suite" ]]; then
		SECURITY_URI=$(apt_uri_for_suite "$host_suite-security")
	fi
	SECURITY_URI=${SECURITY_URI:-http://deb.debian.org/debian-security}
	log "Debian archive: $MIRROR (security: $SECURITY_URI)"
}

# shellcheck source=scripts/container/containers-conf.sh
source "$HERE/containers-conf.sh"

require_tools() {
	local t missing=()
	for t in debootstrap podman tar chroot sha256sum awk; do
		command -v "$t" >/dev/null 2>&1 || missing+=("$t")
	done
	((${#missing[@]} == 0)) || die "missing tools: ${missing[*]} (apt-get install debootstrap podman)"
	[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap, chroot and rootful podman)"
}

# stamp_of KIND ARG: a hash of everything that shapes a stand-in's content:
# the recipe (bump RECIPE when build_debian_slim or build_uv_stub change
# what they make), the kind and its argument, and the archive.
stamp_of() {
	printf 'recipe=%s kind=%s arg=%s mirror=%s security=%s\n' "$RECIPE" "$1" "$2" "$MIRROR" "$SECURITY_URI" |
		sha256sum | cut -c1-32
}

image_stamp() {
	podman image inspect --format "{{ index .Labels \"$STAMP_LABEL\" }}" "$1" 2>/dev/null || true
}

chroot_run() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# podman import from a tarball of ROOT, tagged IMAGE. The --change lines
# add what the real image's config carries.
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
		podman import --quiet "${changes[@]}" --message "warden local stand-in ($stamp)" - "$image")
	# The superseded stand-in is now untagged; drop it unless something (a
	# cached build layer) still uses it.
	if [[ -n "$old" && "$new" != *"$old"* ]]; then
		podman rmi "$old" >/dev/null 2>&1 || true
	fi
}

# debian_slim IMAGE SUITE: Debian SUITE as Debian's own -slim image has it.
build_debian_slim() {
	local image=$1 suite=$2 stamp=$3 root="$WORKDIR/rootfs" keyring
	log "building $image: debootstrap --variant=minbase $suite from $MIRROR"
	mkdir -p "$STATE/debootstrap-cache"
	if ! debootstrap --variant=minbase --cache-dir="$STATE/debootstrap-cache" \
		"$suite" "$root" "$MIRROR" >"$WORKDIR/debootstrap.log" 2>&1; then
		tail -n 30 "$WORKDIR/debootstrap.log" >&2
		die "debootstrap $suite failed (log above)"
	fi
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[[ -e "$root$keyring" ]] || keyring=/usr/share/keyrings/debian-archive-keyring.pgp
	# apt sources as in the real image: SUITE, SUITE-updates and
	# SUITE-security, main only.
	rm -f "$root/etc/apt/sources.list"
	cat >"$root/etc/apt/sources.list.d/debian.sources" <<-EOF
		Types: deb
		URIs: $MIRROR
		Suites: $suite $suite-updates
		Components: main
		Signed-By: $keyring

		Types: deb
		URIs: $SECURITY_URI
		Suites: $suite-security
		Components: main
		Signed-By: $keyring
	EOF
	# The -slim trimming: no docs, man pages or locales from later installs.
	cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<-'EOF'
		path-exclude /usr/share/doc/*
		path-include /usr/share/doc/*/copyright
		path-exclude /usr/share/man/*
		path-exclude /usr/share/groff/*
		path-exclude /usr/share/info/*
		path-exclude /usr/share/locale/*
		path-include /usr/share/locale/locale.alias
		path-exclude /usr/share/lintian/*
		path-exclude /usr/share/linda/*
	EOF
	# apt settings of the real image: clean the package cache after each
	# install, no translations.
	cat >"$root/etc/apt/apt.conf.d/docker-clean" <<-'EOF'
		DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
		APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
		Dir::Cache::pkgcache "";
		Dir::Cache::srcpkgcache "";
	EOF
	printf 'Acquire::Languages "none";\n' >"$root/etc/apt/apt.conf.d/docker-no-languages"
	rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
		"$root"/usr/share/locale/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
		"$root"/var/cache/apt/archives/*.deb "$root"/var/log/* "$root"/tmp/* "$root"/root/.cache
	: >"$root/etc/resolv.conf"
	: >"$root/etc/hostname"
	chroot_run "$root" sh -c '. /etc/os-release && echo "$PRETTY_NAME"' | sed 's/^/[build-bases] stand-in is /' >&2
	import_rootfs "$root" "$image" "$stamp" \
		'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		'CMD ["bash"]'
}

# uv_stub IMAGE: the official uv image is FROM scratch with /uv and /uvx at
# its root; the stand-in keeps that layout. Its stubs make any real use fail
# loudly (exit 127) instead of pretending that uv works.
build_uv_stub() {
	local image=$1 version=$2 stamp=$3 root="$WORKDIR/uv" name
	log "building $image: uv/uvx stubs (real uv is checked on GitHub only)"
	mkdir -p "$root"
	for name in uv uvx; do
		cat >"$root/$name" <<-EOF
			#!/bin/sh
			# Local stand-in for $image, which cannot be pulled on this
			# machine. Not the real tool.
			case "\${1:-}" in
			--version | -V | version)
				echo "$name $version (local stand-in, not the real uv)"
				exit 0
				;;
			esac
			echo "$name: not available in this local test image (stand-in for $image)" >&2
			exit 127
		EOF
		chmod 0755 "$root/$name"
	done
	import_rootfs "$root" "$image" "$stamp" 'ENTRYPOINT ["/uv"]'
}

# stand_in IMAGE: make IMAGE available locally (or pull it).
stand_in() {
	local image=$1 kind arg want have started
	if [[ "${WARDEN_CONTAINER_PULL:-0}" == 1 ]]; then
		log "pulling $image"
		podman pull -q "$image" >/dev/null || die "podman pull $image failed"
		return
	fi
	case $image in
	docker.io/library/debian:*-slim | debian:*-slim)
		kind=debian_slim
		arg=${image##*:}
		arg=${arg%-slim}
		;;
	ghcr.io/astral-sh/uv:*)
		kind=uv_stub
		arg=${image##*:}
		;;
	*) die "no local stand-in for $image (named in the Dockerfile): add one to $SELF, or set WARDEN_CONTAINER_PULL=1 where registries are reachable" ;;
	esac
	[[ "$image" == */* ]] || die "$image: name images fully (docker.io/library/...), so podman and docker resolve them alike"
	want=$(stamp_of "$kind" "$arg")
	have=$(image_stamp "$image")
	if [[ "$FORCE" == false && "$have" == "$want" ]]; then
		log "$image is current (stamp $want)"
		return
	fi
	started=$SECONDS
	WORKDIR=$(mktemp -d "$STATE/bases.XXXXXX")
	"build_$kind" "$image" "$arg" "$want"
	rm -rf --one-file-system "$WORKDIR"
	WORKDIR=""
	log "$image built in $((SECONDS - started))s (stamp $want)"
}

main() {
	local list=false images image
	while (($#)); do
		case $1 in
		--force) FORCE=true ;;
		--list) list=true ;;
		-h | --help)
			sed -n '2,/^set -euo/p' "$SELF" | sed '$d; s/^# \{0,1\}//'
			return 0
			;;
		*) die "unknown argument: $1" ;;
		esac
		shift
	done
	[[ -f "$DOCKERFILE" ]] || die "no Dockerfile at $DOCKERFILE"
	images=$(external_images "$DOCKERFILE")
	[[ -n "$images" ]] || die "no FROM image found in $DOCKERFILE"
	if [[ "$list" == true ]]; then
		printf '%s\n' "$images"
		return 0
	fi
	require_tools
	ensure_containers_conf
	mkdir -p "$STATE"
	# Two concurrent runs would import over each other's images.
	exec 9>"$STATE/build-bases.lock"
	flock 9
	trap cleanup EXIT
	resolve_mirrors
	# Stand-ins of the former Dockerfile (base images chosen by build
	# args), if an earlier run left them: nothing uses them any more.
	local legacy
	for legacy in localhost/warden-runtime-base:bookworm localhost/warden-go-base:1.26 localhost/warden-uv-standin:local; do
		podman rmi "$legacy" >/dev/null 2>&1 || true
	done
	while IFS= read -r image; do
		stand_in "$image"
	done <<<"$images"
}

main "$@"

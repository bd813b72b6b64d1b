# shellcheck shell=bash
# Sourced by build-bases.sh and test.sh: the podman settings that work on
# these machines, in a file of our own under $STATE (the system config is
# left alone): runc, because crun's setrlimit fails here; cgroupfs, because
# no systemd manages cgroups; explicit ulimits; events in a file rather than
# journald. An existing CONTAINERS_CONF (the caller's own) is kept.
ensure_containers_conf() {
	if [[ -n "${CONTAINERS_CONF:-}" ]]; then
		return
	fi
	mkdir -p "$STATE"
	cat >"$STATE/containers.conf" <<-'CONF'
		[containers]
		default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
		[engine]
		runtime = "runc"
		cgroup_manager = "cgroupfs"
		events_logger = "file"
	CONF
	export CONTAINERS_CONF="$STATE/containers.conf"
}

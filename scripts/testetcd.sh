#!/usr/bin/env bash
# testetcd.sh: ensure an etcd binary for the cluster provider tests
# (e2e/cluster_provider_test.go) and print its path as the last line of
# stdout. The tests start their own etcd on a free port; nothing runs here.
#
# Idempotent: when no etcd is on PATH it installs Debian's `etcd-server`
# package (apt-get, as root or through sudo -n); the package's service is
# not started (no systemd in CI, and the tests need none). Progress goes to
# stderr. Concurrent runs are serialized with flock.
set -euo pipefail

log() { printf 'testetcd: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

find_etcd() {
	local b
	for b in "${ALERTD_TEST_ETCD:-}" etcd /usr/bin/etcd; do
		[ -n "$b" ] || continue
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}

if command -v flock >/dev/null 2>&1; then
	exec 9>"/tmp/alertd-testetcd.lock" || die "cannot open lock file"
	flock -w 900 9 || die "timed out waiting for /tmp/alertd-testetcd.lock"
fi

if ! BIN="$(find_etcd)"; then
	log "etcd not found; installing Debian's etcd-server package"
	SUDO=""
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || die "etcd is missing and $(id -un) cannot install packages (no sudo)"
		SUDO="sudo -n"
	fi
	$SUDO apt-get update >&2 || die "apt-get update failed"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends etcd-server >&2 ||
		die "apt-get install etcd-server failed"
	BIN="$(find_etcd)" || die "etcd-server installed but no etcd found"
fi
log "using $BIN"
echo "$BIN"

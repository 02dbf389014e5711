#!/usr/bin/env bash
# testtool.sh NAME PACKAGE VAR CANDIDATE...: ensure a binary that tests need
# and print its path as the last line of stdout. The binary is the first of
# $VAR, then the CANDIDATEs, found on PATH (or as a path).
#
# Idempotent: when none is there it installs Debian's PACKAGE (apt-get, as
# root or through sudo -n); a package's service is not started. Progress
# goes to stderr. Concurrent runs (parallel test binaries) are serialized
# with flock. testchromium.sh and testetcd.sh call it.
set -euo pipefail

name="$1" pkg="$2" var="$3"
shift 3

log() { printf 'test%s: %s\n' "$name" "$*" >&2; }
die() { log "error: $*"; exit 1; }

find_bin() {
	local b
	for b in "${!var:-}" "$@"; do
		[ -n "$b" ] || continue
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}

if command -v flock >/dev/null 2>&1; then
	exec 9>"/tmp/alertd-test$name.lock" || die "cannot open lock file"
	flock -w 900 9 || die "timed out waiting for /tmp/alertd-test$name.lock"
fi

if ! BIN="$(find_bin "$@")"; then
	log "$name not found; installing Debian's $pkg package"
	SUDO=""
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || die "$name is missing and $(id -un) cannot install packages (no sudo)"
		SUDO="sudo -n"
	fi
	$SUDO apt-get update >&2 || die "apt-get update failed"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$pkg" >&2 ||
		die "apt-get install $pkg failed"
	BIN="$(find_bin "$@")" || die "$pkg installed but no $name found"
fi
log "using $BIN"
echo "$BIN"

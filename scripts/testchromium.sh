#!/usr/bin/env bash
# testchromium.sh: ensure a headless Chromium for the browser tests
# (e2e/browser) and print its path as the last line of stdout.
#
# Idempotent: when no chromium binary is on PATH it installs Debian's
# `chromium` package (apt-get, as root or through sudo -n). Progress goes to
# stderr. Concurrent runs (parallel test binaries) are serialized with flock.
# The tests find the binary themselves (ALERTD_TEST_CHROMIUM, then PATH);
# `make test` runs this first so a fresh machine has one.
set -euo pipefail

log() { printf 'testchromium: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

find_chromium() {
	local b
	for b in "${ALERTD_TEST_CHROMIUM:-}" chromium chromium-browser google-chrome-stable google-chrome; do
		[ -n "$b" ] || continue
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}

if command -v flock >/dev/null 2>&1; then
	exec 9>"/tmp/alertd-testchromium.lock" || die "cannot open lock file"
	flock -w 900 9 || die "timed out waiting for /tmp/alertd-testchromium.lock"
fi

if ! BIN="$(find_chromium)"; then
	log "Chromium not found; installing Debian's chromium package"
	SUDO=""
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || die "chromium is missing and $(id -un) cannot install packages (no sudo)"
		SUDO="sudo -n"
	fi
	$SUDO apt-get update >&2 || die "apt-get update failed"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >&2 ||
		die "apt-get install chromium failed"
	BIN="$(find_chromium)" || die "chromium installed but not found on PATH"
fi
log "using $BIN"
echo "$BIN"

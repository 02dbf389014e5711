#!/usr/bin/env bash
# testchromium.sh: ensure a headless Chromium for the browser tests
# (e2e/browser) and print its path as the last line of stdout (Debian's
# chromium package, installed when missing: testtool.sh). The tests find the
# binary themselves (ALERTD_TEST_CHROMIUM, then PATH); `make test` runs this
# first so a fresh machine has one.
exec bash "$(dirname "$0")/testtool.sh" chromium chromium ALERTD_TEST_CHROMIUM chromium chromium-browser google-chrome-stable google-chrome

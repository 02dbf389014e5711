#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 10s).
set -euo pipefail
cd "$(dirname "$0")/.."
t="${FUZZTIME:-10s}"
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
  pkg="./$(dirname "${f#./}")"
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r fn; do
    echo "== $pkg $fn ($t)"
    go test "$pkg" -run '^$' -fuzz "^${fn}\$" -fuzztime "$t"
  done
done

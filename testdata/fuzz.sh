#!/usr/bin/env bash
# Run every fuzz target for FUZZTIME (default 30s) each. `go test ./...`
# runs only their seed corpora; this is the long run, kept out of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-30s}
for pkg in $(go list ./decode/...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== $pkg $target ($fuzztime)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 0 "$pkg"
  done
done

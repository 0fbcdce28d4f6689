#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing
# (.ci/setup), then vet and staticcheck (testdata's generator packages too,
# which ./... leaves out), gofmt, then every test (mounted ones included,
# with the race detector) and each fuzz target's seed corpus.
set -euo pipefail
cd "$(dirname "$0")"
# The corpus of real files and original-tool outputs (not in the
# repository): $HPCFS_CORPUS, else shared/corpus beside the checkout.
corpus=${HPCFS_CORPUS:-../shared/corpus}
if [ ! -d "$corpus" ]; then
  if [ "${CI:-}" = true ]; then
    echo "test.sh: the corpus is missing at $corpus; CI must run the corpus tests (set HPCFS_CORPUS)" >&2
    exit 1
  fi
  echo "test.sh: WARNING: no corpus at $corpus: the tests against real files and their oracles will be SKIPPED" >&2
fi
# Tests keep their caches, logs and state out of the user's own folders.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/hpcfs-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export XDG_CACHE_HOME="$scratch/cache" XDG_STATE_HOME="$scratch/state"
export HPCFS_SKIPPED_LOG="$scratch/skipped"
bash .ci/setup   # installs what a fresh machine lacks (FUSE, LibreOffice, chromium, speedscope, staticcheck)
testdata_pkgs=$(find testdata -name '*.go' -printf '%h\n' | sort -u | sed 's#^#./#')
go vet ./... $testdata_pkgs
staticcheck=$(command -v staticcheck || echo "$(go env GOPATH)/bin/staticcheck")
if [ -x "$staticcheck" ]; then
  "$staticcheck" ./... $testdata_pkgs
elif [ "${CI:-}" = true ]; then
  echo "staticcheck missing (.ci/run installs it)"; exit 1
else
  echo "warning: staticcheck not installed: go install honnef.co/go/tools/cmd/staticcheck@v0.8.2" >&2
fi
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt: not formatted: $unformatted"; exit 1; fi
# ./... leaves out directories named testdata: their tests (the short fault
# injection run) are named here.
testdata_tests=$(find testdata -name '*_test.go' -printf '%h\n' | sort -u | sed 's#^#./#')
status=0
go test -race -count=1 -timeout 20m ./... $testdata_tests || status=$?
if [ -s "$HPCFS_SKIPPED_LOG" ]; then
  n=$(wc -l < "$HPCFS_SKIPPED_LOG")
  cat >&2 <<EOF

==========================================================================
test.sh: $n corpus checks were SKIPPED: no corpus at $corpus.
The "ok" lines above do not cover real files and their oracle outputs.
Put the corpus there or set HPCFS_CORPUS (README.md, Contributing: each
case's SOURCES.md names its public origin and how its oracles were made).
==========================================================================
EOF
fi
exit $status

#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing
# (.ci/setup), then vet and staticcheck (testdata's generator packages too,
# which ./... leaves out), gofmt, then every test (mounted ones included,
# with the race detector) and each fuzz target's seed corpus.
set -euo pipefail
cd "$(dirname "$0")"
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
go test -race -count=1 -timeout 20m ./... $testdata_tests

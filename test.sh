#!/usr/bin/env bash
# The test command: vet, then every test (mounted ones included, with the
# race detector), then each fuzz target's seed corpus.
set -euo pipefail
cd "$(dirname "$0")"
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt: not formatted: $unformatted"; exit 1; fi
go test -race -count=1 -timeout 20m ./...

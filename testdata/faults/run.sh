#!/usr/bin/env bash
# The long fault-injection run: every mutation of every corpus case and
# generated input (see faults.go). Prints the counts per format.
# The short selection runs in ./test.sh as TestFaults.
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -count=1 -v -timeout 60m -run 'TestFaults$' ./testdata/faults -long 2>&1 | grep -v 'level=warning'

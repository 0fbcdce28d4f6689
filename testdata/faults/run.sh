#!/usr/bin/env bash
# The long fault-injection run: every mutation of every corpus case and
# generated input (see faults.go), in process (TestFaults) and through a
# real mount with damaged on-disk indexes too (TestFaultsMounted). Prints
# the counts per format: mutants, panics, timeouts, peak RSS, silent share.
# The short fixed-seed selection of both runs in ./test.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -count=1 -v -timeout 60m -run 'TestFaults$|TestFaultsMounted$' ./testdata/faults -long 2>&1 | grep -v 'level=warning'

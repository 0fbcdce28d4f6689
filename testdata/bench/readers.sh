#!/usr/bin/env bash
# Memory under parallel readers: a synthetic ovni v1 trace of 4 threads x
# 1,000,000 events mounted once, then READERS (default 32) readers at once,
# each reading every view of the trace (events.txt, per-thread events.txt
# and events.csv) in its own order; every reader's checksums must equal a
# single reader's. Prints the wall time and the peak RSS of hpcfs.
set -euo pipefail
threads=${THREADS:-4} events=${EVENTS:-1000000} readers=${READERS:-32}
. "$(dirname "$0")/lib.sh"
go run ./testdata/cmd/genovni -threads "$threads" -events "$events" "$work/src" >/dev/null
mount_bg "$work/src/ovni" "$work/mnt"
(cd "$work/mnt" && find . -name 'events.*' -type f | sort) > "$work/views"
(cd "$work/mnt" && xargs md5sum < "$work/views") > "$work/want"
echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
t0=$(date +%s%N)
pids=()
for r in $(seq "$readers"); do
	(cd "$work/mnt" && shuf --random-source=<(yes "$r") "$work/views" | xargs md5sum | sort -k2 > "$work/got.$r") &
	pids+=($!)
done
wait "${pids[@]}"
t1=$(date +%s%N)
bad=0
for r in $(seq "$readers"); do cmp -s <(sort -k2 "$work/want") "$work/got.$r" || bad=$((bad + 1)); done
echo "$readers readers x $(wc -l < "$work/views") views: $(( (t1 - t0) / 1000000 )) ms, $bad readers saw different bytes"
unmount_bg

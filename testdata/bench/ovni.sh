#!/usr/bin/env bash
# Benchmark the ovni views through a real mount: a synthetic v1 trace of
# 4 threads x 1,000,000 events (~60 MB). Prints mount readiness, first stat
# (sizing every event), cat throughput, tail latency and peak RSS.
set -euo pipefail
threads=${THREADS:-4} events=${EVENTS:-1000000}
. "$(dirname "$0")/lib.sh"
go run ./testdata/cmd/genovni -threads "$threads" -events "$events" "$work/src" >/dev/null
echo "input: $(du -sb "$work/src/ovni" | cut -f1) bytes of streams, $((threads * events)) events"
m=$work/mnt
mount_bg "$work/src/ovni" "$m"
stat_view events.txt
cat_view events.txt
drop_caches
tail_view events.txt "page cache dropped"
tail_view loom.bignode/proc.1000/thread.1001/events.csv "sizing it first"
unmount_bg

# A second mount of the same trace reads sizes and checkpoints from the
# on-disk index instead of measuring again.
mount_bg "$work/src/ovni" "$m" --index-dir "$work/index"
stat_view events.txt "first mount with an index dir"
unmount_bg
mount_bg "$work/src/ovni" "$m" --index-dir "$work/index"
stat_view events.txt "second mount, index hit"
tail_view events.txt "second mount"
unmount_bg

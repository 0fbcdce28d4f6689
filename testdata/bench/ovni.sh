#!/usr/bin/env bash
# Benchmark the ovni views through a real mount: a synthetic v1 trace of
# 4 threads x 1,000,000 events (~60 MB). Prints mount readiness, first stat
# (sizing every event), cat throughput, tail latency and peak RSS.
set -euo pipefail
threads=${THREADS:-4} events=${EVENTS:-1000000}
. "$(dirname "$0")/lib.sh"
go run ./testdata/cmd/genovni -threads "$threads" -events "$events" "$work/src" >/dev/null
echo "input: $(du -sb "$work/src/ovni" | cut -f1) bytes of streams, $((threads * events)) events"
mount_bg "$work/src/ovni" "$work/mnt"
t0=$(ms); size=$(stat -c %s "$work/mnt/events.txt"); t1=$(ms)
echo "first stat of events.txt: $(( (t1 - t0) / 1000000 )) ms, size $size bytes"
t0=$(ms); cat "$work/mnt/events.txt" > /dev/null; t1=$(ms)
echo "cat events.txt: $(( (t1 - t0) / 1000000 )) ms, $(( size * 1000 / (t1 - t0) )) MB/s"
echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
t0=$(ms); tail -n 1 "$work/mnt/events.txt" > /dev/null; t1=$(ms)
echo "tail -n 1 events.txt (page cache dropped): $(( (t1 - t0) / 1000000 )) ms"
t0=$(ms); tail -n 1 "$work/mnt/loom.bignode/proc.1000/thread.1001/events.csv" > /dev/null; t1=$(ms)
echo "tail -n 1 of one thread's events.csv (sizing it first): $(( (t1 - t0) / 1000000 )) ms"
unmount_bg

# A second mount of the same trace reads sizes and checkpoints from the
# on-disk index instead of measuring again.
mount_bg "$work/src/ovni" "$work/mnt" --index-dir "$work/index"
t0=$(ms); stat -c %s "$work/mnt/events.txt" >/dev/null; t1=$(ms)
echo "first stat of events.txt, first mount with an index dir: $(( (t1 - t0) / 1000000 )) ms"
unmount_bg
mount_bg "$work/src/ovni" "$work/mnt" --index-dir "$work/index"
t0=$(ms); stat -c %s "$work/mnt/events.txt" >/dev/null; t1=$(ms)
echo "first stat of events.txt, second mount (index hit): $(( (t1 - t0) / 1000000 )) ms"
t0=$(ms); tail -n 1 "$work/mnt/events.txt" > /dev/null; t1=$(ms)
echo "tail -n 1 events.txt, second mount: $(( (t1 - t0) / 1000000 )) ms"
unmount_bg

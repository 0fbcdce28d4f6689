#!/usr/bin/env bash
# Benchmark events.txt of a spec v3 (ovni 1.11+) trace through a real mount
# against ovnidump -x of ovni 1.14, which prints the same bytes: a synthetic
# trace of 4 threads x 1,000,000 events (no two threads share a clock, so
# that both merge orders agree). Prints both sides' wall time, throughput,
# CPU time and peak RSS (/usr/bin/time -v), their ratios, and whether the
# outputs are byte-identical (both timed runs write to /dev/null; the
# outputs are compared from untimed runs). On a loaded machine look at the
# CPU times too: wall time then also measures the other processes.
#
# Usage: testdata/bench/ovni1x.sh [OVNIDUMP]
# OVNIDUMP is an ovnidump binary of ovni 1.14 (build it from the bsc-pm/ovni
# sources, outside this repository); without it only hpcfs is measured.
set -euo pipefail
ovnidump=${1:-}
threads=${THREADS:-4} events=${EVENTS:-1000000}
. "$(dirname "$0")/lib.sh"
go run ./testdata/cmd/genovni -layout v3 -threads "$threads" -events "$events" "$work/src" >/dev/null
echo "input: $(du -sb "$work/src/ovni" | cut -f1) bytes of streams, $((threads * events)) events (spec v3)"
rss() { grep -E 'Maximum resident set size' "$1" | awk '{print $NF " KB"}'; }
cpu() { awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$1"; }

mount_bg "$work/src/ovni" "$work/mnt"
size=$(stat -c %s "$work/mnt/events.txt")
server=$(pgrep -P $pid | head -1)
ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
tk0=$(ticks)
t0=$(ms); /usr/bin/time -v -o "$work/time-cat.txt" cat "$work/mnt/events.txt" > /dev/null; t1=$(ms)
tk1=$(ticks)
hpcfs_ms=$(( (t1 - t0) / 1000000 ))
serve_cpu=$(awk -v t="$((tk1 - tk0))" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t / hz}')
echo "hpcfs: cat events.txt through the mount (first stat done before): ${hpcfs_ms} ms wall, $(( size * 1000 / (t1 - t0) )) MB/s, $size bytes"
echo "hpcfs: CPU during the cat: hpcfs ${serve_cpu} s, cat $(cpu "$work/time-cat.txt") s"
cp "$work/mnt/events.txt" "$work/hpcfs.txt" # for the comparison below, untimed
fusermount3 -u "$work/mnt" 2>/dev/null || umount "$work/mnt"
wait $pid || true
echo "hpcfs: mount process (mount, first stat, cat) $(cpu "$work/time.txt") s CPU, peak RSS $(rss "$work/time.txt")"

if [ -n "$ovnidump" ]; then
  t0=$(ms)
  /usr/bin/time -v -o "$work/time-ovnidump.txt" "$ovnidump" -x "$work/src/ovni" > /dev/null 2>&1
  t1=$(ms)
  dump_ms=$(( (t1 - t0) / 1000000 ))
  "$ovnidump" -x "$work/src/ovni" > "$work/ovnidump.txt" 2>/dev/null # for the comparison, untimed
  echo "ovnidump -x: ${dump_ms} ms wall, $(( $(stat -c %s "$work/ovnidump.txt") * 1000 / (t1 - t0) )) MB/s, $(cpu "$work/time-ovnidump.txt") s CPU, peak RSS $(rss "$work/time-ovnidump.txt")"
  echo "throughput ratio hpcfs/ovnidump, wall: $(awk -v a="$dump_ms" -v b="$hpcfs_ms" 'BEGIN {printf "%.2f", a / b}')"
  echo "CPU ratio ovnidump / (hpcfs + cat during the cat): $(awk -v a="$(cpu "$work/time-ovnidump.txt")" -v b="$serve_cpu" -v c="$(cpu "$work/time-cat.txt")" 'BEGIN {printf "%.2f", a / (b + c)}')"
  if cmp -s "$work/hpcfs.txt" "$work/ovnidump.txt"; then echo "outputs: byte-identical"; else echo "outputs: DIFFER"; fi
fi

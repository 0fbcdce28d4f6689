#!/usr/bin/env bash
# Benchmark of the HPCToolkit database views through a FUSE mount (4.0
# generation; GENERATION=meta for the meta.db generation, as hpcdb-meta.sh):
# 64 profiles, 200,000 contexts, 4 metrics, 64 trace lines x 1,000,000
# samples (about 770 MB of trace.db). Override the shape with THREADS,
# CONTEXTS, METRICS, SAMPLES. Prints timings and the peak RSS of hpcfs.
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${THREADS:-64} CONTEXTS=${CONTEXTS:-200000} METRICS=${METRICS:-4} SAMPLES=${SAMPLES:-1000000}
tmp=$(mktemp -d /tmp/hpcdb-bench.XXXXXX)
mnt=$tmp/mnt
cleanup() { fusermount3 -u "$mnt" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/hpcfs" ./cmd/hpcfs
go build -o "$tmp/genhpcdb" ./testdata/cmd/genhpcdb
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
t=$(date +%s%N)
"$tmp/genhpcdb" ${GENERATION:+-$GENERATION} -threads "$THREADS" -contexts "$CONTEXTS" -metrics "$METRICS" -samples "$SAMPLES" "$tmp/db"
echo "generate: $(ms $t) ms; $(du -sh "$tmp/db" | cut -f1) ($(stat -c %s "$tmp/db/trace.db") bytes of trace.db)"
mkdir -p "$mnt"
# the shell's own cost of one timed cat, for reading the small-file numbers below
echo x > "$tmp/small.txt"
best=1000000; for i in 1 2 3 4 5; do t=$(date +%s%N); cat "$tmp/small.txt" > /dev/null; d=$(ms $t); [ "$d" -lt "$best" ] && best=$d; done
echo "cat of a small regular file (shell + process start): best of 5 $best ms"
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
t=$(date +%s%N)
/usr/bin/time -v -o "$tmp/time.txt" "$tmp/hpcfs" --index-dir "$tmp/index" mount -f "$tmp/db" "$mnt" 2>"$tmp/log.txt" &
until [ -e "$mnt/README.txt" ]; do sleep 0.005; done
echo "mount ready: $(ms $t) ms"
t=$(date +%s%N); size=$(stat -c %s "$mnt/cct.csv"); echo "first stat cct.csv: $(ms $t) ms ($size bytes)"
t=$(date +%s%N); cat "$mnt/cct.csv" > /dev/null; echo "cat cct.csv: $(ms $t) ms"
t=$(date +%s%N); tail -n 1 "$mnt/cct.csv" > /dev/null; echo "tail -n 1 cct.csv: $(ms $t) ms"
worst=0 each=""
for id in 0 1 7 100 4242 99999 150000 $((CONTEXTS-1)); do
  t=$(date +%s%N); cat "$mnt/contexts/$id.csv" > /dev/null; d=$(ms $t); [ "$d" -gt "$worst" ] && worst=$d
  each="$each $id:$d"
done
echo "cat contexts/<id>.csv: worst of 8 ids $worst ms (id:ms$each)"
t=$(date +%s%N); cat "$mnt/procedures.csv" > /dev/null; echo "cat procedures.csv: $(ms $t) ms"
t=$(date +%s%N); trace=$(ls "$mnt/traces" | grep '\.txt$' | head -1)
echo "ls traces/ (lists names only; sizes nothing): $(ms $t) ms"
t=$(date +%s%N); size=$(stat -c %s "$mnt/traces/$trace"); echo "first stat traces/$trace: $(ms $t) ms ($size bytes)"
t=$(date +%s%N); tail -n 1 "$mnt/traces/$trace" > /dev/null; echo "tail -n 1 traces/$trace (sized): $(ms $t) ms"
t=$(date +%s%N); cat "$mnt/traces/$trace" > /dev/null; d=$(ms $t)
echo "cat traces/$trace: $d ms, $(( size / 1000 / (d > 0 ? d : 1) )) MB/s"
csvt=${trace%.txt}.csv
t=$(date +%s%N); size=$(stat -c %s "$mnt/traces/$csvt"); cat "$mnt/traces/$csvt" > /dev/null; d=$(ms $t)
echo "stat+cat traces/$csvt: $d ms, $(( size / 1000 / (d > 0 ? d : 1) )) MB/s"
t=$(date +%s%N); cat "$mnt/profiles/summary.csv" > /dev/null; echo "cat profiles/summary.csv: $(ms $t) ms"
fusermount3 -u "$mnt"
wait
grep -E 'Maximum resident set size' "$tmp/time.txt"
# second mount: sizes come from the on-disk index
"$tmp/hpcfs" --index-dir "$tmp/index" mount -f "$tmp/db" "$mnt" 2>>"$tmp/log.txt" &
until [ -e "$mnt/README.txt" ]; do sleep 0.005; done
t=$(date +%s%N); stat -c %s "$mnt/cct.csv" > /dev/null; echo "second mount: first stat cct.csv: $(ms $t) ms"
t=$(date +%s%N); ls "$mnt/traces" > /dev/null; echo "second mount: ls traces/: $(ms $t) ms"
t=$(date +%s%N); tail -n 1 "$mnt/traces/$trace" > /dev/null; echo "second mount: tail -n 1 traces/$trace: $(ms $t) ms"
fusermount3 -u "$mnt"
wait

#!/usr/bin/env bash
# Benchmark the hpcrun views through a real mount: a synthetic 02.00
# layout-C profile of 2,000,000 CCT nodes and 4 metrics (~100 MB) with a
# 1,000,000-sample trace, then a measurements directory of 1,000 small
# profiles. Prints mount readiness, first stat, cat and tail latencies
# and throughput, and the peak RSS of the hpcfs process.
# Targets (issue 4): mount < 100 ms, cat cct.csv >= 200 MB/s, memory
# proportional to the nodes of one file; 1,000-file directory mounts in
# < 200 ms and ls -l completes in < 2 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
nodes=${NODES:-2000000} files=${FILES:-1000}
work=$(mktemp -d)
cleanup() {
	for m in "$work/mnt" "$work/mnt2"; do fusermount3 -u "$m" 2>/dev/null || umount "$m" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/hpcfs" ./cmd/hpcfs
go run ./testdata/cmd/genhpcrun -nodes "$nodes" -metrics 4 -trace 1000000 -o "$work/big.hpcrun"
echo "input: $(stat -c %s "$work/big.hpcrun") bytes, $nodes CCT nodes, 4 metrics; trace $(stat -c %s "$work/big.hpctrace") bytes"
ms() { date +%s%N; }
el() { echo "$(( ($2 - $1) / 1000000 )).$(( ($2 - $1) / 100000 % 10 )) ms"; }
rate() { echo "$(( $1 / (($3 - $2) / 1000 + 1) )) MB/s"; }
mkdir "$work/mnt" "$work/mnt2"
t0=$(ms)
/usr/bin/time -v -o "$work/time.txt" "$work/hpcfs" mount -f --log-level warn --index-dir "" "$work/big.hpcrun" "$work/mnt" &
pid=$!
until grep -qs " $work/mnt " /proc/mounts; do sleep 0.001; done
t1=$(ms); echo "mount ready: $(el $t0 $t1) (includes process start)"
m="$work/mnt/big"
for v in cct.csv hpcproftt.txt cct.txt trace.csv; do
	t0=$(ms); size=$(stat -c %s "$m/$v"); t1=$(ms)
	echo "first stat of $v: $(el $t0 $t1), size $size bytes"
	t0=$(ms); cat "$m/$v" > /dev/null; t1=$(ms)
	echo "cat $v: $(el $t0 $t1), $(rate $size $t0 $t1)"
	t0=$(ms); tail -n 1 "$m/$v" > /dev/null; t1=$(ms)
	echo "tail -n 1 $v: $(el $t0 $t1)"
done
kill -TERM $(pgrep -P $pid) 2>/dev/null || kill -TERM $pid; wait $pid || true
grep -E 'Maximum resident set size' "$work/time.txt" | sed 's/^\s*/hpcfs process (2M-node file): /'

# cct.csv from a cold start: sizing (inclusive sums) and reading together.
t0=$(ms)
"$work/hpcfs" mount -f --log-level warn --index-dir "" "$work/big.hpcrun" "$work/mnt" &
pid=$!
until grep -qs " $work/mnt " /proc/mounts; do sleep 0.001; done
t1=$(ms)
size=$(stat -c %s "$m/cct.csv"); cat "$m/cct.csv" > /dev/null; t2=$(ms)
echo "cold stat + cat cct.csv: $(el $t1 $t2), $(rate $size $t1 $t2)"
kill -TERM $pid; wait $pid || true

# A second mount with an index directory sizes the big views from the
# on-disk index instead of measuring them again.
for round in first second; do
	"$work/hpcfs" mount -f --log-level warn --index-dir "$work/index" "$work/big.hpcrun" "$work/mnt" &
	pid=$!
	until grep -qs " $work/mnt " /proc/mounts; do sleep 0.001; done
	for v in cct.csv cct.txt; do
		t0=$(ms); stat -c %s "$m/$v" > /dev/null; t1=$(ms)
		echo "$round mount with --index-dir: first stat of $v $(el $t0 $t1)"
	done
	kill -TERM $pid; wait $pid || true
done

go run ./testdata/cmd/genhpcrun -files "$files" -nodes 200 -metrics 2 -o "$work/meas"
t0=$(ms)
/usr/bin/time -v -o "$work/time2.txt" "$work/hpcfs" mount -f --log-level warn --index-dir "" "$work/meas" "$work/mnt2" &
pid=$!
until grep -qs " $work/mnt2 " /proc/mounts; do sleep 0.001; done
t1=$(ms); echo "measurements directory of $files profiles: mount ready $(el $t0 $t1) (includes process start)"
t0=$(ms); n=$(ls -l "$work/mnt2" | wc -l); t1=$(ms)
echo "ls -l of the mount ($n lines): $(el $t0 $t1)"
t0=$(ms); rows=$(wc -l < "$work/mnt2/profiles.csv"); t1=$(ms)
echo "wc -l profiles.csv ($rows lines): $(el $t0 $t1)"
t0=$(ms); cat "$work"/mnt2/*/cct.csv > /dev/null; t1=$(ms)
echo "cat of all $files cct.csv: $(el $t0 $t1)"
kill -TERM $(pgrep -P $pid) 2>/dev/null || kill -TERM $pid; wait $pid || true
grep -E 'Maximum resident set size' "$work/time2.txt" | sed 's/^\s*/hpcfs process (directory): /'

#!/usr/bin/env bash
# Benchmark the webgrind views through a real mount: a synthetic version 7
# preprocessed file of 100,000 functions and 1,000,000 sub-call entries
# (mirrored by as many called-from entries, ~42 MB). Prints mount
# readiness, first stat, cat, tail and callers.csv latencies, peak RSS.
# Targets (issue 5): mount < 100 ms, cat functions.csv <= 1 s, any
# functions/<nr>-<name>/callers.csv <= 20 ms.
set -euo pipefail
functions=${FUNCTIONS:-100000} calls=${CALLS:-1000000}
. "$(dirname "$0")/lib.sh"
go run ./testdata/cmd/genwebgrind -functions "$functions" -calls "$calls" -o "$work/callgrind.out.webgrind"
echo "input: $(stat -c %s "$work/callgrind.out.webgrind") bytes, $functions functions, $calls sub-call entries"
mount_bg "$work/callgrind.out.webgrind" "$work/mnt"
m="$work/mnt"
# callers.csv of functions before anything else was read (cold: no table yet)
for nr in 0 50000 99999; do
	name=$(printf '%05d' $nr)-App_Module$((nr % 97))_Service$nr-\>handle
	t0=$(ms); rows=$(wc -l < "$m/functions/$name/callers.csv"); t1=$(ms)
	echo "cold functions/$name/callers.csv: $(el $t0 $t1), $rows lines"
done
t0=$(ms); size=$(stat -c %s "$m/functions.csv"); t1=$(ms)
echo "first stat of functions.csv: $(el $t0 $t1), size $size bytes"
t0=$(ms); cat "$m/functions.csv" > /dev/null; t1=$(ms)
echo "cat functions.csv: $(el $t0 $t1)"
t0=$(ms); tail -n 1 "$m/functions.csv" > /dev/null; t1=$(ms)
echo "tail -n 1 functions.csv: $(el $t0 $t1)"
t0=$(ms); size=$(stat -c %s "$m/calls.csv"); t1=$(ms)
echo "first stat of calls.csv: $(el $t0 $t1), size $size bytes"
t0=$(ms); cat "$m/calls.csv" > /dev/null; t1=$(ms)
echo "cat calls.csv: $(el $t0 $t1)"
echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
t0=$(ms); tail -n 1 "$m/calls.csv" > /dev/null; t1=$(ms)
echo "tail -n 1 calls.csv (page cache dropped): $(el $t0 $t1)"
t0=$(ms); cat "$m/functions.txt" > /dev/null; t1=$(ms)
echo "cat functions.txt (sorted by self cost): $(el $t0 $t1)"
t0=$(ms); n=$(ls "$m/functions" | wc -l); t1=$(ms)
echo "ls functions/ ($n entries): $(el $t0 $t1)"
for nr in 12345 77777; do
	name=$(printf '%05d' $nr)-App_Module$((nr % 97))_Service$nr-\>handle
	t0=$(ms); cat "$m/functions/$name/callers.csv" "$m/functions/$name/callees.csv" > /dev/null; t1=$(ms)
	echo "warm functions/$name callers.csv + callees.csv: $(el $t0 $t1)"
done
unmount_bg

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
stat_cat_tail functions.csv
stat_view calls.csv
cat_view calls.csv
drop_caches
tail_view calls.csv "page cache dropped"
stat_view functions.txt
cat_view functions.txt "sorted by self cost"
ls_count functions
for nr in 12345 77777; do
	name=$(printf '%05d' $nr)-App_Module$((nr % 97))_Service$nr-\>handle
	t0=$(ms); cat "$m/functions/$name/callers.csv" "$m/functions/$name/callees.csv" > /dev/null; t1=$(ms)
	echo "warm functions/$name callers.csv + callees.csv: $(el $t0 $t1)"
done
unmount_bg

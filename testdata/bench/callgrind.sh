#!/usr/bin/env bash
# Benchmark the callgrind views through a real mount: a synthetic callgrind
# profile of SIZE bytes (default 500 MB) with FUNCTIONS functions (default
# 20,000). Prints mount readiness, first stat / cat / tail of the tables,
# a callers.csv, optionally lines.csv (LINES=1), and the peak RSS.
# Targets (issue 13): mount < 100 ms, first stat of functions.csv <= 2 s,
# peak RSS <= 64 MB + the function table (header.txt and the note give the
# bytes per function).
set -euo pipefail
size=${SIZE:-500000000} functions=${FUNCTIONS:-20000}
. "$(dirname "$0")/lib.sh"
go run ./testdata/cmd/gencallgrind -size "$size" -functions "$functions" -o "$work/callgrind.out.big"
echo "input: $(stat -c %s "$work/callgrind.out.big") bytes, $functions functions"
mount_bg "$work/callgrind.out.big" "$work/mnt"
m="$work/mnt"
t0=$(ms); ls "$m" > /dev/null; t1=$(ms)
echo "ls of the root: $(el $t0 $t1)"
stat_cat_tail functions.csv "reads the whole file once"
stat_view calls.csv
cat_view calls.csv
ls_count functions
first=$(ls "$m/functions" | sed -n 2p)
t0=$(ms); cat "$m/functions/$first/callers.csv" "$m/functions/$first/callees.csv" > /dev/null; t1=$(ms)
echo "functions/$first callers.csv + callees.csv: $(el $t0 $t1)"
grep -E '^(functions|call_edges|cost_lines|totals_check):' "$m/header.txt"
if [ "${LINES:-0}" = 1 ]; then
	stat_view lines.csv "renders it once"
	tail_view lines.csv
fi
unmount_bg

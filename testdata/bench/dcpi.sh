#!/usr/bin/env bash
# Benchmark the DCPI views through a real mount: a synthetic 0.07 profile
# with 10,000,000 sampled addresses (~53 MB), once with short chunks
# (~3.3M chunks) and once with long ones (~2.5k chunks), to show that
# memory does not depend on the number of chunks. Prints mount readiness,
# first stat (sizing), cat throughput, tail latency once sized, top.csv
# and peak RSS of the hpcfs process.
# Targets (issue 6): mount < 100 ms; cat samples.csv >= 200 MB/s;
# tail -n 1 samples.txt <= 50 ms once sized; memory independent of chunks.
set -euo pipefail
addresses=${ADDRESSES:-10000000}
. "$(dirname "$0")/lib.sh"
go build -o "$work/gendcpi" ./testdata/cmd/gendcpi

run() { # name maxchunk
	local name=$1 maxchunk=$2
	"$work/gendcpi" -o "$work/$name.prof" -addresses "$addresses" -maxchunk "$maxchunk" -zeros 0.2 -maxgap 16 >/dev/null
	echo "== $name: $(stat -c %s "$work/$name.prof") bytes, $addresses sampled addresses, chunks of 1..$maxchunk counts"
	local t0 t1 size m="$work/mnt/$name.prof"
	mount_bg "$work/$name.prof" "$work/mnt"
	t0=$(ms); grep -E '^(chunks|footer_check) ' "$m/header.txt"; t1=$(ms)
	echo "header.txt (scans the body once): $(el $t0 $t1)"
	stat_view samples.csv sizing
	cat_view samples.csv
	drop_caches
	cat_view samples.csv "again, already sized, page cache dropped"
	stat_view samples.txt "sizing, no rendering"
	drop_caches
	tail_view samples.txt "once sized, page cache dropped"
	stat_view top.csv "plan + sort + size"
	cat_view top.csv
	head -n 3 "$m/top.csv" | tail -n 2
	unmount_bg
	grep -E 'User time|System time' "$work/time.txt" | sed 's/^\s*/hpcfs process: /' || true
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
	rm -f "$work/$name.prof"
}

run short-chunks 6
run long-chunks 8000

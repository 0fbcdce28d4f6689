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
	t0=$(ms); size=$(stat -c %s "$m/samples.csv"); t1=$(ms)
	echo "first stat of samples.csv (sizing): $(el $t0 $t1), size $size bytes"
	t0=$(ms); cat "$m/samples.csv" > /dev/null; t1=$(ms)
	echo "cat samples.csv: $(el $t0 $t1), $(mbps $size $t0 $t1)"
	echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
	t0=$(ms); cat "$m/samples.csv" > /dev/null; t1=$(ms)
	echo "cat samples.csv again, already sized (page cache dropped): $(el $t0 $t1), $(mbps $size $t0 $t1)"
	t0=$(ms); size=$(stat -c %s "$m/samples.txt"); t1=$(ms)
	echo "first stat of samples.txt (sizing, no rendering): $(el $t0 $t1), size $size bytes"
	echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
	t0=$(ms); tail -n 1 "$m/samples.txt"; t1=$(ms)
	echo "tail -n 1 samples.txt once sized (page cache dropped): $(el $t0 $t1)"
	t0=$(ms); size=$(stat -c %s "$m/top.csv"); t1=$(ms)
	echo "first stat of top.csv (plan + sort + size): $(el $t0 $t1), size $size bytes"
	t0=$(ms); cat "$m/top.csv" > /dev/null; t1=$(ms)
	echo "cat top.csv: $(el $t0 $t1), $(mbps $size $t0 $t1)"
	head -n 3 "$m/top.csv" | tail -n 2
	unmount_bg
	grep -E 'User time|System time' "$work/time.txt" | sed 's/^\s*/hpcfs process: /' || true
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
	rm -f "$work/$name.prof"
}

run short-chunks 6
run long-chunks 8000

#!/usr/bin/env bash
# Benchmark the interchange views (flame/*.folded, flame/*.svg,
# profile.pb.gz, trace.json, trace/*.json) through a real mount, one
# synthetic source per format (sizes below, or SCALE=0.1 for a tenth).
# For each view: size, first stat (sizing) and cat time; then the mount
# process's peak RSS.
set -euo pipefail
scale=${SCALE:-1}
formats=" ${FORMATS:-callgrind webgrind hpcrun ovni hpcdb} "
limit=${WINDOW_LIMIT:-268435456}
want() { [[ $formats == *" $1 "* ]]; }
n() { awk -v v="$1" -v s="$scale" 'BEGIN { printf "%d", v * s }'; }
. "$(dirname "$0")/lib.sh"
! want callgrind || go run ./testdata/cmd/gencallgrind -size "$(n 100000000)" -functions 20000 -o "$work/callgrind.out.big" >/dev/null
! want webgrind || go run ./testdata/cmd/genwebgrind -functions "$(n 100000)" -calls "$(n 1000000)" -o "$work/big.webgrind" >/dev/null
! want hpcrun || go run ./testdata/cmd/genhpcrun -nodes "$(n 1000000)" -metrics 4 -trace "$(n 1000000)" -o "$work/big.hpcrun" >/dev/null
! want ovni || go run ./testdata/cmd/genovni -threads 4 -events "$(n 1000000)" "$work/ovni" >/dev/null
! want hpcdb || go run ./testdata/cmd/genhpcdb -threads 16 -contexts "$(n 200000)" -samples "$(n 200000)" "$work/db" >/dev/null

view() { # mountpoint, path
	local t0 t1 t2 size
	t0=$(ms); size=$(stat -c %s "$1/$2"); t1=$(ms); cat "$1/$2" > /dev/null; t2=$(ms)
	printf '  %-40s %12s bytes  stat %8s  cat %8s\n' "$2" "$size" "$(el "$t0" "$t1")" "$(el "$t1" "$t2")"
}
bench() { # name, source, profile dir or "", has trace
	local m="$work/mnt-$1"
	mkdir "$m"
	/usr/bin/time -v -o "$work/time-$1.txt" "$work/hpcfs" --trace-window-limit "$limit" mount -f --log-level warn --index-dir "" "$2" "$m" &
	until grep -qs " $m " /proc/mounts; do sleep 0.01; done
	echo "$1: $(du -sh --apparent-size "$2" | cut -f1) input"
	if [ -n "$3" ]; then
		local first
		first=$(ls "$m/$3/flame" | head -1); first=${first%.*}
		view "$m" "$3/flame/$first.folded"
		view "$m" "$3/flame/$first.svg"
		view "$m" "$3/profile.pb.gz"
	fi
	if [ "$4" = 1 ]; then
		view "$m" trace.json
		local t0 t1 w
		t0=$(ms); ls "$m/trace" > "$work/trace-ls"; t1=$(ms)
		echo "  ls trace/ (plans windows when trace.json > $limit B)  $(el "$t0" "$t1")"
		view "$m" "trace/$(grep -v '^window-' "$work/trace-ls" | head -1)"
		for w in $(grep '^window-' "$work/trace-ls" || true); do
			view "$m" "trace/$w"
		done
	fi
	fusermount3 -u "$m"
	wait
	echo "  peak RSS of the mount: $(awk -F': ' '/Maximum resident/ {print $2}' "$work/time-$1.txt") KB"
}
! want callgrind || bench callgrind "$work/callgrind.out.big" . 0
! want webgrind || bench webgrind "$work/big.webgrind" . 0
! want hpcrun || bench hpcrun "$work/big.hpcrun" big 1
! want ovni || bench ovni "$work/ovni" "" 1
! want hpcdb || bench hpcdb "$work/db" . 1

#!/usr/bin/env bash
# Peak server memory per format (issue 24): for each format, mount the
# largest generated input of the other benchmarks (sizes below; SCALE=0.1
# for a tenth) and read every file of the mount but raw/ (each file once,
# one after the other; at most 100 files of one folder and 100 of one
# name, so that per-thread, per-profile and callers/ files are sampled).
# Prints, per format,
# the input size, the files and bytes read, the time, the server's peak
# RSS (VmHWM of /proc/PID/status) and the views that raised that peak
# most (file, MB added). The design's budget is 64 MB.
# FORMATS="hpcrun ovni" picks formats; KEEP_INDEX=1 uses an index dir.
set -euo pipefail
cd "$(dirname "$0")/../.."
scale=${SCALE:-1}
formats=" ${FORMATS:-callgrind webgrind hpcrun ovni hpcdb hpcdb-meta dcpi} "
want() { [[ $formats == *" $1 "* ]]; }
n() { awk -v v="$1" -v s="$scale" 'BEGIN { printf "%d", v * s }'; }
work=$(mktemp -d)
trap 'for m in "$work"/mnt-*; do fusermount3 -u "$m" 2>/dev/null || true; done; rm -rf "$work"' EXIT
go build -o "$work/hpcfs" ./cmd/hpcfs
gen() { go run "./testdata/cmd/$1" "${@:2}" >/dev/null; }
! want callgrind || gen gencallgrind -size "$(n 100000000)" -functions 20000 -o "$work/callgrind.out.big"
! want webgrind || gen genwebgrind -functions "$(n 100000)" -calls "$(n 1000000)" -o "$work/big.webgrind"
! want hpcrun || gen genhpcrun -nodes "$(n 1000000)" -metrics 4 -trace "$(n 1000000)" -o "$work/big.hpcrun"
! want ovni || gen genovni -threads 4 -events "$(n 1000000)" "$work/ovni"
! want hpcdb || gen genhpcdb -threads 16 -contexts "$(n 200000)" -samples "$(n 200000)" "$work/db"
! want hpcdb-meta || gen genhpcdb -meta -threads 16 -contexts "$(n 200000)" -samples "$(n 200000)" "$work/dbm"
! want dcpi || gen gendcpi -addresses "$(n 10000000)" -o "$work/big.prof"

ms() { date +%s%N; }
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }
bench() { # name, source
	local m="$work/mnt-$1" pid t0 t1 files=0 bytes=0 before after size f
	mkdir "$m"
	local index=""
	[ -z "${KEEP_INDEX:-}" ] || index="$work/index"
	"$work/hpcfs" mount -f --log-level error --index-dir "$index" "$2" "$m" 2>"$work/log-$1" &
	pid=$!
	until grep -qs " $m " /proc/mounts; do sleep 0.01; done
	: > "$work/raise-$1"
	t0=$(ms)
	before=$(hwm "$pid")
	# every file but raw/, sorted; at most 100 of one folder or one name.
	# Listing stats every file (sizing it) and lists flame/ and callers/
	# (building the profile's tree and bottom-up view).
	find "$m" -path "$m/raw" -prune -o -type f -print0 | sort -z |
		awk 'BEGIN { RS = ORS = "\0" } { d = k = $0; sub(/.*\//, "", k); sub(/\/[^\/]*$/, "", d); if (++c[k] <= 100 && ++c["dir " d] <= 100) print }' > "$work/files-$1"
	after=$(hwm "$pid")
	echo "$((after - before)) (listing: find, which stats every file)" >> "$work/raise-$1"
	before=$after
	while IFS= read -r -d '' f; do
		size=$(stat -c %s "$f")
		cat "$f" > /dev/null
		files=$((files + 1)) bytes=$((bytes + size))
		after=$(hwm "$pid")
		if [ "$after" -gt "$before" ]; then
			echo "$((after - before)) ${f#"$m"/}" >> "$work/raise-$1"
			before=$after
		fi
	done < "$work/files-$1"
	t1=$(ms)
	printf '%-11s input %8s  %6d files %12d bytes %7d ms  peak RSS %6d KB\n' "$1" \
		"$(du -sh --apparent-size "$2" | cut -f1)" "$files" "$bytes" $(((t1 - t0) / 1000000)) "$(hwm "$pid")"
	sort -rn "$work/raise-$1" | head -3 | awk '{ v = $1; $1 = ""; printf "    +%6.1f MB %s\n", v / 1024, $0 }'
	fusermount3 -u "$m"
	wait "$pid" || true
}
! want callgrind || bench callgrind "$work/callgrind.out.big"
! want webgrind || bench webgrind "$work/big.webgrind"
! want hpcrun || bench hpcrun "$work/big.hpcrun"
! want ovni || bench ovni "$work/ovni"
! want hpcdb || bench hpcdb "$work/db"
! want hpcdb-meta || bench hpcdb-meta "$work/dbm"
! want dcpi || bench dcpi "$work/big.prof"

#!/usr/bin/env bash
# CPU seconds per GB served: each format's big text view read end to end
# through a fresh mount (mount, first stat, cat, unmount) against the
# reference tool that prints the same text, as the machine is and then with both cores
# kept busy by two `while :; do :; done` loops. CPU is user + system time
# from /usr/bin/time of the server process (all of its life) plus the
# reader (cat); the reference tool's is its own. Wall is the mount's
# whole life against the tool's run. Ratios are hpcfs / tool, taken
# within one run: on a shared machine compare ratios, not seconds.
#
#   ovni      events.txt        ovnidump -x (ovni 1.14)     4 threads x OVNI_EVENTS
#   otf2      events.txt        otf2-print                  4 ranks x 4 threads x OTF2_EVENTS
#   callgrind annotate.txt      callgrind_annotate --auto=no a CALLGRIND_SIZE-byte profile
#   hpcrun    hpcproftt.txt     hpcproftt (HPCToolkit; measured alone when absent)
#
# With OVNI_TABLE=1 it also prints issue 26's table: 4 x 1M, 4 x 4M and
# 4 x 16M ovni events (spec v3), under the load of the busy pass.
#
# Usage: testdata/bench/cpu.sh [OVNIDUMP]
# OVNIDUMP is ovnidump of ovni 1.14 (cmake build of bsc-pm/ovni tag
# 1.14.0, outside this repository); without it ovni is measured alone.
# FORMATS="ovni otf2 callgrind hpcrun" picks formats; LOADS="as-is busy"
# ("as-is" adds no load: on a shared machine it is not idle).
set -euo pipefail
ovnidump=${1:-}
cd "$(dirname "$0")/../.."
ovni_events=${OVNI_EVENTS:-1000000} otf2_events=${OTF2_EVENTS:-250000}
callgrind_size=${CALLGRIND_SIZE:-50000000} hpcrun_nodes=${HPCRUN_NODES:-2000000}
formats=${FORMATS:-ovni otf2 callgrind hpcrun} loads=${LOADS:-as-is busy}
work=$(mktemp -d)
spinners=()
cleanup() {
	for p in "${spinners[@]}"; do kill "$p" 2>/dev/null || true; done
	fusermount3 -u "$work/mnt" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/hpcfs" ./cmd/hpcfs
mkdir "$work/mnt"

# Inputs.
gen() {
	case $1 in
	ovni) go run ./testdata/cmd/genovni -layout v3 -threads 4 -events "$2" "$work/ovni-$2" >/dev/null ;;
	otf2)
		cc -O2 -o "$work/genotf2" ../shared/tools/otf2gen/genotf2.c $(pkg-config --cflags --libs otf2 2>/dev/null || echo -lopen-trace-format2)
		"$work/genotf2" -r 4 -t 4 -e "$otf2_events" "$work/otf2" >/dev/null ;;
	callgrind) go run ./testdata/cmd/gencallgrind -size "$callgrind_size" -o "$work/callgrind.out.big" >/dev/null ;;
	hpcrun) go run ./testdata/cmd/genhpcrun -nodes "$hpcrun_nodes" -metrics 4 -o "$work/big.hpcrun" >/dev/null ;;
	esac
}

# cpu FILE: user + system seconds from /usr/bin/time -f '%U %S'.
cpu() { awk '{printf "%.2f", $1 + $2}' "$1"; }
ns() { date +%s%N; }

# hpcfs_run SOURCE VIEW: fresh mount, first stat, cat VIEW, unmount. Sets
# h_server, h_reader (CPU s), h_wall (s), h_bytes.
hpcfs_run() {
	local t0 t1
	t0=$(ns)
	/usr/bin/time -f '%U %S' -o "$work/t-server" "$work/hpcfs" mount -f --log-level warn --index-dir "" "$1" "$work/mnt" &
	local pid=$!
	until grep -qs " $work/mnt " /proc/mounts; do sleep 0.005; done
	h_bytes=$(stat -c %s "$work/mnt/$2")
	/usr/bin/time -f '%U %S' -o "$work/t-reader" cat "$work/mnt/$2" >/dev/null
	fusermount3 -u "$work/mnt"
	wait "$pid" || true
	t1=$(ns)
	h_server=$(cpu "$work/t-server") h_reader=$(cpu "$work/t-reader")
	h_wall=$(awk -v d=$((t1 - t0)) 'BEGIN {printf "%.2f", d / 1e9}')
}

# ref_run CMD...: the reference tool to /dev/null. Sets r_cpu, r_wall.
ref_run() {
	local t0 t1
	t0=$(ns)
	/usr/bin/time -f '%U %S' -o "$work/t-ref" "$@" >/dev/null 2>&1
	t1=$(ns)
	r_cpu=$(cpu "$work/t-ref")
	r_wall=$(awk -v d=$((t1 - t0)) 'BEGIN {printf "%.2f", d / 1e9}')
}

# row LOAD FORMAT VIEW TOOL SOURCE REFCMD...: one line of the table.
row() {
	local load=$1 format=$2 view=$3 tool=$4 src=$5
	shift 5
	hpcfs_run "$src" "$view"
	local total per_gb
	total=$(awk -v a="$h_server" -v b="$h_reader" 'BEGIN {printf "%.2f", a + b}')
	per_gb=$(awk -v c="$total" -v n="$h_bytes" 'BEGIN {printf "%.2f", c / (n / 1e9)}')
	if [ $# -gt 0 ]; then
		ref_run "$@"
		echo "| $load | $format \`$view\` | $h_bytes | $h_server + $h_reader = $total s ($per_gb s/GB) | $tool $r_cpu s ($(awk -v c="$r_cpu" -v n="$h_bytes" 'BEGIN {printf "%.2f", c / (n / 1e9)}') s/GB) | $(awk -v a="$total" -v b="$r_cpu" 'BEGIN {printf "%.2f", a / b}') | $h_wall / $r_wall = $(awk -v a="$h_wall" -v b="$r_wall" 'BEGIN {printf "%.2f", a / b}') |"
	else
		echo "| $load | $format \`$view\` | $h_bytes | $h_server + $h_reader = $total s ($per_gb s/GB) | $tool absent | | $h_wall s | |"
	fi
}

measure() {
	local load=$1
	for f in $formats; do
		case $f in
		ovni)
			if [ -n "$ovnidump" ]; then
				row "$load" ovni events.txt "ovnidump -x" "$work/ovni-$ovni_events/ovni" "$ovnidump" -x "$work/ovni-$ovni_events/ovni"
			else
				row "$load" ovni events.txt ovnidump "$work/ovni-$ovni_events/ovni"
			fi ;;
		otf2) row "$load" otf2 events.txt otf2-print "$work/otf2/traces.otf2" otf2-print "$work/otf2/traces.otf2" ;;
		callgrind) row "$load" callgrind annotate.txt callgrind_annotate "$work/callgrind.out.big" callgrind_annotate --auto=no "$work/callgrind.out.big" ;;
		hpcrun)
			if command -v hpcproftt >/dev/null; then
				row "$load" hpcrun big/hpcproftt.txt hpcproftt "$work/big.hpcrun" hpcproftt "$work/big.hpcrun"
			else
				row "$load" hpcrun big/hpcproftt.txt hpcproftt "$work/big.hpcrun"
			fi ;;
		esac
	done
}

busy() {
	for _ in 1 2; do
		sh -c 'while :; do :; done' &
		spinners+=($!)
	done
}

for f in $formats; do
	case $f in ovni) gen ovni "$ovni_events" ;; *) gen "$f" ;; esac
done
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run; $(uname -r)"
echo "| load | view | bytes | hpcfs CPU: server + reader | tool CPU | CPU hpcfs / tool | wall hpcfs / tool (s) |"
echo "|---|---|---|---|---|---|---|"
for load in $loads; do
	[ "$load" = busy ] && busy
	measure "$load"
done

if [ "${OVNI_TABLE:-0}" = 1 ] && [ -n "$ovnidump" ]; then
	[ ${#spinners[@]} -gt 0 ] || busy
	echo
	echo "issue 26 table (busy: 2 spinning loops), ovni spec v3, 4 threads:"
	echo "| events | wall hpcfs / ovnidump | CPU hpcfs / ovnidump | hpcfs server user / sys | cat CPU | ovnidump user / sys |"
	echo "|---|---|---|---|---|---|"
	for n in 1000000 4000000 16000000; do
		[ -d "$work/ovni-$n" ] || gen ovni "$n"
		hpcfs_run "$work/ovni-$n/ovni" events.txt
		su=$(cat "$work/t-server")
		ref_run "$ovnidump" -x "$work/ovni-$n/ovni"
		echo "| 4 x $((n / 1000000))M | $(awk -v a="$h_wall" -v b="$r_wall" 'BEGIN {printf "%.2f", a / b}') | $(awk -v a="$h_server" -v b="$h_reader" -v c="$r_cpu" 'BEGIN {printf "%.2f", (a + b) / c}') | ${su/ / \/ } s | $h_reader s | $(sed 's| | / |' "$work/t-ref") s |"
		rm -rf "$work/ovni-$n"
	done
fi
echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) after the run"

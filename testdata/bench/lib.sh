# What the benchmark scripts share; each sources it after `set -euo
# pipefail`. It moves to the module root, makes the scratch folder $work
# (at exit, mounts at $work/mnt* are unmounted and it is removed) and
# builds $work/hpcfs.
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
work=$(mktemp -d)
trap 'for m in "$work"/mnt*; do fusermount3 -u "$m" 2>/dev/null || umount "$m" 2>/dev/null || true; done; rm -rf "$work"' EXIT
go build -o "$work/hpcfs" ./cmd/hpcfs

# ms: the time now, in nanoseconds; el T0 T1: the time between, in ms.
ms() { date +%s%N; }
el() { echo "$(( ($2 - $1) / 1000000 )).$(( ($2 - $1) / 100000 % 10 )) ms"; }
# mbps BYTES T0 T1: the rate of reading BYTES between T0 and T1.
mbps() { echo "$(( $1 * 1000 / ($3 - $2 + 1) )) MB/s"; }

# mount_bg SOURCE MOUNTPOINT [FLAGS...]: mounts SOURCE with `hpcfs FLAGS
# mount -f` in the background, under /usr/bin/time -v (its report in
# $work/time.txt), without an on-disk index unless FLAGS name one; sets
# $pid and, once mounted, says how long that took.
mount_bg() {
	local src=$1 mnt=$2 t0 t1
	shift 2
	mkdir -p "$mnt"
	t0=$(ms)
	/usr/bin/time -v -o "$work/time.txt" "$work/hpcfs" --index-dir "" "$@" mount -f --log-level warn "$src" "$mnt" &
	pid=$!
	until grep -qs " $mnt " /proc/mounts; do sleep 0.001; done
	t1=$(ms)
	echo "mount ready: $(el "$t0" "$t1") (includes process start)"
}

# unmount_bg [LABEL]: stops the mount of mount_bg with SIGTERM and prints
# the peak RSS of its hpcfs process.
unmount_bg() {
	kill -TERM $(pgrep -P "$pid") 2>/dev/null || kill -TERM "$pid"
	wait "$pid" || true
	grep -E 'Maximum resident set size' "$work/time.txt" | sed "s/^\s*/hpcfs process${1:+ ($1)}: /"
}

# stat_view V [NOTE], cat_view V [NOTE], tail_view V [NOTE]: the first
# stat (which sets $size), a cat, and a tail -n 1 of the view V of the
# mount $m, timed and printed with NOTE; cat_view gives the rate over
# $size too.
stat_view() {
	local t0 t1
	t0=$(ms); size=$(stat -c %s "$m/$1"); t1=$(ms)
	echo "first stat of $1${2:+ ($2)}: $(el "$t0" "$t1"), size $size bytes"
}
cat_view() {
	local t0 t1
	t0=$(ms); cat "$m/$1" > /dev/null; t1=$(ms)
	echo "cat $1${2:+ ($2)}: $(el "$t0" "$t1"), $(mbps "$size" "$t0" "$t1")"
}
tail_view() {
	local t0 t1
	t0=$(ms); tail -n 1 "$m/$1" > /dev/null; t1=$(ms)
	echo "tail -n 1 $1${2:+ ($2)}: $(el "$t0" "$t1")"
}
# stat_cat_tail V [NOTE]: stat_view V [NOTE], cat_view V, tail_view V.
stat_cat_tail() {
	stat_view "$@"
	cat_view "$1"
	tail_view "$1"
}
# ls_count DIR: times an ls of the mount's DIR and prints its entries.
ls_count() {
	local t0 t1 n
	t0=$(ms); n=$(ls "$m/$1" | wc -l); t1=$(ms)
	echo "ls $1/ ($n entries): $(el "$t0" "$t1")"
}
# drop_caches empties the page cache (as root; otherwise it does nothing).
drop_caches() { echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }

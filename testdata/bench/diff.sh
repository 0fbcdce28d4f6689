#!/usr/bin/env bash
# Benchmark diff/ of `hpcfs mount A B MNT` on two generated hpcrun
# profiles of NODES (200000 unless set) and NODES+5% calling contexts,
# 2 metrics each: for each view of diff/ the first stat and a cat, timed,
# then the peak RSS of the mount process. HPCFS=path uses that binary
# instead of building this checkout (to compare two builds).
set -euo pipefail
nodes=${NODES:-200000}
. "$(dirname "$0")/lib.sh"
if [ -n "${HPCFS:-}" ]; then cp "$HPCFS" "$work/hpcfs"; fi
go run ./testdata/cmd/genhpcrun -nodes "$nodes" -metrics 2 -o "$work/a.hpcrun" >/dev/null
go run ./testdata/cmd/genhpcrun -nodes "$((nodes + nodes / 20))" -metrics 2 -o "$work/b.hpcrun" >/dev/null
m="$work/mnt"
mkdir -p "$m"
t0=$(ms)
/usr/bin/time -v -o "$work/time.txt" "$work/hpcfs" --index-dir "" mount -f --log-level warn "$work/a.hpcrun" "$work/b.hpcrun" "$m" &
pid=$!
until grep -qs " $m " /proc/mounts; do sleep 0.01; done
echo "mount ready: $(el "$t0" "$(ms)")"
for v in diff/procedures.csv diff/contexts.csv diff/profile.pb.gz; do
	stat_view "$v"
	cat_view "$v"
done
t0=$(ms); ls "$m/diff/flame" >/dev/null; cat "$m"/diff/flame/* >/dev/null; echo "diff/flame/*: $(el "$t0" "$(ms)")"
unmount_bg

#!/usr/bin/env bash
# Benchmark the Parquet twins and trace.pftrace through a real mount: a
# synthetic ovni v1 trace of THREADS x EVENTS events (default 1 x 2,000,000).
# Prints, for one thread's events.csv and its events.parquet: first stat
# (sizing), cat throughput, and DuckDB count(*) and group-by times over each
# (@duckdb/node-api from .ci/setup); then trace.json against trace.pftrace;
# and the server's peak RSS.
set -euo pipefail
threads=${THREADS:-1} events=${EVENTS:-2000000}
duckdb=${HPCFS_DUCKDB:-$HOME/.cache/hpcfs-duckdb}
. "$(dirname "$0")/lib.sh"
go run ./testdata/cmd/genovni -threads "$threads" -events "$events" "$work/src" >/dev/null
mount_bg "$work/src/ovni" "$work/mnt"
ms() { echo $(( $(date +%s%N) / 1000000 )); } # here in ms
dir=$(dirname "$(ls -d "$work"/mnt/loom.*/proc.*/thread.*/events.csv | head -1)")
for f in events.csv events.parquet; do
  t0=$(ms); size=$(stat -c %s "$dir/$f"); t1=$(ms)
  echo "$f: first stat $((t1 - t0)) ms, $size bytes"
  t0=$(ms); cat "$dir/$f" >/dev/null; t1=$(ms)
  echo "$f: cat $((t1 - t0)) ms, $(awk "BEGIN{printf \"%.1f\", $size / 1000 / ($t1 - $t0 + 1)}") MB/s"
done
cat > "$work/q.cjs" <<'JS'
const { createRequire } = require('module');
const { DuckDBInstance } = createRequire(process.env.DUCKDB_DIR + '/')('@duckdb/node-api');
(async () => {
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  for (const [what, from] of [['CSV', "read_csv('" + process.argv[2] + "')"], ['Parquet', "read_parquet('" + process.argv[3] + "')"]]) {
    for (const q of ['SELECT count(*) FROM ' + from, 'SELECT event, count(*), sum(t_ns) FROM ' + from + ' GROUP BY 1']) {
      const t0 = Date.now();
      await con.runAndReadAll(q);
      console.log('DuckDB ' + what + ': ' + q.split(' FROM ')[0] + ': ' + (Date.now() - t0) + ' ms');
    }
  }
})();
JS
if [ -d "$duckdb/node_modules/@duckdb/node-api" ]; then
  DUCKDB_DIR=$duckdb node "$work/q.cjs" "$dir/events.csv" "$dir/events.parquet"
fi
for f in trace.json trace.pftrace; do
  t0=$(ms); size=$(stat -c %s "$work/mnt/$f"); cat "$work/mnt/$f" >/dev/null; t1=$(ms)
  echo "$f: $size bytes, stat + cat $((t1 - t0)) ms"
done
unmount_bg

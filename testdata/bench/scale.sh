#!/usr/bin/env bash
# Issue 24's scale benchmark, in one run: a synthetic ovni trace of
# --events events (default 16,000,000, over --threads 4 threads) and a
# synthetic HPCToolkit database (4.0 generation) of --contexts calling
# contexts (default 200,000) x --profiles thread profiles (default 1000,
# --samples trace samples each, default 16,000: 16 M samples). Each is
# mounted once (one server; with --index, an index folder of its own,
# fresh at the mount, as users get by default: sizes, checkpoints and
# Parquet row groups kept as they are made) and, for each big view (one
# file of each per-thread or per-profile folder): the time to its first
# byte from a fresh lookup (`head -c 1`: the lookup's stat sizes it), then
# a `cat` of it (MB/s); every table as CSV and as its Parquet twin; then
# DuckDB (@duckdb/node-api from .ci/setup) count(*) and a group-by over
# the CSVs of every thread or profile against their twins. Prints a
# markdown table; the server's peak RSS per source at the end.
#
#   testdata/bench/scale.sh                                   # full size (tens of minutes)
#   testdata/bench/scale.sh --index                           # the same with an index folder
#   testdata/bench/scale.sh --events 40000 --contexts 2000 --profiles 20 --samples 1000   # smoke test
set -euo pipefail
events=16000000 threads=4 contexts=200000 profiles=1000 samples=16000 index=
while [ $# -gt 0 ]; do
	case $1 in
	--index) index=1; shift; continue ;;
	--events) events=$2 ;;
	--threads) threads=$2 ;;
	--contexts) contexts=$2 ;;
	--profiles) profiles=$2 ;;
	--samples) samples=$2 ;;
	*)
		echo "usage: scale.sh [--index] [--events N] [--threads N] [--contexts N] [--profiles N] [--samples N]" >&2
		exit 2
		;;
	esac
	shift 2
done
duckdb=${HPCFS_DUCKDB:-$HOME/.cache/hpcfs-duckdb}
. "$(dirname "$0")/lib.sh"
t0=$(ms)
go run ./testdata/cmd/genovni -threads "$threads" -events "$((events / threads))" "$work/trace" >/dev/null
t1=$(ms)
echo "generated ovni trace: $threads x $((events / threads)) events, $(du -sh --apparent-size "$work/trace" | cut -f1) in $(el "$t0" "$t1")"
t0=$(ms)
go run ./testdata/cmd/genhpcdb -threads "$profiles" -contexts "$contexts" -samples "$samples" "$work/db" >/dev/null
t1=$(ms)
echo "generated database: $contexts contexts x $profiles profiles, $samples samples each, $(du -sh --apparent-size "$work/db" | cut -f1) in $(el "$t0" "$t1")"

# view V: the first byte of the view V of the mount $m (a fresh lookup,
# sized by its first stat), then a cat of it; one table row.
view() {
	local t0 t1 t2 size
	t0=$(ms)
	head -c 1 "$m/$1" >/dev/null
	t1=$(ms)
	size=$(stat -c %s "$m/$1")
	cat "$m/$1" >/dev/null
	t2=$(ms)
	printf '| %s | `%s` | %s | %s | %s |\n' "$label" "$1" \
		"$(awk -v s="$size" 'BEGIN { if (s < 1e6) printf "%.1f kB", s / 1e3; else printf "%.1f MB", s / 1e6 }')" "$(el "$t0" "$t1")" \
		"$(awk -v s="$size" -v ns=$((t2 - t1)) 'BEGIN { printf "%.0f ms, %.1f MB/s", ns / 1e6, s * 1e3 / (ns + 1) }')"
}
# table V.csv: view V.csv, then view V.parquet.
table() {
	view "$1"
	view "${1%.csv}.parquet"
}
# first GLOB: the first path of the mount $m that GLOB names, relative.
first() {
	local f
	f=$(cd "$m" && ls -d $1 | head -1)
	echo "$f"
}

cat >"$work/q.cjs" <<'JS'
// node q.cjs FROM GROUPCOL SUMCOL: DuckDB count(*) and a group-by over
// the table FROM; prints "rows | count ms | group-by ms".
const { createRequire } = require('module');
const { DuckDBInstance } = createRequire(process.env.DUCKDB_DIR + '/')('@duckdb/node-api');
const [from, by, sum] = process.argv.slice(2);
(async () => {
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  let t0 = Date.now();
  const rows = Number((await con.runAndReadAll('SELECT count(*) AS n FROM ' + from)).getRowObjects()[0].n);
  const count = Date.now() - t0;
  t0 = Date.now();
  await con.runAndReadAll('SELECT ' + by + ', count(*), sum(' + sum + ') FROM ' + from + ' GROUP BY 1');
  console.log(rows + ' | ' + count + ' ms | ' + (Date.now() - t0) + ' ms');
})().catch((e) => { console.error(e); process.exit(1); });
JS
# query LABEL CSVGLOB GROUPCOL SUMCOL: for the mount's CSVs named by
# CSVGLOB, then for their .parquet twins: the first stat of every file
# (sizing them), then DuckDB's count(*) and group-by (q.cjs).
query() {
	local what glob t0 t1 n
	for what in CSV Parquet; do
		glob=$2
		[ $what = CSV ] || glob=${2%.csv}.parquet
		t0=$(ms)
		n=$(cd "$m" && stat -c %s $glob | wc -l)
		t1=$(ms)
		if [ -d "$duckdb/node_modules/@duckdb/node-api" ]; then
			echo "| $1 | $what | $n | $(el "$t0" "$t1") | $(DUCKDB_DIR=$duckdb nice node "$work/q.cjs" \
				"read_$(tr A-Z a-z <<<"$what")('$m/$glob')" "$3" "$4") |" >>"$work/duckdb.md"
		else
			echo "| $1 | $what | $n | $(el "$t0" "$t1") | no @duckdb/node-api in $duckdb (.ci/setup) | | |" >>"$work/duckdb.md"
		fi
	done
}

echo
echo '| source | view | size | first byte | `cat` |'
echo '|---|---|---|---|---|'
: >"$work/duckdb.md"
m=$work/mnt-trace
mount_bg "$work/trace/ovni" "$m" ${index:+--index-dir "$work/index"} >/dev/null
label="ovni $threads x $((events / threads))"
thread=$(first 'loom.*/proc.*/thread.*')
view events.txt
view trace.json
view trace.pftrace
table "$thread/events.csv"
table summary/regions.csv
table summary/time-profile.csv
query "$label events.csv" 'loom.*/proc.*/thread.*/events.csv' event t_ns
unmount_bg "ovni" >"$work/rss.txt"

m=$work/mnt-db
mount_bg "$work/db" "$m" ${index:+--index-dir "$work/index"} >/dev/null
label="hpcdb $contexts x $profiles"
prof=$(first 'profiles/node-*.csv')
trace=$(first 'traces/node-*.csv')
metric=$(head -1 "$m/$prof" | cut -d, -f4)
view cct.txt
table cct.csv
table imbalance.csv
table contexts.csv
table "$prof"
table "$trace"
view trace.json
view trace.pftrace
query "$label contexts.csv" contexts.csv ctx_id "$metric"
query "$label profiles/" 'profiles/node-*.csv' ctx_id "$metric"
query "$label traces/" 'traces/node-*.csv' ctx_id t_ns
unmount_bg "hpcdb" >>"$work/rss.txt"

echo
echo '| tables | read as | files | first stat of every file | rows | DuckDB `count(*)` | DuckDB group-by, count, sum |'
echo '|---|---|---|---|---|---|---|'
cat "$work/duckdb.md"
echo
cat "$work/rss.txt"

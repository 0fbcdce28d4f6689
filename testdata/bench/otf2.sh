#!/usr/bin/env bash
# Benchmark the OTF2 views through a real mount against OTF2's own tools,
# in one run: a synthetic trace from ../shared/tools/otf2gen (the reference
# writer) of RANKS x THREADS locations x EVENTS events (default 4 x 4 x
# 1,000,000, ~195 MB). Prints otf2-print's time to /dev/null, a fresh
# mount's cat events.txt (sizing included), a C program that only
# iterates the events with the reference reader against cat of every
# location's events.csv (in the fresh mount, after events.txt; then in a
# first mount with an on-disk index, which sizes them, and in a remount,
# which reads sizes and checkpoints back from it), the first byte of views
# once sized, and the server's peak RSS. Needs otf2-tools and
# libopen-trace-format2-dev.
#
# Measured 2026-11-27 on the shared 2-vCPU machine (load average ~25), the
# defaults (16 x 1M events, 16,142,228 events, 2.08 GB of text):
#   otf2-print > /dev/null 49.2 s; fresh mount, stat + cat events.txt 29.3 s
#   (1.7x faster; the goal is 3x); C iterate 3.9 s, cat of every events.csv
#   22.6 s (the goal is parity); first byte mid-view once sized 8-9 ms;
#   peak RSS 70 MB (the goal is 64).
# Measured 2026-11-28 (load average ~40; wall times vary 2x between runs
# at that load, CPU times less): events.txt counted while sized, smaller
# first reads, packed checkpoints. Two runs, wall (CPU):
#   otf2-print 25.1 s (6.1 s), 28.8 s (6.2 s); fresh mount, stat + cat
#   events.txt 9.0 s (4.6 s), 15.6 s (4.5 s): 2.8x and 1.8x faster by the
#   wall, 1.3-1.4x less CPU; C iterate 2.2 s (0.8 s), 5.1 s (0.9 s); cat of
#   every events.csv (render.Table since f3af7ff) 26.6 s (9.3 s), 35.4 s
#   (10.1 s); first byte 2-26 ms; peak RSS 62.2 and 62.5 MB.
# Measured 2026-11-28 (load average ~30) after the table engine's sparse
# rows (Row.Empties, typed cell switch): one run, wall (CPU): otf2-print
#   14.0 s (6.0 s); events.txt 7.3 s (3.5 s); C iterate 1.6 s (0.87 s);
#   cat of every events.csv 13.1 s (4.9 s, was 9.3-10.1 s), 5.6x the C
#   iterator's CPU; first byte 9-50 ms; peak RSS 57.9 MB.
# Measured 2026-11-28 (load average ~31) before and after the merge's
# tournament tree, the decoder's fast path and sizing with the locations
# read ahead (f188728 -> e40bbc3), one run each, wall (CPU): otf2-print
#   31.7 s (5.85 s) -> 34.5 s (5.87 s); events.txt 10.9 s (3.24 s) -> 8.0 s
#   (2.58 s): 2.9x -> 4.3x faster by the wall, CPU 0.55 -> 0.44 of
#   otf2-print's; peak RSS 57.3 -> 52.2 MB.
# Measured 2026-11-28 (load average ~33) at 21265c5 (region and event
# names as render.Texts, background sizing of the other locations, the Go
# memory limit of 9ae211a): one run, wall (CPU): C iterate 5.9 s (0.88 s);
#   cat of every events.csv in the fresh mount after events.txt 14.8 s
#   (5.2 s: the collector runs ~500 times, the heap goal within 1 MB of
#   the live heap), in a first mount with an index 7.9 s (3.3 s), in the
#   remount 5.8 s (2.2 s): 1.0x the C iterator's wall, 2.5x its CPU.
set -euo pipefail
ranks=${RANKS:-4} threads=${THREADS:-4} events=${EVENTS:-1000000}
gen=${OTF2GEN:-../shared/tools/otf2gen/genotf2.c}
. "$(dirname "$0")/lib.sh"
cc -O2 -o "$work/genotf2" "$gen" $(pkg-config --cflags --libs otf2 2>/dev/null || echo -lopen-trace-format2)
cat > "$work/iterate.c" <<'C'
/* Reads every event of every location with the OTF2 reference reader and
 * does nothing with it: the floor for any tool that reads events. */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
static uint64_t locs[1 << 16]; static size_t nlocs;
static OTF2_CallbackCode loc_cb(void *ud, OTF2_LocationRef l, OTF2_StringRef n,
    OTF2_LocationType t, uint64_t e, OTF2_LocationGroupRef g) {
  if (nlocs < sizeof locs / sizeof *locs) locs[nlocs++] = l;
  return OTF2_Reader_SelectLocation((OTF2_Reader *)ud, l) == OTF2_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR; }
int main(int argc, char **argv) {
  OTF2_Reader *r = OTF2_Reader_Open(argv[1]);
  OTF2_Reader_SetSerialCollectiveCallbacks(r);
  OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(r);
  OTF2_GlobalDefReaderCallbacks *gc = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gc, loc_cb);
  OTF2_Reader_RegisterGlobalDefCallbacks(r, gd, gc, r);
  uint64_t n; OTF2_Reader_ReadAllGlobalDefinitions(r, gd, &n);
  OTF2_Reader_OpenDefFiles(r);
  OTF2_Reader_OpenEvtFiles(r);
  for (size_t i = 0; i < nlocs; i++) {
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, locs[i]);
    if (dr) { uint64_t k; OTF2_Reader_ReadAllLocalDefinitions(r, dr, &k); OTF2_Reader_CloseDefReader(r, dr); }
    OTF2_Reader_GetEvtReader(r, locs[i]);
  }
  OTF2_Reader_CloseDefFiles(r);
  OTF2_GlobalEvtReader *ge = OTF2_Reader_GetGlobalEvtReader(r);
  uint64_t read = 0; OTF2_Reader_ReadAllGlobalEvents(r, ge, &read);
  printf("%llu events\n", (unsigned long long)read);
  OTF2_Reader_Close(r); return 0; }
C
cc -O2 -o "$work/iterate" "$work/iterate.c" $(pkg-config --cflags --libs otf2 2>/dev/null || echo -lopen-trace-format2)
"$work/genotf2" -r "$ranks" -t "$threads" -e "$events" "$work/src" >/dev/null
archive="$work/src/traces.otf2"
echo "input: $(du -sb "$work/src" | cut -f1) bytes, $((ranks * threads)) locations x ~$events events"
# On a shared machine wall times follow the load; CPU times (user + system,
# of the tool or of the hpcfs server during the step) are printed beside.
cpu_run() { # cpu_run CMD...: runs CMD, sets $cpu_ms to its CPU time
	/usr/bin/time -f '%U %S' -o "$work/cpu.txt" "$@"
	cpu_ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$work/cpu.txt")
}
tck=$(getconf CLK_TCK)
server_cpu() { awk -v t="$tck" '{ printf "%d", ($14 + $15) * 1000 / t }' "/proc/$(pgrep -P "$pid")/stat"; }
t0=$(ms); cpu_run otf2-print "$archive" > /dev/null 2>&1; t1=$(ms)
print_ms=$(( (t1 - t0) / 1000000 )) print_cpu=$cpu_ms
echo "otf2-print > /dev/null: $print_ms ms (CPU $print_cpu ms)"
t0=$(ms); cpu_run "$work/iterate" "$archive"; t1=$(ms)
iter_ms=$(( (t1 - t0) / 1000000 )) iter_cpu=$cpu_ms
echo "C iterate (reference reader): $iter_ms ms (CPU $iter_cpu ms)"

mount_bg "$work/src" "$work/mnt"
c0=$(server_cpu); t0=$(ms); size=$(stat -c %s "$work/mnt/events.txt"); cat "$work/mnt/events.txt" > /dev/null; t1=$(ms); c1=$(server_cpu)
cat_ms=$(( (t1 - t0) / 1000000 ))
echo "fresh mount, stat + cat events.txt: $cat_ms ms for $size bytes (otf2-print/hpcfs time: $(( print_ms * 100 / (cat_ms + 1) ))%)"
echo "  server CPU $(( c1 - c0 )) ms (otf2-print/hpcfs CPU: $(( print_cpu * 100 / (c1 - c0 + 1) ))%)"
# cat_csvs LABEL: cat every location's events.csv of the mount, timed, with
# the server's CPU during it, against the C iterator's.
cat_csvs() {
  local c0 c1 t0 t1 csv_ms
  c0=$(server_cpu); t0=$(ms); for d in "$work/mnt"/locations/*/; do cat "$d/events.csv" > /dev/null; done; t1=$(ms); c1=$(server_cpu)
  csv_ms=$(( (t1 - t0) / 1000000 )); echo "cat every locations/*/events.csv ($1): $csv_ms ms (C iterate: $iter_ms ms)"
  echo "  server CPU $(( c1 - c0 )) ms (C iterate CPU: $iter_cpu ms)"
}
cat_csvs "fresh mount, sizing included"
for v in events.txt locations/0/events.csv; do
  s=$(stat -c %s "$work/mnt/$v")
  t0=$(ms); dd if="$work/mnt/$v" bs=4096 skip=$(( s / 8192 )) count=1 status=none > /dev/null; t1=$(ms)
  echo "first byte in the middle of $v (sized): $(( (t1 - t0) / 1000000 )) ms"
done
unmount_bg
# With an on-disk index: a first mount sizes every events.csv and keeps
# sizes and checkpoints there; a remount reads them back and only renders.
mount_bg "$work/src" "$work/mnt" --index-dir "$work/index"
cat_csvs "first mount with an index"
unmount_bg "first mount with an index"
mount_bg "$work/src" "$work/mnt" --index-dir "$work/index"
cat_csvs "remount: sizes from the index"
unmount_bg "remount"

#!/usr/bin/python3
"""Count the events of an ensemble of runs in parallel with Dask.

An hpcfs mount of a folder of several sources (one run each) shows each run
as a subdirectory; this reads one table of every run in a Dask LocalCluster
of several worker processes and prints, per run (the subdirectory's name) and
per value of one column, the number of rows, as CSV on standard output:

    hpcfs mount results/ /mnt/runs
    python3 ensemble_dask.py /mnt/runs --table 'loom.*/proc.*/thread.*/events.csv' --by event

The same mount can be served on every node of a cluster (it is read-only and
its on-disk index can be shared), and the LocalCluster replaced by the
cluster's scheduler: the workers then read the files of their partitions
through their own node's mount. Needs Debian's python3-distributed and
python3-pandas.
"""

import argparse
import glob
import os
import sys

import dask.dataframe as dd
from dask.distributed import Client, LocalCluster


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mount", help="an hpcfs mount of a folder of runs")
    ap.add_argument("--table", default="loom.*/proc.*/thread.*/events.csv",
                    help="glob of the table in each run (default: ovni events)")
    ap.add_argument("--by", default="event", help="column to count rows by")
    ap.add_argument("--workers", type=int, default=4, help="worker processes")
    args = ap.parse_args()

    mount = os.path.abspath(args.mount)
    runs = sorted(d for d in os.listdir(mount)
                  if d != "raw" and os.path.isdir(os.path.join(mount, d)))
    files = [f for run in runs
             for f in sorted(glob.glob(os.path.join(mount, run, args.table)))]
    if not files:
        sys.exit(f"no {args.table} under {mount}")

    with LocalCluster(n_workers=args.workers, threads_per_worker=1,
                      processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        # One partition per file; every column as text, so that files whose
        # columns look different (empty in one run) still concatenate.
        df = dd.read_csv(files, dtype=str, keep_default_na=False,
                         blocksize=None, include_path_column="path")
        df["run"] = df["path"].astype(str).map(
            lambda p: os.path.relpath(p, mount).split(os.sep)[0],
            meta=("run", "object"))
        counts = df.groupby(["run", args.by]).size().compute()

    counts = counts.sort_index()
    counts.name = "rows"
    counts.to_csv(sys.stdout, header=True)


if __name__ == "__main__":
    main()

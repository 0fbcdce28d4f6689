#!/usr/bin/env bash
# Benchmark of the HPCToolkit meta.db-generation database views through a
# FUSE mount: hpcdb.sh's steps on a database that genhpcdb -meta writes
# (same shape and overrides).
GENERATION=meta exec "$(dirname "$0")/hpcdb.sh" "$@"

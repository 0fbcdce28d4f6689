#!/usr/bin/env bash
# Proves that a change keeps exports byte-identical: builds hpcfs at a
# base revision (default: where the branch leaves main) and at the work
# tree, exports every case of the corpus (../shared/corpus or
# $HPCFS_CORPUS; damage/ aside, whose cases are for the fault tests) and a
# generated DCPI profile with both, and diffs the two trees. Prints the
# files that differ (none: "exports identical"), keeps both trees for a
# look and exits 1 when some do.
#   testdata/bench/exports.sh [BASE]
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:-$(git merge-base main HEAD)}
corpus=${HPCFS_CORPUS:-../shared/corpus}
work=$(mktemp -d)
keep=
trap 'git worktree remove --force "$work/base" 2>/dev/null || true; [ -n "$keep" ] || rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base"
(cd "$work/base" && go build -o "$work/hpcfs-base" ./cmd/hpcfs)
go build -o "$work/hpcfs-new" ./cmd/hpcfs
go run ./testdata/cmd/gendcpi -o "$work/synthetic.prof" -addresses 20000 -maxchunk 20 >/dev/null
export_all() { # binary outdir
	local bin=$1 out=$2 src
	for src in "$corpus"/*/*/ "$work/synthetic.prof"; do
		src=${src%/}
		case $src in "$corpus"/damage/*) continue ;; esac
		local name=${src#"$corpus"/}
		[ "$src" = "$work/synthetic.prof" ] && name=dcpi/synthetic
		mkdir -p "$out/$(dirname "$name")"
		"$bin" export --log-level error --index-dir "" "$src" "$out/$name" >/dev/null 2>&1 ||
			echo "export failed: $name" >"$out/$name.failed"
	done
}
export_all "$work/hpcfs-base" "$work/a"
export_all "$work/hpcfs-new" "$work/b"
echo "exports of $(ls -d "$corpus"/*/*/ | grep -vc /damage/) corpus cases and 1 generated profile, $base vs work tree:"
if diff -rq "$work/a" "$work/b"; then
	echo "exports identical"
else
	keep=1
	echo "the two exports are kept in $work/a and $work/b"
	exit 1
fi

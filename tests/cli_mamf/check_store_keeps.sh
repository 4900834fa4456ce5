#!/usr/bin/env bash
# check_store_keeps.sh GEMMTUNE DIR ARGS...: a sweep with --db into a results file that already
# holds one of its shapes keeps that entry (a winner `tune` found) and adds only the others.
set -eu
gt=$1; dir=$2; shift 2
rm -rf "$dir" && mkdir -p "$dir"
out=$dir/results.csv
problem="GemmTunableOp_float_TN,tn_48_32_40_ld_40_40_48"  # the sweep's shape 32x48x40
"$gt" tune --problem "$problem" -o "$out" --backend cpu --max-tuning-duration-ms 2 --settle-ms 0 \
  --rotating-buffer-mb 1 >/dev/null
before=$(grep "^$problem," "$out")
log=$("$gt" mamf "$@" --db "$out" --no-verbose 2>&1)
echo "$log"
grep -q "already held 1 shape(s), whose entries were kept as they were" <<<"$log" ||
  { echo "FAIL: no note about the kept shape"; exit 1; }
after=$(grep "^$problem," "$out")
[ "$before" = "$after" ] || { echo "FAIL: entry changed: '$before' -> '$after'"; exit 1; }
[ "$(grep -c ',tn_48_[0-9]*_40_ld_40_40_48,' "$out")" = 3 ] ||
  { echo "FAIL: expected the 2 other shapes added"; cat "$out"; exit 1; }
# Again: every shape is held now, and nothing is added.
log=$("$gt" mamf "$@" --db "$out" --no-verbose 2>&1)
grep -q "already held 3 shape(s)" <<<"$log" || { echo "FAIL: second sweep: $log"; exit 1; }
[ "$(grep -c ',tn_48_[0-9]*_40_ld_40_40_48,' "$out")" = 3 ] ||
  { echo "FAIL: second sweep added lines"; cat "$out"; exit 1; }
echo ok

#!/usr/bin/env bash
# no_hard_links.sh GEMMTUNE SHIM: results files are created, appended to and converted on a file
# system without hard links (the shim's link(2) fails with EPERM and a directory's fsync with
# EINVAL, as on vfat and on FUSE mounts of object stores), first with renameat2's
# RENAME_NOREPLACE and then without it (tests/support/no_hard_links_shim.c). Before, a new results file's first save failed on link(2).
set -euo pipefail
gemmtune=$1
shim=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() {  # run LOG ARGS...: gemmtune under the shim, its output in LOG
  local log=$1
  shift
  LD_PRELOAD="$shim" "$gemmtune" "$@" >"$log" 2>&1 || { cat "$log"; fail "gemmtune $*"; }
}
p1=GemmTunableOp_float_NN,nn_32_32_32_ld_32_32_32
p2=GemmTunableOp_float_NN,nn_16_16_16_ld_16_16_16

for mode in rename exclusive; do
  if [ "$mode" = exclusive ]; then export GEMMTUNE_SHIM_NO_RENAMEAT2=1; fi
  dir="$work/$mode"
  mkdir "$dir"
  # The shim is in force: the test proves nothing where link(2) still works.
  : >"$dir/probe"
  if LD_PRELOAD="$shim" ln "$dir/probe" "$dir/probe.link" 2>/dev/null; then fail "$mode: the shim let link(2) through"; fi
  rm -f "$dir/probe"

  export GEMMTUNE_SHIM_LOG="$dir/refused.log"
  run "$dir/tune1.log" tune --problem "$p1" -o "$dir/r.csv" --backend cpu --max-tuning-duration-ms 2
  grep -q "1 tuned" "$dir/tune1.log" || { cat "$dir/tune1.log"; fail "$mode: first tune"; }
  grep -q "^Validator,GEMMTUNE_VERSION," "$dir/r.csv" || { cat "$dir/r.csv"; fail "$mode: no validators"; }
  grep -q "^${p1}," "$dir/r.csv" || { cat "$dir/r.csv"; fail "$mode: no result line"; }
  run "$dir/tune2.log" tune --problem "$p1" --problem "$p2" -o "$dir/r.csv" --backend cpu --max-tuning-duration-ms 2
  grep -q "1 tuned, 1 already tuned" "$dir/tune2.log" || { cat "$dir/tune2.log"; fail "$mode: second tune"; }
  [ "$(grep -c "^GemmTunableOp_" "$dir/r.csv")" = 2 ] || { cat "$dir/r.csv"; fail "$mode: two results expected"; }

  run "$dir/convert_db.log" db convert "$dir/r.csv" "$dir/r.db"
  run "$dir/convert_csv.log" db convert "$dir/r.db" "$dir/back.csv"
  [ "$(grep -c "^GemmTunableOp_" "$dir/back.csv")" = 2 ] || { cat "$dir/back.csv"; fail "$mode: convert round trip"; }
  # The way each new file was made: link(2) refused every time, and renameat2 where it was taken
  # away (otherwise it placed the file).
  grep -qx link "$dir/refused.log" || fail "$mode: link(2) was never refused"
  if [ "$mode" = exclusive ]; then
    grep -qx renameat2 "$dir/refused.log" || fail "$mode: renameat2 was never refused"
  else
    grep -qx renameat2 "$dir/refused.log" && fail "$mode: renameat2 was refused"
  fi
  unset GEMMTUNE_SHIM_LOG
  # No temporary is left beside the files.
  leftovers=$(find "$dir" -name '*.tmp*' -o -name '.*gemmtune*' | head -5)
  [ -z "$leftovers" ] || fail "$mode: temporaries left: $leftovers"
done
echo "results files are created, appended to and converted without hard links"

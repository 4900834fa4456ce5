#!/usr/bin/env bash
# compare.sh: gemmtune mamf against mamf-finder.py on one GPU, same range, same dtype.
#
#   bench/mamf/compare.sh GEMMTUNE MAMF_FINDER_PY OUT_DIR [RANGE ARGS...]
#
# Runs, in this order: gemmtune mamf (Default), mamf-finder.py, gemmtune mamf (Default) again,
# gemmtune mamf --results RESULTS_DB (when set: solutions an earlier --tuned run stored, with a
# --sustained window and the plot), and gemmtune mamf --tuned (stopped with one SIGINT after
# TUNED_LIMIT_S seconds, default 420, so that it still writes its summary — `timeout --foreground`,
# since plain `timeout` signals the whole process group and a second SIGINT exits at once; 0 skips
# it; TUNED_ARGS adds options); times each whole
# process (start to exit) and writes OUT_DIR/table.md with the side-by-side numbers, beside each
# run's own output file. mamf-finder.py is not part of this repository (stas00/ml-engineering,
# benchmark version 2): give the path of a local copy.
# GEMMTUNE_LIB_DIRS: extra library folders for the gemmtune binary (appended to the search path).
set -u -o pipefail
gt=$1; finder=$2; out=$3; shift 3
range=("$@")
[ ${#range[@]} -gt 0 ] || range=(--m_range 0 20480 256 --n 4096 --k 4096)
mkdir -p "$out"

# Use the cuBLAS that PyTorch loads, so that both tools call the same library build.
torch_cublas=$(python3 - <<'PY' 2>/dev/null
import glob, os, torch
root = os.path.dirname(os.path.dirname(torch.__file__))
libs = glob.glob(os.path.join(root, "nvidia", "**", "libcublasLt.so*"), recursive=True)
print(os.path.dirname(libs[0]) if libs else "")
PY
)
export LD_LIBRARY_PATH="${torch_cublas:+$torch_cublas:}${LD_LIBRARY_PATH:-}${GEMMTUNE_LIB_DIRS:+:$GEMMTUNE_LIB_DIRS}:/usr/local/cuda/lib64"
echo "cuBLAS for both: ${torch_cublas:-system}"
ldd "$gt" | grep -E "not found|cublas" || true
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv 2>/dev/null | tee "$out/gpu.csv"

timed() {  # NAME COMMAND...: runs it, keeps its output, records its wall time
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  t1=$(date +%s.%N)
  echo "$name rc=$rc wall=$(python3 -c "print(f'{$t1-$t0:.1f}')")s" | tee -a "$out/walls.txt"
  tail -n 14 "$out/$name.log"
}

: >"$out/walls.txt"
timed gemmtune_default "$gt" mamf "${range[@]}" --output_file "$out/gemmtune_default.txt" --no-verbose
timed mamf_finder python3 "$finder" "${range[@]}" --output_file "$out/mamf_finder.txt" --no-verbose
timed gemmtune_default_again "$gt" mamf "${range[@]}" --output_file "$out/gemmtune_default_again.txt" --no-verbose
if [ -n "${RESULTS_DB:-}" ]; then
  timed gemmtune_lookup "$gt" mamf "${range[@]}" --results "$RESULTS_DB" --sustained 5 \
    --output_file "$out/gemmtune_lookup.txt" --plot "$out/gemmtune_lookup.svg" --no-verbose
fi
if [ "${TUNED_LIMIT_S:-420}" != 0 ]; then
  # shellcheck disable=SC2086
  timed gemmtune_tuned timeout --foreground -s INT "${TUNED_LIMIT_S:-420}" "$gt" mamf "${range[@]}" --tuned ${TUNED_ARGS:-} \
    --output_file "$out/gemmtune_tuned.txt" --plot "$out/gemmtune_tuned.svg" --db "$out/gemmtune_tuned.db" --no-verbose
fi
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader 2>/dev/null

python3 "$(dirname "$0")/table.py" "$out" | tee "$out/table.md"

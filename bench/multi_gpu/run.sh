#!/usr/bin/env bash
# run.sh: wall time to tune one 200-problem untuned file on 1, 2 (and 4) devices, the speedup over
# one device, each device's share of the work, and whether the scaling reaches 0.9x linear.
#
#   bench/multi_gpu/run.sh [--gemmtune PATH] [--backend cuda|cpu] [--counts "1 2 4"]
#                          [--scale S] [--out DIR] [-- EXTRA TUNE OPTIONS...]
#
# --backend cuda (default) uses --gpus N and skips counts above the visible GPUs; --backend cpu
# uses --workers N (N processes sharing the CPU: a test of the machinery, not of GPU scaling).
# --scale S divides the shapes' dimensions (gen_untuned.sh); use it on the CPU only. Every count
# starts from an empty output directory, so nothing is resumed. Writes DIR/summary.md and each
# run's log; prints the summary.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gemmtune=${GEMMTUNE:-$here/../../build/cli/gemmtune}
backend=cuda
counts="1 2 4"
scale=1
out=${TMPDIR:-/tmp}/gemmtune-multi-bench
extra=()
while (($#)); do
  case $1 in
    --gemmtune) gemmtune=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --counts) counts=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown argument $1 (see the comment at the top)"; exit 2 ;;
  esac
done
[ -x "$gemmtune" ] || { echo "no gemmtune at $gemmtune (--gemmtune PATH)"; exit 2; }
mkdir -p "$out"
untuned=$out/untuned_llm_200.csv
"$here/gen_untuned.sh" 200 "$scale" >"$untuned"

available=0
if [ "$backend" = cuda ]; then
  available=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  [ "$available" -ge 1 ] || { echo "no GPU visible (nvidia-smi -L)"; exit 2; }
fi

summary=$out/summary.md
{
  echo "| devices | wall s | speedup | efficiency | per-device busy s (share) | tuned | not tuned |"
  echo "|---|---|---|---|---|---|---|"
} >"$summary.table"
loads=""
t1=""
for n in $counts; do
  if [ "$backend" = cuda ] && [ "$n" -gt "$available" ]; then
    echo "skipping $n devices: $available visible"
    continue
  fi
  dir=$out/n$n
  rm -rf "$dir" && mkdir -p "$dir"
  if [ "$backend" = cuda ]; then devices=(--gpus "$n"); else devices=(--workers "$n"); fi
  cmd=("$gemmtune" tune "$untuned" "${devices[@]}" --backend "$backend" -o "$dir/tunableop_results0.csv" "${extra[@]}")
  echo "running: ${cmd[*]}"
  start=$(date +%s.%N)
  "${cmd[@]}" >"$dir/log.txt" 2>&1 || echo "  (exit status $?: see $dir/log.txt)"
  end=$(date +%s.%N)
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  [ -n "$t1" ] || t1=$wall
  speedup=$(awk -v a="$t1" -v b="$wall" 'BEGIN { printf "%.2f", a / b }')
  efficiency=$(awk -v s="$speedup" -v n="$n" 'BEGIN { printf "%.2f", s / n }')
  # Devices table rows: device tuned failed busy_s GFLOP share deaths status
  per_device=$(awk '/^Devices:/ { on = 1; next } on && /^ *[0-9]+ / { printf "%s%s: %s (%s)", sep, $1, $4, $6; sep = ", " } on && /^$/ { on = 0 }' "$dir/log.txt")
  tuned=$(sed -n 's/.*problem(s): \([0-9]*\) tuned.*/\1/p' "$dir/log.txt" | tail -1)
  failed=$(sed -n 's/.* \([0-9]*\) not tuned;.*/\1/p' "$dir/log.txt" | tail -1)
  echo "| $n | $wall | ${speedup}x | $efficiency | $per_device | ${tuned:-?} | ${failed:-?} |" >>"$summary.table"
  loads+="$n device(s), wall $wall s:"$'\n'"$(sed -n '/^Devices:/,/^$/p' "$dir/log.txt" | sed '1d;/^$/d')"$'\n\n'
done

{
  echo "# gemmtune tune across devices: $(date -u +%Y-%m-%d) on $(hostname)"
  echo
  echo "Backend: $backend; problems: 200 distinct LLM linear-layer GEMMs (gen_untuned.sh, scale $scale)"
  echo "Options: ${extra[*]:-(defaults)}"
  echo "Target: efficiency (speedup / devices) >= 0.90"
  echo
  cat "$summary.table"
  echo
  echo "Per-device load (from each run's summary):"
  echo
  echo '```'
  printf '%s' "$loads"
  echo '```'
} >"$summary"
rm -f "$summary.table"
cat "$summary"

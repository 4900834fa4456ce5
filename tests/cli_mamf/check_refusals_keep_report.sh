#!/usr/bin/env bash
# check_refusals_keep_report.sh GEMMTUNE DIR ARGS...: what a user of mamf-finder.py relies on.
# A run refused before it measures (a missing --results file, a device the CPU backend lacks)
# leaves an earlier --output_file as it was; an option given twice takes its last value; a range
# with a negative step counts down; --backend auto says so where it measures the CPU.
set -eu
gt=$1; dir=$2; shift 2
rm -rf "$dir" && mkdir -p "$dir"
report=$dir/report.txt
echo "an earlier report" >"$report"
for refused in "--results $dir/missing.db" "--cuda_device 3"; do
  # shellcheck disable=SC2086  # the refusal's option and value are two words
  if "$gt" mamf "$@" $refused --no-verbose --output_file "$report" >"$dir/log" 2>&1; then
    echo "FAIL: '$refused' was not refused"; cat "$dir/log"; exit 1
  fi
  [ "$(cat "$report")" = "an earlier report" ] ||
    { echo "FAIL: '$refused' emptied or replaced the earlier report"; exit 1; }
done
"$gt" mamf "$@" --num_iterations 2 --num_iterations 3 --no-verbose --output_file "$report" \
  >"$dir/log" 2>&1 || { echo "FAIL: a repeated option was refused"; cat "$dir/log"; exit 1; }
grep -q "3 timed iterations per shape" "$report" ||
  { echo "FAIL: the last --num_iterations did not win"; grep -n "timed" "$report"; exit 1; }
"$gt" mamf "$@" --m_range 96 0 -32 --no-verbose --output_file "$report" >"$dir/log" 2>&1 ||
  { echo "FAIL: a descending range was refused"; cat "$dir/log"; exit 1; }
grep -q "96x48x40" "$report" && grep -q "32x48x40" "$report" && ! grep -q " 0x48x40" "$report" ||
  { echo "FAIL: --m_range 96 0 -32 is not 96, 64, 32"; grep -n "@" "$report"; exit 1; }
# The sweep's own --backend cpu, replaced by auto where no GPU is visible (CI machines).
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  "$gt" mamf "$@" --backend auto --no-verbose >"$dir/log" 2>&1 ||
    { echo "FAIL: --backend auto"; cat "$dir/log"; exit 1; }
  grep -q "no CUDA GPU is visible, so --backend auto measures the CPU" "$dir/log" ||
    { echo "FAIL: no warning that auto measures the CPU"; cat "$dir/log"; exit 1; }
fi
echo ok

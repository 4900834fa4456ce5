#!/usr/bin/env bash
# Device-side: run 86 (the LLM benchmark at the defaults, with the burst check) on an H100, then the
# GPU tests that touch the burst check's paths.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt36 && rm -rf $work && mkdir -p $work && tar xJf "$here/bins.tar.xz" -C $work
bins=$work/bins
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $OUT/device.txt 2>&1
start=$(date +%s)
timeout 400 $bins/gemmtune_llm_bench --time-budget 400 --output $OUT/llm.md --details $OUT/llm-details.md > /dev/null 2> $OUT/llm-stderr.txt
echo "llm bench rc $? in $(( $(date +%s) - start )) s" >> $OUT/device.txt
export GEMMTUNE_REQUIRE_GPU=1 GEMMTUNE_TEST_FIXTURES_DIR=$PWD/tests/fixtures
for n in gpu_queued_timer_test gpu_tuning_test gpu_graph_capture_test; do
  timeout 60 $bins/$n > $work/$n.log 2>&1; rc=$?
  echo "$n: rc $rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $work/$n.log | tr '\n' ' ')"
done >> $OUT/device.txt 2>&1
cat $OUT/device.txt
grep -A 12 "^## Summary" $OUT/llm.md | cut -c1-300

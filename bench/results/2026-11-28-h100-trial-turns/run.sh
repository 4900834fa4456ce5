#!/usr/bin/env bash
# Device-side: run 92, the LLM benchmark at 66fcf28 (a trial's lead of 1% or more wins whatever its
# turns), then its 44 prefill and backward problems with 9260cf0's binary (carry45) and 66fcf28's
# again, on the same machine.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt46 && rm -rf $work && mkdir -p $work/new $work/old $work/logs
tar xJf "$here/bins.tar.xz" -C $work/new && tar xJf "$here/../carry45/bins.tar.xz" -C $work/old
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $OUT/device.txt 2>&1
export GEMMTUNE_REQUIRE_GPU=1
start=$(date +%s); timeout 60 $work/new/bins/gpu_tuning_test > $work/logs/gpu_tuning_test.log 2>&1; rc=$?
echo "gpu_tuning_test: rc $rc in $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED) ' $work/logs/gpu_tuning_test.log | tr '\n' ' ')" >> $OUT/device.txt
start=$(date +%s)
timeout 260 $work/new/bins/gemmtune_llm_bench --time-budget 240 --output $OUT/llm.md --details $OUT/llm-details.md > /dev/null 2> $work/logs/llm-stderr.txt
echo "run 92 (66fcf28) rc $? in $(( $(date +%s) - start )) s" >> $OUT/device.txt
for v in old new; do
  start=$(date +%s)
  timeout 130 $work/$v/bins/gemmtune_llm_bench --only $(seq 65 108) --time-budget 120 --output $OUT/pb-$v.md --details $OUT/pb-$v-details.md > /dev/null 2> $work/logs/pb-$v-stderr.txt
  echo "prefill/backward, $v binary: rc $? in $(( $(date +%s) - start )) s" >> $OUT/device.txt
done
tar czf $OUT/logs.tar.gz -C $work logs
cat $OUT/device.txt
for f in llm pb-old pb-new; do echo "== $f"; grep -A 12 "^## Summary" $OUT/$f.md | grep -E "0.98|top 8 beyond|tuning time|all ≥" | cut -c1-900; grep -A6 "^For comparison" $OUT/$f.md | tail -4; done

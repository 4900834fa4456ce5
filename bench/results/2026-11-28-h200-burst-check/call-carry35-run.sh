#!/usr/bin/env bash
# Device-side: run 84 (the LLM benchmark at the defaults, with the burst check), the decode
# problems again with the burst check off (--burst-check-below-ms 0), then every GPU test.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt35 && rm -rf $work && mkdir -p $work && tar xJf "$here/bins.tar.xz" -C $work
bins=$work/bins
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $OUT/device.txt 2>&1
start=$(date +%s)
timeout 330 $bins/gemmtune_llm_bench --time-budget 400 --output $OUT/llm.md --details $OUT/llm-details.md > /dev/null 2> $OUT/llm-stderr.txt
echo "llm bench rc $? in $(( $(date +%s) - start )) s" >> $OUT/device.txt
decode=$(seq -s, 1 64)
start=$(date +%s)
timeout 150 $bins/gemmtune_llm_bench --only $decode --burst-check-below-ms 0 --output $OUT/decode-off.md --details $work/decode-off-details.md > /dev/null 2> $work/decode-off-stderr.txt
echo "decode, burst check off: rc $? in $(( $(date +%s) - start )) s" >> $OUT/device.txt
export GEMMTUNE_REQUIRE_GPU=1 GEMMTUNE_TEST_FIXTURES_DIR=$PWD/tests/fixtures
for t in $bins/gpu_*_test $bins/cuda_conformance_test; do
  n=$(basename $t)
  timeout 100 $t > $work/$n.log 2>&1; rc=$?
  echo "$n: rc $rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $work/$n.log | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' $work/$n.log | head -5
done >> $OUT/device.txt 2>&1
cd $work && tar cJf $OUT/logs.tar.xz *.log decode-off-details.md decode-off-stderr.txt
cat $OUT/device.txt
grep -A 12 "^## Summary" $OUT/llm.md | cut -c1-300
grep -A 8 "^## Summary" $OUT/decode-off.md | cut -c1-200

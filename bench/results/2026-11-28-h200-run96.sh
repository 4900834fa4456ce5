#!/usr/bin/env bash
# Device-side (cd508a7): every GPU test binary, the PyTorch round trip, the four fixtures tuned, loaded back and rerun, then run 96 of the LLM benchmark.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt49 && rm -rf $work && mkdir -p $work/logs && tar xJf "$here/bins.tar.xz" -C $work
bins=$work/bins
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $OUT/device.txt 2>&1
export GEMMTUNE_REQUIRE_GPU=1 GEMMTUNE_TEST_FIXTURES_DIR=$PWD/tests/fixtures
for t in $bins/gpu_*_test $bins/cuda_conformance_test; do
  n=$(basename $t); start=$(date +%s)
  timeout 240 $t > $work/logs/$n.log 2>&1; rc=$?
  echo "$n: rc $rc in $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $work/logs/$n.log | tr '\n' ' ')" >> $OUT/device.txt
done
mkdir -p $work/fx $work/logs
for f in gpt2_fp16 gpt2_fp32 gpt2_tf32 mistral_bf16; do
  start=$(date +%s)
  $bins/gemmtune tune tests/fixtures/${f}_untuned.csv -o $work/fx/$f.csv > $work/logs/tune-$f.log 2>&1; rc=$?
  $bins/gemmtune db check $work/fx/$f.csv --resolve > $work/logs/check-$f.log 2>&1; rc2=$?
  $bins/gemmtune tune tests/fixtures/${f}_untuned.csv -o $work/fx/$f.csv > $work/logs/rerun-$f.log 2>&1; rc3=$?
  echo "fixture $f: tune rc $rc, check rc $rc2, rerun rc $rc3, $(( $(date +%s) - start )) s; $(grep -i 'dispatch' $work/logs/check-$f.log | head -2 | tr '\n' ' '); rerun: $(grep -iE 'already tuned|problem\(s\)' $work/logs/rerun-$f.log | tail -1)" >> $OUT/device.txt
  cp $work/fx/$f.csv $work/logs/
done
start=$(date +%s)
timeout 300 bash tests/gpu/pytorch_roundtrip.sh $bins/gemmtune $work/pt > $work/logs/pytorch_roundtrip.log 2>&1
echo "pytorch_roundtrip: rc $? in $(( $(date +%s) - start )) s" >> $OUT/device.txt



start=$(date +%s)
timeout 330 $bins/gemmtune_llm_bench --time-budget 300 --output $OUT/llm.md --details $OUT/llm-details.md > /dev/null 2> $work/logs/llm-stderr.txt
echo "llm bench rc $? in $(( $(date +%s) - start )) s" >> $OUT/device.txt
tar czf $OUT/logs.tar.gz -C $work logs
cat $OUT/device.txt
grep -h -B2 -A8 "Failure" $work/logs/*.log | head -40
grep -A 12 "^## Summary" $OUT/llm.md | cut -c1-700

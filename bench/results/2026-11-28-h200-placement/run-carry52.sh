#!/usr/bin/env bash
# Device-side (cd508a7 + at least 8 rotation copies on CUDA + the benchmark's --placement-probe): the GPU tests, the LLM benchmark with the placement probe, then without it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt52 && rm -rf $work && mkdir -p $work/out && tar xJf "$here/bins.tar.xz" -C $work
bins=$work/bins; o=$work/out
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $o/device.txt 2>&1
export GEMMTUNE_REQUIRE_GPU=1 GEMMTUNE_TEST_FIXTURES_DIR=$PWD/tests/fixtures
for t in $bins/gpu_*_test $bins/cuda_conformance_test; do
  n=$(basename $t); start=$(date +%s)
  timeout 120 $t > $o/$n.log 2>&1; rc=$?
  echo "$n: rc $rc in $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED) ' $o/$n.log | tr '\n' ' ')" >> $o/device.txt
done
start=$(date +%s)
timeout 250 $bins/gemmtune_llm_bench --placement-probe --time-budget 230 --output $o/probe.md --details $o/probe-details.md > /dev/null 2> $o/probe-stderr.txt
echo "probe bench rc $? in $(( $(date +%s) - start )) s" >> $o/device.txt
tar czf $OUT/out.tar.gz -C $work out
start=$(date +%s)
timeout 215 $bins/gemmtune_llm_bench --time-budget 200 --output $o/llm.md --details $o/llm-details.md > /dev/null 2> $o/llm-stderr.txt
echo "llm bench rc $? in $(( $(date +%s) - start )) s" >> $o/device.txt
tar czf $OUT/out.tar.gz -C $work out
cat $o/device.txt
for f in probe llm; do echo "== $f"; grep -E "^\| (geomean|winner not|no problem|mean tuning)" $o/$f.md | cut -c1-400; done

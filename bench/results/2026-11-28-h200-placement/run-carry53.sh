#!/usr/bin/env bash
# Device-side (cd508a7 + 8 operand placements on CUDA: separate allocations, a copy in each + the benchmark's --placement-probe): GPU tests that allocate operands, then the LLM benchmark with the placement probe.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt53 && rm -rf $work && mkdir -p $work/out && tar xJf "$here/bins.tar.xz" -C $work
bins=$work/bins; o=$work/out
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $o/device.txt 2>&1
export GEMMTUNE_REQUIRE_GPU=1 GEMMTUNE_TEST_FIXTURES_DIR=$PWD/tests/fixtures
for t in $bins/gpu_*_test $bins/cuda_conformance_test; do
  n=$(basename $t); start=$(date +%s)
  timeout 60 $t > $o/$n.log 2>&1; rc=$?
  echo "$n: rc $rc in $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED) ' $o/$n.log | tr '\n' ' ')" >> $o/device.txt
done
start=$(date +%s)
timeout 240 $bins/gemmtune_llm_bench --placement-probe --time-budget 200 --output $o/probe.md --details $o/probe-details.md > /dev/null 2> $o/probe-stderr.txt
echo "probe bench rc $? in $(( $(date +%s) - start )) s" >> $o/device.txt
tar czf $OUT/out.tar.gz -C $work out
cat $o/device.txt
grep -E "^\| (geomean|winner not|no problem|mean tuning)" $o/probe.md | cut -c1-400

#!/usr/bin/env bash
# Device-side, call 2: every GPU test binary and the PyTorch round trip, on the warm machine.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt33
[ -d $work/bins ] || { rm -rf $work && mkdir -p $work && tar xJf "$here/bins.tar.xz" -C $work; }
bins=$work/bins
export GEMMTUNE_REQUIRE_GPU=1 GEMMTUNE_TEST_FIXTURES_DIR=$PWD/tests/fixtures
for t in $bins/gpu_*_test $bins/cuda_conformance_test; do
  n=$(basename $t)
  timeout 240 $t > $OUT/$n.log 2>&1; rc=$?
  echo "$n: rc $rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/$n.log | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' $OUT/$n.log | head -5
done > $OUT/gpu-tests.txt 2>&1
timeout 240 bash tests/gpu/pytorch_roundtrip.sh $bins/gemmtune $work/roundtrip > $OUT/pytorch-roundtrip.log 2>&1
echo "pytorch_roundtrip: rc $?" >> $OUT/gpu-tests.txt
cd $OUT && tar cJf logs.tar.xz *_test.log pytorch-roundtrip.log && rm -f *_test.log pytorch-roundtrip.log
cat $OUT/gpu-tests.txt

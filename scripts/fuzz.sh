#!/usr/bin/env bash
# Builds the libFuzzer targets of the two CSV parsers with clang and runs each for SECONDS
# (default 20) from the test fixtures; any crash, sanitizer report or broken round trip fails.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DGEMMTUNE_FUZZ=ON -DGEMMTUNE_WITH_CUDA=OFF \
  -DGEMMTUNE_BUILD_TESTS=OFF -DGEMMTUNE_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target untuned_fuzzer results_csv_fuzzer
work=build-fuzz/fuzz/run
mkdir -p "$work/untuned" "$work/results" "$work/artifacts"
cp tests/fixtures/*untuned*.csv "$work/untuned/"
cp tests/fixtures/*.csv "$work/results/"
for target in untuned:untuned_fuzzer results:results_csv_fuzzer; do
  corpus=${target%%:*} fuzzer=${target##*:}
  echo "fuzzing $fuzzer for ${seconds}s"
  build-fuzz/fuzz/$fuzzer -max_total_time="$seconds" -max_len=4096 -print_final_stats=0 \
    -artifact_prefix="$work/artifacts/" "$work/$corpus" 2>"$work/$fuzzer.log" ||
    { tail -40 "$work/$fuzzer.log"; echo "$fuzzer found a failure (input in $work/artifacts)"; exit 1; }
  grep -E "^#[0-9]+.*DONE" "$work/$fuzzer.log" | tail -1 || true
done

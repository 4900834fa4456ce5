#!/usr/bin/env bash
# scripts/sanitize.sh address|thread [CTEST ARGS...]: builds gemmtune for the CPU (no CUDA) with
# GCC's AddressSanitizer and UndefinedBehaviorSanitizer ("address") or ThreadSanitizer ("thread")
# into ./build-asan or ./build-tsan, and runs the test suite there (by default the unit, cli and
# conformance tests; pass ctest arguments to choose others). Any report fails the run.
# The GPU's own kernels have their checker in tests/gpu/sanitize.sh (compute-sanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-}
shift || true
case "$kind" in
  address)
    dir=build-asan
    flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    # The leak checker stays on; the CLI tests' child processes report theirs too.
    # alloc_dealloc_mismatch=0: GCC 12's std::stable_partition (the tuner's) takes its buffer
    # with operator new(nothrow) inside libstdc++'s headers and ASan then sees it given back with
    # free(), a mismatch of the library's, not of gemmtune's.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:alloc_dealloc_mismatch=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    ;;
  thread)
    dir=build-tsan
    flags="-fsanitize=thread -fno-omit-frame-pointer"
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
    # OpenBLAS's own threads are not instrumented; one thread keeps them out of the picture.
    export OPENBLAS_NUM_THREADS=1
    ;;
  *)
    echo "usage: scripts/sanitize.sh address|thread [ctest arguments]" >&2
    exit 2
    ;;
esac
scripts/install-deps.sh
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGEMMTUNE_WITH_CUDA=OFF \
  -DGEMMTUNE_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$flags"
cmake --build "$dir" -j"$(nproc)"
if (($# == 0)); then
  # Left out:
  # - the installed-package example, which builds an application against the installed library
  #   without the sanitizer's runtime and cannot link;
  # - the API tests that expect the tuner to pick their fast test solution over the CPU Default:
  #   instrumentation changes the two loops' relative speed (under AddressSanitizer and
  #   ThreadSanitizer the real Default was as fast and kept its place), which is the tuner doing
  #   its job.
  set -- -L 'unit|cli' -E '^examples[.]|^OnlineTuning[.](TuningCanBeSwitchedOnFromCode|WriteFileAndReadFileRoundTrip|WriteFileKeepsWhatTheFileHoldsThatTheContextDoesNot)$|^Races[.]ACallerArrivingAsATuningEndsDoesNotTuneTheProblemAgain$'
fi
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" --timeout 1200 "$@"

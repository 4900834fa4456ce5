#!/usr/bin/env bash
# Set-up and the whole test suite in one command: install, build, a brief fuzzing of the CSV
# parsers, and every test (GPU tests skip themselves where no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# GEMMTUNE_FUZZ_SECONDS=0 skips the fuzzing.
if [ "${GEMMTUNE_FUZZ_SECONDS:-20}" != 0 ]; then
  scripts/fuzz.sh "${GEMMTUNE_FUZZ_SECONDS:-20}"
fi
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600

#!/usr/bin/env bash
# Set-up and the whole test suite in one command: install, build, run every test (GPU tests skip
# themselves where no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600

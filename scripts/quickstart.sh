#!/usr/bin/env bash
# Set-up and the main job in one command: install, build, and tune the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
./build/cli/gemmtune db check tests/fixtures/mistral_bf16_results.csv

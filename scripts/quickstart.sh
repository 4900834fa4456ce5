#!/usr/bin/env bash
# Set-up and the main job in one command: install, build, and tune the bundled example (on the
# GPU where there is one, on the CPU otherwise). A second run resumes: it skips what is tuned.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
./build/cli/gemmtune tune examples/untuned/quickstart_untuned.csv -o quickstart_results.csv

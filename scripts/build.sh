#!/usr/bin/env bash
# Configures and builds gemmtune into ./build (CUDA backend included where the toolkit is found).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$(nproc)"

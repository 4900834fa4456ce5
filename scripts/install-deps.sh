#!/usr/bin/env bash
# Installs gemmtune's build dependencies from Debian 12's packages. The CUDA backend is built too
# when the CUDA toolkit (nvcc, cuBLAS, cuBLASLt) is already installed; it is not a Debian package.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libcli11-dev libfmt-dev libsqlite3-dev libgtest-dev
          libgmock-dev libbenchmark-dev libopenblas-dev nlohmann-json3-dev libtoml11-dev openmpi-bin
          clang libclang-rt-14-dev)  # clang and libFuzzer: the parsers' fuzz targets
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Sourced by the GPU test scripts: exits 77 (ctest: skipped) where nvidia-smi lists no GPU, or 1
# where GEMMTUNE_REQUIRE_GPU=1 asks for one.
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  if [ "${GEMMTUNE_REQUIRE_GPU:-0}" = 1 ]; then
    echo "GEMMTUNE_REQUIRE_GPU=1 but nvidia-smi lists no GPU" >&2
    exit 1
  fi
  echo "skipped: no GPU"
  exit 77
fi

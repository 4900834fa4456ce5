#!/usr/bin/env bash
# sanitize.sh TOOL BINARY [ARGS...]: runs a GPU test binary under compute-sanitizer's TOOL
# (memcheck, racecheck, synccheck, initcheck), instrumenting only gemmtune's own kernels (their
# mangled names hold "gemmtune"; cuBLAS's run at full speed), and fails on anything it reports.
# Exit 77 (ctest: skipped) where there is no GPU or no compute-sanitizer; GEMMTUNE_REQUIRE_GPU=1
# turns a missing GPU into a failure. GEMMTUNE_COMPUTE_SANITIZER names another sanitizer binary.
set -u
tool=$1
binary=$2
shift 2

. "$(dirname "$0")/skip_without_gpu.sh"
sanitizer=${GEMMTUNE_COMPUTE_SANITIZER:-$(command -v compute-sanitizer || true)}
if [ -z "$sanitizer" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
  sanitizer=/usr/local/cuda/bin/compute-sanitizer
fi
if [ -z "$sanitizer" ]; then
  echo "skipped: no compute-sanitizer (it comes with the CUDA toolkit; or set GEMMTUNE_COMPUTE_SANITIZER)"
  exit 77
fi

case "$tool" in
  # Padding after each allocation, so that a read just past an operand is an error, not a read
  # of the next buffer.
  memcheck) extra=(--padding 256) ;;
  # The bulk-copy kernel's hand-off between its consumer and epilogue warps (a named barrier
  # arrived on after the epilogue's reads) is one racecheck cannot follow: it reports the next
  # tile's writes as racing with those reads (solutions/cuda/skinny_bulk_kernel.cuh says why the
  # hand-off is sound), so racecheck leaves that kernel out.
  racecheck) extra=(--racecheck-report analysis --kernel-name-exclude kns=skinny_bulk_kernel) ;;
  synccheck | initcheck) extra=() ;;
  *)
    echo "unknown tool '$tool' (memcheck, racecheck, synccheck, initcheck)" >&2
    exit 2
    ;;
esac
exec "$sanitizer" --tool "$tool" "${extra[@]}" --kernel-name kns=gemmtune --error-exitcode 9 \
  --print-limit 20 "$binary" "$@"

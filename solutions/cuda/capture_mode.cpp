#include "solutions/cuda/capture_mode.hpp"

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {

RelaxedCaptureMode::RelaxedCaptureMode() noexcept {
  const cudaError_t pending = cudaPeekAtLastError();  // the application's, left as it is
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  // It fails only without a usable driver, where the calls it guards fail on their own and say
  // why: clear its error so that it is not taken for theirs.
  exchanged_ = cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
  if (exchanged_) {
    previous_ = mode;
  } else {
    (void)launch_error_since(pending);
  }
}

RelaxedCaptureMode::~RelaxedCaptureMode() {
  if (exchanged_) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaThreadExchangeStreamCaptureMode(&previous_));
}

}  // namespace gemmtune::cuda

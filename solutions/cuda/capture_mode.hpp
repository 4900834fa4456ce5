// An application may capture a CUDA graph on one thread (cudaStreamCaptureModeGlobal, the
// default) while gemmtune, on another, tunes a GEMM met for the first time or grows a workspace.
// In that mode cudaMalloc, cudaFree, cudaHostAlloc and the like from any thread of the process
// count as "unsafe during a capture": they fail, and the application's capture is invalidated, by
// calls that have nothing to do with its graph. gemmtune's own device work (on its own
// non-blocking streams, never the captured ones, and with memory the graph never sees) is safe,
// so the thread that does it says so for as long as it does: the thread's capture interaction mode
// is cudaStreamCaptureModeRelaxed while a RelaxedCaptureMode lives. The mode is per thread, so no
// other thread of the application is affected.
#pragma once

#include <cuda_runtime_api.h>

namespace gemmtune::cuda {

class [[nodiscard]] RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() noexcept;
  ~RelaxedCaptureMode();  // restores the thread's mode before
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  cudaStreamCaptureMode previous_ = cudaStreamCaptureModeRelaxed;
  bool exchanged_ = false;
};

}  // namespace gemmtune::cuda

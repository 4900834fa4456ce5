// Stream: an owned, non-blocking CUDA stream on the current device; destroyed on destruction.
#pragma once

#include <cuda_runtime_api.h>

namespace gemmtune::cuda {

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;

  cudaStream_t get() const { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace gemmtune::cuda

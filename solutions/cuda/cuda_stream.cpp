#include "solutions/cuda/cuda_stream.hpp"

#include <utility>

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {

Stream::Stream() {
  GEMMTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

Stream::~Stream() {
  if (stream_ != nullptr) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(stream_));
}

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (stream_ != nullptr) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(stream_));
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const {
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

}  // namespace gemmtune::cuda

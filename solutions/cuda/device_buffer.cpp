#include "solutions/cuda/device_buffer.hpp"

#include <utility>

#include "solutions/cuda/capture_mode.hpp"
#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  // cudaMalloc(0) yields nullptr; keep a real allocation so data() is always a valid address.
  // Relaxed: nothing gemmtune allocates is part of an application's graph (capture_mode.hpp).
  const RelaxedCaptureMode relaxed;
  GEMMTUNE_CUDA_CHECK(cudaMalloc(&data_, bytes == 0 ? 1 : bytes));
}

DeviceBuffer::~DeviceBuffer() {
  release();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (data_ == nullptr) return;
  const RelaxedCaptureMode relaxed;
  GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaFree(data_));
  data_ = nullptr;
}

}  // namespace gemmtune::cuda

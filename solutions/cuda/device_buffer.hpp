// DeviceBuffer: device memory from plain cudaMalloc (never managed memory), freed on destruction.
//
// It is the CUDA backend's gemmtune::Buffer. The allocation is made on the current device; the
// destructor never throws (a failed cudaFree is reported to stderr).
#pragma once

#include <cstddef>

#include "tuner/backend.hpp"

namespace gemmtune::cuda {

class DeviceBuffer final : public Buffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer() override;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  void* data() const override { return data_; }
  std::size_t bytes() const override { return bytes_; }

 private:
  void release() noexcept;

  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace gemmtune::cuda

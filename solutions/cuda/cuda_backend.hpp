// CudaBackend: gemmtune's Backend on one CUDA device.
//
// It selects the device by ordinal, reads its properties (name, sm_XY, memory, L2 size, SM count)
// from the device, owns one non-blocking stream that every operation and solution uses, and
// reports the versions validators record: CUDA_RUNTIME_VERSION, CUDA_DRIVER_VERSION,
// CUBLAS_VERSION, CUBLASLT_VERSION, GPU_NAME, GPU_COMPUTE_CAPABILITY, GPU_SM_COUNT.
// Every call makes the backend's device current first, so one process may hold several.
// synchronize() throws an Error whose message starts with "sticky CUDA error" when the device
// context is lost (see cuda_sticky_error).
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "solutions/cuda/compare_outputs.hpp"
#include "solutions/cuda/cuda_stream.hpp"
#include "solutions/cuda/device_buffer.hpp"
#include "solutions/cuda/stream_hold.hpp"
#include "tuner/backend.hpp"

namespace gemmtune {

class CudaBackend final : public Backend {
 public:
  // Throws Error when the ordinal names no device (see cuda_device_count()).
  explicit CudaBackend(int ordinal = 0);
  ~CudaBackend() override;

  const DeviceProperties& properties() const override { return properties_; }
  std::unique_ptr<DeviceScope> make_current() const override;
  Environment versions() const override;
  void* stream() const override { return stream_.get(); }
  bool capturing(void* stream) const override;
  const void* stream_identity(void* stream) const override;
  // Free device memory now (cudaMemGetInfo): an application or another process may hold much of
  // it, and the tuner plans its operands within what is left.
  std::size_t available_memory_bytes() const override;

  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  void fill_random(Buffer& buffer, DType dtype, std::int64_t elements, std::uint64_t seed) override;
  void fill_bytes(Buffer& buffer, unsigned char value) override;
  void copy(Buffer& dst, const Buffer& src, std::size_t bytes) override;
  // Complex types come back as two doubles (real, imaginary) per element.
  std::vector<double> read_as_double(const Buffer& src, DType dtype,
                                     std::int64_t elements) override;
  void synchronize() override;
  void flush_cache() override;
  std::unique_ptr<IterationTimer> make_timer(TimingMode mode) override;
  // A CUDA graph captured from the backend's stream (graph_runs.hpp).
  std::unique_ptr<CapturedRuns> capture_runs(const std::function<RunStatus(void* stream)>& issue,
                                             int runs, std::string& why) override;
  // The numerical check on the device (compare_outputs.cu); nullopt for complex and fnuz types.
  std::optional<double> output_rms(const Problem& problem, const Buffer& output) override;
  std::optional<CheckResult> compare_outputs(const Problem& problem, const Buffer& reference,
                                             const Buffer& candidate,
                                             const Tolerance& tolerance) override;

 private:
  // Zeroes the totals, enqueues the launches, and reads the totals back.
  cuda::CompareTotals run_totals(
      const std::function<cudaError_t(cuda::CompareTotals*)>& launch,
      const std::function<cudaError_t(cuda::CompareTotals*)>& second = {});
  double read_element(const Buffer& buffer, DType dtype, std::int64_t index);
  cuda::StreamHold& stream_hold();  // made on first use

  int ordinal_;
  DeviceProperties properties_;
  cuda::Stream stream_;
  std::unique_ptr<cuda::DeviceBuffer> flush_buffer_;  // made on first flush_cache
  std::unique_ptr<cuda::DeviceBuffer> totals_;        // made on first device check
  std::unique_ptr<cuda::StreamHold> stream_hold_;     // made by stream_hold()
};

}  // namespace gemmtune

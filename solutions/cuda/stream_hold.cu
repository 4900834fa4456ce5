#include "solutions/cuda/stream_hold.hpp"

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {
namespace {

__global__ void spin_until_released(const volatile int* flag, int* timed_out,
                                    unsigned long long timeout_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    if (*flag != 0) return;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < timeout_ns);
  *timed_out = 1;
}

}  // namespace

StreamHold::StreamHold() {
  void* host = nullptr;
  // Portable: a process may hold backends on several devices, each with its own hold.
  GEMMTUNE_CUDA_CHECK(
      cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  host_ = static_cast<int*>(host);
  host_[0] = 1;
  host_[1] = 0;
  void* device = nullptr;
  const cudaError_t mapped = cudaHostGetDevicePointer(&device, host, 0);
  if (mapped != cudaSuccess) {
    GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaFreeHost(host));
    throw_cuda_error(__FILE__, __LINE__, "cudaHostGetDevicePointer", mapped);
  }
  device_ = static_cast<int*>(device);
}

StreamHold::~StreamHold() {
  if (stream_ != nullptr) {
    const cudaStream_t stream = stream_;
    release();
    GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaStreamSynchronize(stream));
  }
  GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaFreeHost(host_));
}

void StreamHold::hold(cudaStream_t stream, std::chrono::milliseconds timeout) {
  release();  // never two holds at once: the earlier one's flag is this one's
  static_cast<volatile int*>(host_)[1] = 0;
  static_cast<volatile int*>(host_)[0] = 0;
  const auto timeout_ns = static_cast<unsigned long long>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count());
  const cudaError_t pending = cudaPeekAtLastError();
  spin_until_released<<<1, 1, 0, stream>>>(device_, device_ + 1, timeout_ns);
  const cudaError_t launched = launch_error_since(pending);
  if (launched != cudaSuccess) {
    static_cast<volatile int*>(host_)[0] = 1;
    throw_cuda_error(__FILE__, __LINE__, "spin_until_released<<<1, 1>>>", launched);
  }
  stream_ = stream;
}

void StreamHold::release() noexcept {
  static_cast<volatile int*>(host_)[0] = 1;
  stream_ = nullptr;
}

bool StreamHold::timed_out() const {
  return static_cast<volatile const int*>(host_)[1] != 0;
}

}  // namespace gemmtune::cuda

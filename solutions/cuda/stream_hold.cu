#include "solutions/cuda/stream_hold.hpp"

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {
namespace {

// Spins until hold number `hold` (or a later one) is released. Counting holds rather than setting
// and clearing one flag matters where a hold is released and the next one made at once (a timer
// dropped mid-chunk, then a new one, with no synchronization between): a single flag went back to
// "held" before the first kernel saw it released, and that kernel spun until its timeout, stalling
// the stream and marking the new hold as timed out.
__global__ void spin_until_released(const volatile int* released, int* timed_out, int hold,
                                    unsigned long long timeout_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    // In wrapping order (unsigned difference read as signed), as the counts may wrap.
    if (static_cast<int>(static_cast<unsigned>(*released) - static_cast<unsigned>(hold)) >= 0) {
      return;
    }
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < timeout_ns);
  *timed_out = hold;
}

}  // namespace

StreamHold::StreamHold() {
  void* host = nullptr;
  // Portable: a process may hold backends on several devices, each with its own hold.
  GEMMTUNE_CUDA_CHECK(
      cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  host_ = static_cast<int*>(host);
  host_[0] = 0;  // hold 0 (none) released
  host_[1] = 0;  // no hold timed out
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
  release();  // never two holds at once
  // Unsigned arithmetic: the count wraps after 2^32 holds, which the kernel's comparison allows.
  hold_ = static_cast<int>(static_cast<unsigned>(hold_) + 1u);
  const auto timeout_ns = static_cast<unsigned long long>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count());
  const cudaError_t pending = cudaPeekAtLastError();
  spin_until_released<<<1, 1, 0, stream>>>(device_, device_ + 1, hold_, timeout_ns);
  const cudaError_t launched = launch_error_since(pending);
  if (launched != cudaSuccess) {
    static_cast<volatile int*>(host_)[0] = hold_;
    throw_cuda_error(__FILE__, __LINE__, "spin_until_released<<<1, 1>>>", launched);
  }
  stream_ = stream;
}

void StreamHold::release() noexcept {
  static_cast<volatile int*>(host_)[0] = hold_;  // this hold and every earlier one
  stream_ = nullptr;
}

bool StreamHold::timed_out() const {
  return hold_ != 0 && static_cast<volatile const int*>(host_)[1] == hold_;
}

}  // namespace gemmtune::cuda

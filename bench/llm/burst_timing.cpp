#include "bench/llm/burst_timing.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "bench/llm/hold_stream.hpp"
#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_event.hpp"

namespace gemmtune::bench {
namespace {

struct HostFree {
  void operator()(int* p) const noexcept { GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaFreeHost(p)); }
};

// Releases the held stream however the burst ends.
struct Release {
  volatile int* flag;
  ~Release() { *flag = 1; }
};

constexpr unsigned long long kTimeoutNs = 500'000'000;  // 0.5 s

}  // namespace

BurstTime burst_time(Solution& solution, const Problem& problem, OperandSets& sets,
                     void* stream_ptr, int iterations, int bursts) {
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  void* raw = nullptr;
  GEMMTUNE_CUDA_CHECK(cudaHostAlloc(&raw, 2 * sizeof(int), cudaHostAllocMapped));
  std::unique_ptr<int, HostFree> host(static_cast<int*>(raw));
  void* mapped = nullptr;
  GEMMTUNE_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, raw, 0));
  int* device = static_cast<int*>(mapped);
  volatile int* flag = host.get();
  volatile int* timed_out = host.get() + 1;
  *timed_out = 0;

  BurstTime out;
  std::vector<double> ms;
  for (int burst = 0; burst <= bursts && out.error.empty(); ++burst) {  // burst 0 warms up
    cuda::EventPair pair;
    {
      *flag = 0;
      Release release{flag};
      GEMMTUNE_CUDA_CHECK(launch_hold_stream(device, device + 1, kTimeoutNs, stream));
      pair.begin.record(stream);
      for (int i = 0; i < iterations; ++i) {
        const RunStatus status = solution.run(problem, sets.next(), stream);
        if (!status) {
          out.error = status.error;
          break;
        }
      }
      pair.end.record(stream);
    }
    GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (*timed_out != 0) out.error = "the stream was held until the timeout";
    if (burst > 0 && out.error.empty()) ms.push_back(pair.elapsed_ms() / iterations);
  }
  if (!out.error.empty() || ms.empty()) return out;
  std::sort(ms.begin(), ms.end());
  out.median_ms = ms[ms.size() / 2];
  return out;
}

}  // namespace gemmtune::bench

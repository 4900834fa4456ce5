#include "bench/llm/hold_stream.hpp"

namespace gemmtune::bench {
namespace {

__global__ void hold_stream(const volatile int* flag, int* timed_out,
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

cudaError_t launch_hold_stream(const volatile int* flag, int* timed_out,
                               unsigned long long timeout_ns, cudaStream_t stream) {
  hold_stream<<<1, 1, 0, stream>>>(flag, timed_out, timeout_ns);
  return cudaGetLastError();
}

}  // namespace gemmtune::bench

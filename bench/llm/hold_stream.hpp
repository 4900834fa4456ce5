// A kernel that holds a stream until the host releases it: it spins on a host-mapped flag until
// the flag is non-zero or `timeout_ns` have passed, and then (only on timeout) sets *timed_out.
// Plain C++17 so that the .cu file compiles with nvcc's C++17.
#pragma once

#include <cuda_runtime_api.h>

namespace gemmtune::bench {

// Enqueues the kernel; returns the launch's status.
cudaError_t launch_hold_stream(const volatile int* flag, int* timed_out,
                               unsigned long long timeout_ns, cudaStream_t stream);

}  // namespace gemmtune::bench

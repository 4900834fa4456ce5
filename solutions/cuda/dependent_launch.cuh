// Programmatic dependent launch (compute capability 9.0 and later), for gemmtune's kernels. A
// kernel launched this way may start while the stream's previous kernel is still finishing: its
// blocks become resident and set up shared memory and barriers, then wait in
// wait_for_previous() until that kernel has completed and its writes are visible. cuBLAS's
// kernels do the same; without it each of gemmtune's kernels, run back to back (a CUDA graph, a
// stream of GEMMs), paid more per launch than Default's (bench/results/2026-11-25-h100-run38.md).
// Timed with an event between iterations (the tuner's protocol) nothing overlaps either way.
// For .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdlib>
#include <string_view>

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda::skinny {

// Before the kernel's first access to global memory that an earlier kernel may have written or
// may still read (A, B and C alike). A no-op where the kernel was not launched dependent.
__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the stream's next kernel, if launched dependent, start its set-up; it still waits for
// this kernel's end before it touches memory.
__device__ __forceinline__ void allow_next_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// GEMMTUNE_DEPENDENT_LAUNCH=0 launches gemmtune's kernels plainly, for measuring what dependent
// launch is worth (docs/measurement.md); read once per process.
inline bool dependent_launch_allowed() {
  static const bool allowed = [] {
    const char* value = std::getenv("GEMMTUNE_DEPENDENT_LAUNCH");
    return value == nullptr || std::string_view(value) != "0";
  }();
  return allowed;
}

// Whether the current device takes dependent launches; asked once per thread and device.
inline bool device_takes_dependent_launch() {
  if (!dependent_launch_allowed()) return false;
  thread_local int known_device = -1;
  thread_local bool takes = false;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;  // the launch reports the error
  if (device != known_device) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
      return false;
    }
    takes = major >= 9;
    known_device = device;
  }
  return takes;
}

// kernel<<<grid, block, shared_bytes, stream>>>(args...), launched dependent where the device
// allows it. Returns the launch's error, or the thread's new last error (launch_error_since).
template <typename... Params, typename... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block,
                             std::size_t shared_bytes, cudaStream_t stream, Args... args) {
  const cudaError_t pending = cudaPeekAtLastError();
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = device_takes_dependent_launch() ? 1 : 0;
  const cudaError_t launched = cudaLaunchKernelEx(&config, kernel, args...);
  const cudaError_t last = launch_error_since(pending);
  return launched != cudaSuccess ? launched : last;
}

}  // namespace gemmtune::cuda::skinny

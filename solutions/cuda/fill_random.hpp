// Random fill on the device: values uniform in [-1, -1/64] ∪ [1/64, 1], so never zero (a zero
// input runs faster and hides an unwritten output) and exactly representable as normal numbers
// in every type down to fp8. Reproducible: element i depends only on (seed, i).
//
// Kept free of gemmtune's other headers so that the .cu file compiles with nvcc alone.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gemmtune::cuda {

enum class FillType { F32, F64, F16, BF16, E4M3, E5M2 };

// Enqueues the fill of `count` values of `type` at `data` on `stream`.
cudaError_t launch_fill_random(void* data, FillType type, std::int64_t count, std::uint64_t seed,
                               cudaStream_t stream);

}  // namespace gemmtune::cuda

// C[i, j] += bias[i]: the bias epilogue as a kernel of its own, for GemmAndBias's Default where
// cuBLASLt's epilogue cannot take the call's operands (gemm_then_bias.hpp).
//
// Kept free of gemmtune's other headers so that the .cu file compiles with nvcc alone.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gemmtune::cuda {

// C's type, which is also the bias's (a GemmAndBias's bias has its output's type).
enum class BiasAddType { F32, F64, F16, BF16 };

// Enqueues C[i + j·ldc] = C[i + j·ldc] + bias[i] for i < m, j < n on `stream`, in fp32 (fp64 for
// F64) and rounded once to C's type. Any element alignment will do. Returns the launch's error
// without touching an error the application left pending.
cudaError_t launch_add_bias(BiasAddType type, void* c, std::int64_t ldc, const void* bias,
                            std::int64_t m, std::int64_t n, cudaStream_t stream);

}  // namespace gemmtune::cuda

// An fp8 ScaledGemm computed by a plain kernel of gemmtune's: ScaledGemm's `Default` where
// cuBLASLt's algorithm cannot take a call's operands (default_with_fallback.hpp).
//
// cuBLASLt's fp8 algorithms want A, B, C and the scales aligned to 16 bytes, and turn a call down
// otherwise (CUBLAS_STATUS_NOT_SUPPORTED, or an algorithm's minimum alignment); fp8 has no
// cublasGemmEx to fall back to. An application's operands may still be views at any byte (a
// slice of an fp8 tensor), so this kernel reads every operand element by element, at any
// alignment its type allows, and is correct rather than fast: 16 × 16 tiles through shared memory,
// fp32 accumulation.
//
// Kept free of gemmtune's other headers so that the .cu file compiles with nvcc alone.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gemmtune::cuda {

enum class ScaledKernelType { F32, F16, BF16, E4M3, E5M2 };

struct ScaledGemmKernelArgs {
  ScaledKernelType a_type = ScaledKernelType::E4M3, b_type = ScaledKernelType::E4M3;
  ScaledKernelType d_type = ScaledKernelType::BF16;    // C's type too where beta is read
  ScaledKernelType bias_type = ScaledKernelType::F32;  // F32, F16 or BF16, where bias is given
  // The tn layout every fp8 GEMM on CUDA has: A stored k × m (lda ≥ k), B stored k × n (ldb ≥ k),
  // D m × n (ldd ≥ m), column-major.
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldd = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* d = nullptr;
  const void* bias = nullptr;  // m values, or null
  // One float each, or (rowwise) m for A and n for B.
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  bool rowwise = false;
  float alpha = 1.0f, beta = 0.0f;  // beta is read only for a D that is not fp8
};

// Enqueues D[i + j·ldd] = alpha · scale_a[i] · scale_b[j] · Σₖ A[k + i·lda] · B[k + j·ldb]
// + bias[i] + beta · D[i + j·ldd], rounded once to D's type (fp8 saturating to its largest finite
// value). Returns the launch's error, cudaErrorInvalidValue for arguments it
// cannot take, and leaves an error the application left pending alone.
cudaError_t launch_scaled_gemm_kernel(const ScaledGemmKernelArgs& args, cudaStream_t stream);

}  // namespace gemmtune::cuda

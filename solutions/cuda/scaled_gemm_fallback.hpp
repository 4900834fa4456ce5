// An fp8 ScaledGemm through gemmtune's plain kernel (scaled_gemm_kernel.hpp): `Default`'s last
// way round cuBLASLt where its algorithm cannot take a call's operands and no aligned copies can
// be made (default_with_fallback.hpp, aligned_copies.hpp).
// It takes the ScaledGemm problems CUDA takes (tn, batch 1, fp8 A and B, an fp32, fp16, bf16 or
// fp8 output, tensor-wise or row-wise scales, an fp32, fp16 or bf16 bias) at any alignment of
// their elements; it is slow, never a tuning candidate, and Default runs it only for calls whose
// operands cuBLASLt's algorithm turns down.
#pragma once

#include <memory>

#include "tuner/solution.hpp"

namespace gemmtune::cuda {

std::unique_ptr<Solution> make_scaled_gemm_fallback(const Problem& problem);

}  // namespace gemmtune::cuda

// GemmAndBias as two steps: the GEMM without its bias (cublasGemmEx, which takes any element
// alignment), then gemmtune's kernel adds the bias (add_bias.hpp). `Default`'s way round
// cuBLASLt's bias epilogue where that cannot take a call's operands (default_with_fallback.hpp).
#pragma once

#include <memory>

#include "tuner/solution.hpp"

namespace gemmtune::cuda {

// `plain_gemm` is built for without_bias(problem).
std::unique_ptr<Solution> make_gemm_then_bias(const Problem& problem,
                                              std::unique_ptr<Solution> plain_gemm);

// The problem without its bias: op Gemm.
Problem without_bias(const Problem& problem);

}  // namespace gemmtune::cuda

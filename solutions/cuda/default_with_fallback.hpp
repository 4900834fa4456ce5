// `Default` for GemmAndBias: cuBLASLt's heuristic #0 with the bias epilogue, as PyTorch's
// TunableOp has it, and a way round it where that algorithm cannot take a call's operands.
//
// cuBLASLt's algorithm is chosen once, for operands aligned as cudaMalloc returns them. An
// application's operands may be views that are not (PyTorch's `bias[1:]`, a slice of A), and
// cuBLASLt has no capability for the bias pointer's alignment at all: the LtMatmul refuses a bias
// under 4 bytes, which could fault the device. Default is the reference and what an application
// falls back to, so it must run every call: where the algorithm refuses (RunStatus::refused), or
// where cuBLASLt has no algorithm for the problem, the GEMM runs through cublasGemmEx (any
// element alignment) and a kernel of gemmtune's adds the bias. fp16 and bf16 results are then
// rounded twice (the GEMM's, then the sum's) instead of once: within every tolerance the
// numerical check uses.
#pragma once

#include <memory>

#include "tuner/solution.hpp"

namespace gemmtune::cuda {

// `lt` is the heuristic's algorithm (or an LtSolution saying why there is none); `plain_gemm`
// runs the same problem as a Gemm (no bias), as cublasGemmEx.
std::unique_ptr<Solution> make_gemm_and_bias_default(const Problem& problem,
                                                     std::unique_ptr<Solution> lt,
                                                     std::unique_ptr<Solution> plain_gemm);

// The problem without its bias: op Gemm, what the plain_gemm above is built for.
Problem without_bias(const Problem& problem);

}  // namespace gemmtune::cuda

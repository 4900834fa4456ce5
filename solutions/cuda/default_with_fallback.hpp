// `Default` for GemmAndBias and ScaledGemm: cuBLASLt's heuristic #0, as PyTorch's TunableOp has
// it, and a way round it where that algorithm cannot take a call's operands.
//
// cuBLASLt's algorithm is chosen once, for operands aligned as cudaMalloc returns them. An
// application's operands may be views that are not (PyTorch's `bias[1:]`, a slice of A), and
// cuBLASLt has no capability for the bias pointer's alignment at all: the LtMatmul refuses a bias
// under 4 bytes, which could fault the device. Default is the reference and what an application
// falls back to, so it must run every call: where the algorithm refuses (RunStatus::refused), or
// (for GemmAndBias) where cuBLASLt has no algorithm for the problem, the fallback runs the call:
// - GemmAndBias: cublasGemmEx (any element alignment), then a kernel of gemmtune's adds the bias
//   (gemm_then_bias.hpp). fp16 and bf16 results are then rounded twice (the GEMM's, then the
//   sum's) instead of once: within every tolerance the numerical check uses.
// - ScaledGemm: the same algorithm on aligned copies of the operands that are not on 16 bytes
//   (aligned_copies.hpp), and where that cannot be, gemmtune's plain fp8 kernel
//   (scaled_gemm_fallback.hpp); fp8 has no cublasGemmEx. Only for calls cuBLASLt's algorithm turns
//   down: a problem cuBLASLt has no fp8 algorithm for, PyTorch cannot run either, and the slow
//   kernel is no baseline to tune against.
#pragma once

#include <memory>

#include "tuner/solution.hpp"

namespace gemmtune::cuda {

// `lt` is the heuristic's algorithm (or an LtSolution saying why there is none); `fallback` runs
// `problem` with any operands it can, for the calls `lt` refuses, and for every call where `lt`
// has no algorithm if `without_algorithm`. The result is named as `lt`, and asks for its
// workspace.
enum class FallbackFor { RefusedCalls, RefusedCallsAndNoAlgorithm };
std::unique_ptr<Solution> make_default_with_fallback(const Problem& problem,
                                                     std::unique_ptr<Solution> lt,
                                                     std::unique_ptr<Solution> fallback,
                                                     FallbackFor use);

}  // namespace gemmtune::cuda

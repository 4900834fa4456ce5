// LtMatmul: one Problem described to cuBLASLt — the operation descriptor (compute and scale
// types, transposes, bias epilogue, fp8 scale modes) and the A, B, C, D layouts (leading
// dimensions, strided batches) — with the three things done with it: ask the heuristic, check an
// algorithm, run one.
//
// Descriptors are built once per problem and reused by every candidate; `run` only sets the
// operand pointers, so it costs no more than a plain cublasLtMatmul. Pointers the heuristic sees
// before any operand exists (bias, scales) are placeholders aligned like cudaMalloc's; `run`
// refuses operands less aligned than the algorithm requires instead of letting it fault.
#pragma once

#include <mutex>

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "solutions/cuda/cublaslt_descriptors.hpp"
#include "solutions/cuda/cuda_types.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::cuda {

class LtMatmul {
 public:
  // Requires cuda_unsupported_reason(problem) to be empty.
  explicit LtMatmul(const Problem& problem);

  const Problem& problem() const { return problem_; }
  const GemmTypes& types() const { return types_; }

  struct HeuristicQuery {
    int count = 1;
    std::size_t max_workspace_bytes = 32u << 20;
    // Only reduction schemes in this mask (cublasLtReductionScheme_t bits); all by default.
    std::optional<std::uint32_t> reduction_mask;
    // Only configurations of this algorithm id (CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID).
    std::optional<int> algo_id;
  };
  // Up to `count` algorithms the heuristic proposes, best first. When it proposes none, `why`
  // (if given) receives the heuristic's status.
  std::vector<cublasLtMatmulHeuristicResult_t> heuristic(const HeuristicQuery& query,
                                                         std::string* why = nullptr) const;

  // cublasLtMatmulAlgoCheck; on success `workspace_bytes` receives what the algorithm needs.
  cublasStatus_t check(const cublasLtMatmulAlgo_t& algo, std::size_t* workspace_bytes) const;

  // The alignments (bytes) an algorithm needs of A, B, C and D, from its capabilities. Read once
  // per solution: four capability queries on every call were most of what a tuned cuBLASLt
  // GEMM cost over a bare cublasLtMatmul on the host.
  struct Alignments {
    std::uint32_t a = 1, b = 1, c = 1, d = 1;
  };
  static Alignments required_alignments(const cublasLtMatmulAlgo_t& algo);

  // Enqueues D = alpha·op(A)·op(B) + beta·C (+ bias) with `algo` on `stream`, refusing operands
  // less aligned than `need` (required_alignments(algo)). Safe to call from several threads: the
  // bias and scale pointers live in the shared descriptor, so setting them and enqueueing the
  // call that reads them happen under one lock.
  RunStatus run(const cublasLtMatmulAlgo_t& algo, std::size_t algo_workspace_bytes,
                const Alignments& need, const Operands& operands, cudaStream_t stream);

 private:
  Problem problem_;
  GemmTypes types_;
  MatmulDesc desc_;
  MatrixLayout a_, b_, c_, d_;
  std::unique_ptr<std::mutex> descriptor_pointers_ = std::make_unique<std::mutex>();
};

}  // namespace gemmtune::cuda

// The "cublas" provider and its one solution, `Default`: the library's default call and the
// numerical reference.
//
//   Gemm, GemmStridedBatched   cublasGemmEx / cublasGemmStridedBatchedEx with CUBLAS_GEMM_DEFAULT
//   GemmAndBias, ScaledGemm    cuBLASLt's heuristic #0 with the bias epilogue / fp8 scales
//
// as PyTorch TunableOp's Default does; GemmAndBias's and ScaledGemm's Default also run operands
// that algorithm turns down (default_with_fallback.hpp).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "tuner/solution.hpp"

namespace gemmtune::cuda {

// Workspace offered to cuBLASLt's Default (the same as the search's default limit).
inline constexpr std::size_t kDefaultLtWorkspaceBytes = SearchOptions{}.max_workspace_bytes;

// GemmAndBias and ScaledGemm ask cuBLASLt's heuristic for algorithms within max_workspace_bytes.
std::unique_ptr<Solution> make_default_solution(
    const Problem& problem, std::size_t max_workspace_bytes = kDefaultLtWorkspaceBytes);

class CublasProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "cublas"; }
  std::string_view backend() const override { return "cuda"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& problem,
                                                   const SearchOptions& options) override;
  std::unique_ptr<Solution> from_name(const Problem& problem, std::string_view name) override;
  std::unique_ptr<Solution> reference(const Problem& problem,
                                      const SearchOptions& options) override;
};

}  // namespace gemmtune::cuda

// The "cublaslt" provider: every candidate of the cuBLASLt search space (cublaslt_search.hpp)
// for a problem, named in PyTorch's Gemm_Cublaslt_... format, and the algorithm a stored name
// denotes, rebuilt from its configuration and checked again on this device.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "solutions/cuda/cublaslt_search.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::cuda {

// The search limits a gemmtune::SearchOptions stands for.
LtSearchLimits search_limits(const SearchOptions& options);

class CublasLtProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "cublaslt"; }
  std::string_view backend() const override { return "cuda"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& problem,
                                                   const SearchOptions& options) override;
  // nullptr for names not in the Gemm_Cublaslt_ format; otherwise a solution, unsupported with
  // the reason when the configuration no longer builds or checks for this problem and device.
  std::unique_ptr<Solution> from_name(const Problem& problem, std::string_view name) override;
};

}  // namespace gemmtune::cuda

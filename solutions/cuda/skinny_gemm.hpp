// The "gemmtune_cuda" provider: gemmtune's own CUDA kernels, today the skinny "tn" kernel of
// skinny_gemm_kernel.hpp in each compiled configuration, named
//
//   Gemmtune_Skinny_rows_<rows>_threads_<threads>
//
// It offers candidates only where the kernel applies (Gemm or GemmStridedBatched, transa = T,
// transb = N, bf16/fp16/fp32 in and out, n ≤ 16), so that other problems' reports do not fill
// with inapplicable entries; a stored name on a problem it does not fit rebuilds as unsupported,
// with the reason, and the lookup falls back to Default. PyTorch does not know these names:
// `gemmtune db convert --for-pytorch` leaves them out, and `--providers cublas,cublaslt` keeps a
// tuning to what PyTorch can run.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "solutions/cuda/skinny_gemm_kernel.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::cuda {

std::string skinny_solution_name(SkinnyConfig config);
// The configuration a name denotes, or none when it is not a skinny kernel's name.
std::optional<SkinnyConfig> parse_skinny_solution_name(std::string_view name);
// Why the skinny kernel cannot run the problem, or nothing when it can.
std::optional<std::string> skinny_unsupported_reason(const Problem& problem);

class GemmtuneCudaProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "gemmtune_cuda"; }
  std::string_view backend() const override { return "cuda"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& problem,
                                                   const SearchOptions& options) override;
  std::unique_ptr<Solution> from_name(const Problem& problem, std::string_view name) override;
};

}  // namespace gemmtune::cuda

// The "gemmtune_cuda" provider: gemmtune's own CUDA kernels for skinny "tn" GEMMs (the linear
// layers of LLM decoding), in each compiled configuration:
//
//   Gemmtune_Skinny_rows_<rows>_threads_<threads>     CUDA cores, n ≤ 16, bf16/fp16/fp32
//                                                      (skinny_gemm_kernel.hpp)
//   Gemmtune_SkinnyTc_mtiles_<tiles>_warps_<warps>     tensor cores, n ≤ 64, bf16/fp16
//                                                      (skinny_tc_kernel.hpp)
//   Gemmtune_SkinnyBulk_mtiles_<tiles>_warps_<warps>_kboxes_<boxes>_stages_<stages>
//                                                      tensor cores fed by the TMA unit, n ≤ 64,
//                                                      bf16/fp16, compute capability ≥ 9.0
//                                                      (skinny_bulk_kernel.hpp)
//   Gemmtune_SkinnyWgmma_mtiles_<tiles>_groups_<groups>_kboxes_<boxes>_stages_<stages>
//                                                      the same pipeline multiplied by wgmma,
//                                                      n ≤ 64, bf16/fp16, compute capability 9.0
//                                                      (skinny_wgmma_kernel.hpp)
//
// The two TMA kernels' names may end in `_prefetch_late`: the same configuration with the late
// prefetch of A (SkinnyPrefetch, skinny_bulk_kernel.hpp); each configuration is offered with both.
//
// All run Gemm and GemmStridedBatched with transa = T, transb = N. The provider offers only the
// candidates that fit a problem, so that other problems' reports do not fill with inapplicable
// entries; a stored name on a problem it does not fit rebuilds as unsupported, with the reason,
// and the lookup falls back to Default. PyTorch does not know these names: `gemmtune db convert
// --for-pytorch` leaves them out, and `--providers cublas,cublaslt` keeps a tuning to what
// PyTorch can run.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "solutions/cuda/skinny_bulk_kernel.hpp"
#include "solutions/cuda/skinny_gemm_kernel.hpp"
#include "solutions/cuda/skinny_tc_kernel.hpp"
#include "solutions/cuda/skinny_wgmma_kernel.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::cuda {

using SkinnyKernelConfig =
    std::variant<SkinnyConfig, SkinnyTcConfig, SkinnyBulkConfig, SkinnyWgmmaConfig>;

std::string skinny_solution_name(const SkinnyKernelConfig& config);
// The configuration a name denotes, or none when it is not one of these kernels' names.
std::optional<SkinnyKernelConfig> parse_skinny_solution_name(std::string_view name);
// Why the kernel cannot run the problem, or nothing when it can (the device aside: see
// skinny_device_unsupported_reason).
std::optional<std::string> skinny_unsupported_reason(const Problem& problem,
                                                     const SkinnyKernelConfig& config);

// Why the current device cannot run the kernel at n columns (the bulk-copy kernel needs compute
// capability 9.0 or later, the warpgroup kernel 9.0 exactly, and each its shared memory per
// block), or nothing when it can.
std::optional<std::string> skinny_device_unsupported_reason(const SkinnyKernelConfig& config,
                                                            int n);

class GemmtuneCudaProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "gemmtune_cuda"; }
  std::string_view backend() const override { return "cuda"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& problem,
                                                   const SearchOptions& options) override;
  std::unique_ptr<Solution> from_name(const Problem& problem, std::string_view name) override;
};

}  // namespace gemmtune::cuda

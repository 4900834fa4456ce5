#include "solutions/cuda/cublaslt_provider.hpp"

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include <variant>

#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "solutions/cuda/cublaslt_rebuild.hpp"
#include "solutions/cuda/cublaslt_solution.hpp"
#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {

LtSearchLimits search_limits(const SearchOptions& options) {
  LtSearchLimits limits;
  limits.max_workspace_bytes = options.max_workspace_bytes;
  limits.exhaustive = options.space == SearchSpace::Exhaustive;
  // The current device's, which the matmul runs on. Not known (0) where the query fails: then
  // every split-K variant is offered, as before the SM count decided.
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&limits.sm_count, cudaDevAttrMultiProcessorCount, device) !=
          cudaSuccess) {
    limits.sm_count = 0;
  }
  return limits;
}

std::vector<std::unique_ptr<Solution>> CublasLtProvider::enumerate(const Problem& problem,
                                                                   const SearchOptions& options) {
  std::vector<std::unique_ptr<Solution>> out;
  if (cuda_unsupported_reason(problem)) return out;  // Default carries the reason
  auto matmul = std::make_shared<LtMatmul>(problem);
  for (const LtCandidate& c : search_algorithms(*matmul, search_limits(options))) {
    out.push_back(
        std::make_unique<LtSolution>(algo_name(c.config), matmul, c.algo, c.workspace_bytes));
  }
  return out;
}

std::unique_ptr<Solution> CublasLtProvider::from_name(const Problem& problem,
                                                      std::string_view name) {
  const auto config = parse_algo_name(name);
  if (!config) return nullptr;
  std::string stored(name);
  if (auto why = cuda_unsupported_reason(problem)) {
    return std::make_unique<LtSolution>(stored, problem, *why);
  }
  const std::string where =
      fmt::format("{},{}", problem.op_signature(), problem.params_signature());
  auto matmul = std::make_shared<LtMatmul>(problem);
  AlgoRebuilder rebuilder(*matmul);
  auto built = rebuilder.build(*config);
  if (auto* why = std::get_if<std::string>(&built)) {
    return std::make_unique<LtSolution>(
        stored, problem, fmt::format("{} cannot be rebuilt for {}: {}", stored, where, *why));
  }
  const auto& algo = std::get<cublasLtMatmulAlgo_t>(built);
  std::size_t workspace = 0;
  if (const cublasStatus_t status = matmul->check(algo, &workspace);
      status != CUBLAS_STATUS_SUCCESS) {
    return std::make_unique<LtSolution>(
        stored, problem,
        fmt::format("{} no longer passes cublasLtMatmulAlgoCheck for {}: {}", stored, where,
                    describe(status)));
  }
  return std::make_unique<LtSolution>(stored, std::move(matmul), algo, workspace);
}

}  // namespace gemmtune::cuda

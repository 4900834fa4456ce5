#include "solutions/cuda/cublaslt_heuristic_top.hpp"

#include "solutions/cuda/cublaslt_algo_config.hpp"
#include "solutions/cuda/cublaslt_matmul.hpp"
#include "solutions/cuda/cublaslt_solution.hpp"
#include "solutions/cuda/cuda_types.hpp"

namespace gemmtune::cuda {

std::vector<std::unique_ptr<Solution>> heuristic_top(const Problem& problem, int count,
                                                     std::size_t max_workspace_bytes) {
  std::vector<std::unique_ptr<Solution>> out;
  if (count <= 0 || cuda_unsupported_reason(problem)) return out;
  auto matmul = std::make_shared<LtMatmul>(problem);
  LtMatmul::HeuristicQuery best_fit;
  best_fit.count = count;
  best_fit.max_workspace_bytes = max_workspace_bytes;
  for (const auto& proposal : matmul->heuristic(best_fit)) {
    out.push_back(std::make_unique<LtSolution>(algo_name(read_config(proposal.algo)), matmul,
                                               proposal.algo, proposal.workspaceSize));
  }
  return out;
}

}  // namespace gemmtune::cuda

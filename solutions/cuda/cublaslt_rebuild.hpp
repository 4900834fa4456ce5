// AlgoRebuilder: the one way a configuration becomes a cuBLASLt algorithm, used by the search
// and by from_name alike, so that a name rebuilds exactly the bytes that were timed.
//
// An algorithm may carry state beyond its configuration attributes. So where the heuristic,
// limited to the configuration's id (CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID, 32 MiB workspace
// preference, whatever the search's limit, up to kRebuildProposals proposals), proposes exactly
// this configuration, its algorithm is taken unchanged. Otherwise the base is its first proposal
// for the id, or a fresh cublasLtMatmulAlgoInit when it proposes none, and every configuration
// attribute is set from the configuration.
#pragma once

#include <cublasLt.h>

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "solutions/cuda/cublaslt_matmul.hpp"

namespace gemmtune::cuda {

class AlgoRebuilder {
 public:
  explicit AlgoRebuilder(const LtMatmul& matmul) : matmul_(matmul) {}

  std::variant<cublasLtMatmulAlgo_t, std::string> build(const AlgoConfig& config);

  // What the heuristic proposes when limited to `id` (cached).
  const std::vector<cublasLtMatmulHeuristicResult_t>& proposals_for_id(int id);

 private:
  const LtMatmul& matmul_;
  std::map<int, std::vector<cublasLtMatmulHeuristicResult_t>> by_id_;
};

// Workspace preference of the per-id queries that choose bases.
inline constexpr std::size_t kRebuildWorkspaceBytes = std::size_t{32} << 20;
// Proposals asked for per id: enough to hold the heuristic's own algorithms for that id that the
// search offers as candidates.
inline constexpr int kRebuildProposals = 64;

}  // namespace gemmtune::cuda

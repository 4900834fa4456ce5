// AlgoRebuilder: the one way a configuration becomes a cuBLASLt algorithm, used by the search
// and by from_name alike, so that a name rebuilds exactly the bytes that were timed.
//
// An algorithm may carry state beyond its configuration attributes. So the base is the
// heuristic's own algorithm for the configuration's id — its first proposal when limited to that
// id (CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID, 32 MiB workspace preference, whatever the search's
// limit) — or a fresh cublasLtMatmulAlgoInit when it proposes none; then every configuration
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

}  // namespace gemmtune::cuda

// The cuBLASLt search space for one problem.
//
//   heuristic   every algorithm cublasLtMatmulAlgoGetHeuristic proposes (up to 128, not 8),
//   + variants  of each: split-K counts × the reduction schemes its capabilities allow, and CTA
//               swizzling toggled where supported,
//   exhaustive  every id of cublasLtMatmulAlgoGetIds × tiles × stages × custom options × inner
//               shapes seen × cluster shapes × split-K × reduction × swizzle, bounded by a budget
//               of cublasLtMatmulAlgoCheck calls.
//
// Every candidate is rebuilt from its configuration (as `from_name` will rebuild it later), passes
// cublasLtMatmulAlgoCheck, needs no more workspace than allowed, and appears once.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <vector>

#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "solutions/cuda/cublaslt_matmul.hpp"

namespace gemmtune::cuda {

struct LtCandidate {
  AlgoConfig config;
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace_bytes = 0;
};

struct LtSearchLimits {
  int heuristic_count = 128;
  bool variants = true;
  bool exhaustive = false;
  std::size_t max_workspace_bytes = 32u << 20;
  long max_checks = 100000;  // exhaustive only
};

// What a search did, for tests and reports.
struct LtSearchStats {
  int heuristic_returned = 0;
  int heuristic_offered = 0;      // distinct heuristic configurations that rebuild and check
  int heuristic_not_rebuilt = 0;  // proposals whose configuration failed to rebuild or check
  int rebuilt_differs = 0;        // rebuilt algorithms whose bytes differ from the proposal
  int variants_offered = 0;
  int exhaustive_offered = 0;
  long checks = 0;
  bool truncated = false;  // the exhaustive search reached max_checks
};

// Candidates in this order: the heuristic's (its rank kept), their variants, the exhaustive rest.
std::vector<LtCandidate> search_algorithms(const LtMatmul& matmul, const LtSearchLimits& limits,
                                           LtSearchStats* stats = nullptr);

}  // namespace gemmtune::cuda

// The cuBLASLt search space for one problem.
//
//   heuristic   every algorithm cublasLtMatmulAlgoGetHeuristic proposes: its best fit (it stops at
//               about 8 on Hopper however many are asked for), its best fit within each reduction
//               scheme, and its proposals limited to each algorithm id of cublasLtMatmulAlgoGetIds,
//   + variants  of each: split-K counts × the reduction schemes its capabilities allow (where the
//               output leaves SMs idle: split_variants_pay), and CTA swizzling toggled where
//               supported,
//   exhaustive  every id of cublasLtMatmulAlgoGetIds × tiles × stages × custom options × inner
//               shapes seen × cluster shapes × split-K × reduction × swizzle, bounded by a budget
//               of cublasLtMatmulAlgoCheck calls shared evenly among the ids (a check costs
//               about 1 µs on an H200).
//
// Every candidate is rebuilt from its configuration by AlgoRebuilder (as `from_name` rebuilds it
// later), passes
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
  int heuristic_count = 128;  // best-fit proposals asked for
  int per_id_count = 16;      // proposals asked for per algorithm id
  bool variants = true;
  bool exhaustive = false;
  std::size_t max_workspace_bytes = 32u << 20;
  long max_checks = 1000000;  // exhaustive only
  // The device's SM count, which decides whether split-K variants are offered
  // (split_variants_pay); 0 = not known, and they are.
  int sm_count = 0;
};

// Whether split-K variants of the heuristic's proposals are worth screening for `problem` on a
// device of `sm_count` SMs: only where C holds fewer than two waves of 128 × 128 tiles. A split
// buys parallelism along k with extra reduction traffic, which pays only where the output's tiles
// alone leave SMs idle. On the LLM benchmark's 44 prefill and backward GEMMs (an H100,
// 2026-11-28, bench/results/2026-11-28-h100-split-variants.md) the fastest of each one's 100
// split-K candidates took 1.38-1.96x Default's time, screening dropped every one, and they took
// 77% of the device time spent on the candidates it dropped. The heuristic's own split-K
// proposals are offered wherever it makes them, and the exhaustive search offers every split.
bool split_variants_pay(const Problem& problem, int sm_count);

// What a search did, for tests and reports.
struct LtSearchStats {
  int heuristic_returned = 0;     // proposals of every query, duplicates included
  int best_fit_returned = 0;      // proposals of the plain best-fit query
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

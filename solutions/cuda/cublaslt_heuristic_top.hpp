// The cuBLASLt heuristic's own ranking, as PyTorch TunableOp (2.14) searches it: the first
// `count` proposals of the plain best-fit query (cublasLtMatmulAlgoGetHeuristic with only a
// workspace preference: no reduction mask, no algorithm-id limit), best first, each a Solution
// that runs the proposed algorithm exactly as the heuristic returned it (not rebuilt from its
// configuration). Rank 0 is what cuBLASLt itself would pick ("heuristic #0").
//
// It exists so that gemmtune's winners can be compared with those baselines under identical
// conditions (bench/llm); the cublaslt provider's search already includes these proposals.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "solutions/cuda/cublas_default.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::cuda {

// Empty when the problem cannot run on CUDA or the heuristic proposes nothing. Names follow
// algo_name(); a name repeated by a later rank is kept (the ranks are distinct algorithms to the
// heuristic even when their configuration attributes agree).
std::vector<std::unique_ptr<Solution>> heuristic_top(
    const Problem& problem, int count, std::size_t max_workspace_bytes = kDefaultLtWorkspaceBytes);

}  // namespace gemmtune::cuda

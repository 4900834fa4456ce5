// Resolving a stored solution name (a results-file entry) to a solution that runs the problem
// on this backend: the one the name denotes when a provider knows it and it supports the problem
// here; otherwise `Default`, with a warning that names the problem and says why. A results file
// measured on another device, or a library update, must degrade to Default, never fail a GEMM.
// `Default` is rebuilt as a tuning under `limits` measured it (Registry::reference): where it is a
// cuBLASLt heuristic's pick (GemmAndBias, ScaledGemm), the pick depends on the workspace limit, so
// a caller passes the limit it tunes and runs under.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tuner/registry.hpp"

namespace gemmtune {

struct ResolvedSolution {
  std::unique_ptr<Solution> solution;  // null only when not even Default supports the problem
  bool fell_back = false;
  std::string warning;  // why it fell back, naming the problem
};

ResolvedSolution resolve_solution(const Registry& registry, std::string_view backend,
                                  const Problem& problem, std::string_view name,
                                  const SearchOptions& limits);

}  // namespace gemmtune

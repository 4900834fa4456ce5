// Solutions of one GEMM timed in interleaved turns, each turn right after an untimed lead-in of
// the same solution, so that each is timed in the power state it sets itself rather than the one
// the solution before it left. A diagnostic of the step benchmark: at an H100's power limit it
// ranks cuBLASLt configurations unlike 8 ms turns without a lead-in (id66 t20 c1 cl3 on the 8B
// qkv dgrad GEMM: 1.021x of Default there, 0.918x here), yet training steps with each GEMM's
// fastest here were no faster than with gemmtune's winners
// (bench/results/2026-11-28-h100-step-replay.md).
#pragma once

#include <string>
#include <vector>

#include "bench/llm/baselines.hpp"
#include "tuner/backend.hpp"
#include "tuner/problem.hpp"
#include "tuner/registry.hpp"
#include "tuner/timing_policy.hpp"

namespace gemmtune::bench {

struct SustainedOptions {
  double lead_in_ms = 30;
  int rounds = 8;
  PhaseCaps caps{20, 8.0};  // per turn, after the lead-in
  double memory_fraction = 0.5;
  std::uint64_t seed = 42;
};

// One Timed per name, in order ("Default" or a name the registry rebuilds); a name that cannot be
// rebuilt or run has its error and no time.
std::vector<Timed> sustained_times(Backend& backend, const Registry& registry,
                                   const Problem& problem, const std::vector<std::string>& names,
                                   const SustainedOptions& options);

}  // namespace gemmtune::bench

// Step replay: the GEMMs of a training step run in their order, back to back on one stream, with
// each GEMM's solution taken from a policy (Default everywhere, cuBLASLt's heuristic #0, the best
// of its top 8, gemmtune's winners), the policies in interleaved turns.
//
// Why: the LLM benchmark times each GEMM's solutions in turns of 8 ms of that GEMM alone, so a
// solution's turn starts in the power state the solution before it left, and which cuBLASLt
// configuration comes out faster at the power limit changed with the turns' shape (after a 30 ms
// lead-in of itself, one that was 1.021-1.025x of Default in 8 ms turns came out 0.918x:
// bench/results/2026-11-28-h100-step-replay.md). In a training step a GEMM runs once, between the
// step's other GEMMs; here each one is timed there, under the power its neighbours draw, and the
// whole step's time is what a policy is judged by.
//
// A turn is one untimed step (a step follows a step of the same policy in a training loop) and
// then `steps_per_turn` timed steps, with a CUDA event before every GEMM and after the last;
// with gap_ms > 0 the device idles that long after every turn (the state of a program that
// leaves it idle between steps). Every slot of the step has its own operands (random, as the
// tuner fills them): a step's working set is many times the L2, so no rotation is needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/llm/baselines.hpp"
#include "bench/llm/training_step.hpp"
#include "tuner/backend.hpp"
#include "tuner/registry.hpp"

namespace gemmtune::bench {

// One solution name per distinct GEMM ("Default" or a name the registry rebuilds).
struct StepPolicy {
  std::string label;
  std::vector<std::string> names;
};

struct StepReplayOptions {
  int rounds = 20;
  int steps_per_turn = 4;
  double gap_ms = 0;  // idle after every turn
  std::uint64_t seed = 42;
};

struct PolicyTimes {
  Timed step;                // one sample per timed step; one round median per turn
  std::vector<Timed> gemms;  // per distinct GEMM: its positions' times summed, per step
};

// One PolicyTimes per policy, in the policies' order. Throws where a solution cannot be rebuilt,
// does not support its GEMM or fails to run (naming it and the GEMM), or the operands do not fit.
std::vector<PolicyTimes> replay_steps(Backend& backend, const Registry& registry,
                                      const TrainingStep& step,
                                      const std::vector<StepPolicy>& policies,
                                      const StepReplayOptions& options);

}  // namespace gemmtune::bench

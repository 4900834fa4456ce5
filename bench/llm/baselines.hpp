// The fair re-measurement after tuning: Default, cuBLASLt's heuristic #0, the best of the
// heuristic's top N (what PyTorch TunableOp 2.14 searches) and gemmtune's winner rebuilt from its
// name, all timed under identical conditions.
//
// One OperandSets (rotation of at least twice the L2, as the tuner plans it) and one Profiler,
// timing as the tuner does by default (TimingMode::Queued: device time), serve every solution.
// After a warmup, every solution is timed in `rounds` short interleaved rounds (the sweep), the
// order reversed every other round, so that clock and power drift falls on all of them alike;
// each solution's samples of all rounds are pooled and its median taken. The sweep chooses the
// best of the top N. Then Default, heuristic #0, that best and the winner are timed again in
// `rounds` fresh interleaved rounds (the evaluation), and the comparisons use these: the fastest
// of N medians read from the very rounds that chose it is biased low (the winner's curse), which
// would credit PyTorch's search with a time its choice does not have. The noise of a comparison
// comes from the per-round ratios of the two (paired, so common drift cancels).
//
// Every problem gets one more evaluation, with clock headroom: Default, the best of the top N and
// the winner in interleaved rounds with idle time after every turn (see
// RemeasureOptions::headroom_gap_ms).
//
// For GEMMs under `small_below_ms`, the evaluation's solutions are timed three more ways, in
// interleaved rounds of their own: back to back without per-iteration events (the burst time,
// Profiler::run_burst: what a program running its GEMMs one after another sees), replayed from a
// CUDA graph (Backend::capture_runs: what a program that captures its decode step into a graph
// sees), and with each iteration run as issued (TimingMode::Immediate: the host's launch
// time is in the samples where it exceeds the device's, as in an eager program). A diagnostic also
// rides along: the host time of one numerical check as the tuner makes it (run into the check C,
// compare with Default's output; on the device where the backend compares there, as CUDA's does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuner/backend.hpp"
#include "tuner/problem.hpp"
#include "tuner/registry.hpp"
#include "tuner/rotation.hpp"
#include "tuner/timing_policy.hpp"

namespace gemmtune::bench {

struct RemeasureOptions {
  int rounds = 10;
  PhaseCaps caps{20, 8.0};  // per solution per round
  PhaseCaps warmup{3, 0.0};
  int top = 8;  // the heuristic's proposals measured
  double memory_fraction = 0.5;
  double small_below_ms = 0.2;  // burst, graph and immediate times where Default takes less than
                                // this (every decode problem of the set)
  std::uint64_t seed = 42;
  // Default, the best of the top N and the winner again in `rounds` interleaved rounds with this
  // much idle time after every turn (0 = off). The sweep and the evaluation keep the device busy
  // for a second or more and run it at its power limit, where an H100's SM clock falls to 1.3-1.9
  // GHz (1.57 on average over the prefill and backward GEMMs); with the gaps it stays at 1.83-1.93
  // GHz, as in a program that leaves the device idle between GEMMs. Which of two cuBLASLt
  // configurations is the faster differs between the two states by up to 14%
  // (bench/results/2026-11-28-h100-headroom.md).
  double headroom_gap_ms = 20;
  // Before every timed turn of the sweep and the evaluation, the same solution runs this long,
  // untimed (0 = none), so that its turn is timed in the power state it sets itself rather than
  // the one the solution before it left behind (see bench/results/2026-11-28-h100-step-replay.md).
  double lead_in_ms = 0;
  // Right after the evaluation, its solutions again in as many rounds three more times: on the
  // same operands, on a second allocation of them (the same values at other addresses) and on a
  // third (other values too), so that what the operands' placement and values do to the
  // comparisons can be told from what time alone does (off by default).
  bool placement_probe = false;
};

struct Timed {
  std::string name;
  std::vector<double> samples_ms;     // every round's, pooled
  std::vector<double> round_medians;  // one per round
  double median_ms = 0;
  double burst_ms = 0;      // median of the bursts' time per iteration; 0 when not taken
  double graph_ms = 0;      // median of the graph replays' time per iteration; 0 when not taken
  double immediate_ms = 0;  // median under TimingMode::Immediate; 0 when not taken
  std::string error;        // why it has no time

  bool ok() const { return error.empty() && median_ms > 0; }
  // Relative standard error of its pooled median (1.2533·1.4826·MAD/√n over the median).
  double relative_standard_error() const;
};

struct Baselines {
  // The evaluation's times.
  Timed default_solution;
  Timed heuristic0;  // rank 0 of the best-fit query
  Timed top_best;    // the fastest of ranks 0…top-1 in the sweep
  Timed winner;      // rebuilt from the tuner's winner name (Default's timing when Default won)
  // The sweep's times: every rank the heuristic proposed (≤ RemeasureOptions::top), and the best
  // of them and the winner as the sweep timed them (the former biased low, see above).
  std::vector<Timed> top;
  Timed top_best_sweep;
  Timed winner_sweep;
  // With clock headroom (RemeasureOptions::headroom_gap_ms): Default, the best of the top N and
  // the winner (Default's timing where Default won); no times where headroom_gap_ms is 0.
  Timed default_headroom;
  Timed top_best_headroom;
  Timed winner_headroom;
  double headroom_started_s = 0;  // seconds after remeasure() began; 0 where not taken
  // RemeasureOptions::placement_probe: the evaluation's solutions, in its order, per probe.
  struct Probe {
    std::string what;
    std::vector<Timed> timed;
  };
  std::vector<Probe> placement_probes;
  RotationPlan rotation;
  double check_s = 0;  // host time of one numerical check of this problem's output
  std::string burst_error;
  std::string graph_error;
  std::string immediate_error;
  std::string error;  // the problem could not be measured at all

  // The relative noise of the comparison of `a` with `b`: two standard errors of the mean of
  // their per-round log ratios, or of their pooled medians' difference, whichever is larger.
  static double noise(const Timed& a, const Timed& b);
};

Baselines remeasure(Backend& backend, const Registry& registry, const Problem& problem,
                    const std::string& winner, const RemeasureOptions& options);

}  // namespace gemmtune::bench

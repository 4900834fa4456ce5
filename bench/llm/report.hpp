// The benchmark's record of one problem (tuning + re-measurement), the derived comparisons, and
// the markdown report: header (device, versions, date, command, conditions), one table row per
// problem, and the summary against issue 4's targets.
#pragma once

#include <string>
#include <vector>

#include "bench/llm/baselines.hpp"
#include "bench/llm/device_state.hpp"
#include "bench/llm/shapes.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune::bench {

struct BenchRow {
  LlmShape shape;
  TuningReport tuning;
  Baselines baselines;
  std::string error;  // tuning or re-measurement failed; the row has no times
  // The GPU while the tuner measured its finalists and while the benchmark measured again (no
  // samples where the monitor is off).
  DeviceState tuner_state;
  DeviceState bench_state;     // the sweep and the evaluation
  DeviceState headroom_state;  // the evaluation with clock headroom, where taken

  bool ok() const;
  // Default's median over the others' (higher is better).
  double winner_speedup() const;
  double top_speedup() const;
  double heuristic0_speedup() const;
  // The winner's median over the best of the top N (above 1: the winner is slower).
  double winner_over_top() const;
  // The relative noise of the row's comparisons (winner vs Default and vs the best of the top N).
  double noise() const;
  // The winner is slower than the best of the top N by more than the noise.
  bool slower_than_top() const;
  // The same on the sweep's times, where the best of the top N is the fastest of N medians of the
  // rounds that chose it (biased low): the comparison the benchmark made before it had an
  // evaluation, kept beside it so that runs compare with the earlier ones.
  bool slower_than_top_in_sweep() const;
  // With clock headroom (Baselines::*_headroom), where taken: whether it was, Default's median over
  // the winner's and over the best of the top N's, and the winner slower than that best by more
  // than the noise.
  bool has_headroom() const;
  double winner_speedup_with_headroom() const;
  double top_speedup_with_headroom() const;
  bool slower_than_top_with_headroom() const;
  // Slower than the best of the top N beyond noise at the power limit and, where measured, with
  // headroom too: a configuration faster at the limit alone is no better choice for a program
  // whose device state is unknown.
  bool slower_than_top_in_both_states() const;
  // The tuner's numerical checks (reference and candidates) × the host time of one: an estimate
  // of the part of the tuning time spent checking.
  double estimated_check_s() const;
};

struct ReportHeader {
  std::string device;    // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, L2 50.0 MiB, 79.2 GiB)"
  std::string versions;  // "KEY=VALUE, ..."
  std::string date;      // UTC
  std::string command;
  std::string conditions;  // markdown list items, one per line
};

// `not_run` lists the shapes a time budget left out; `finished` is false while the run goes on.
std::string render_markdown(const ReportHeader& header, const std::vector<BenchRow>& rows,
                            const std::vector<LlmShape>& not_run, bool finished);

// "Default", or the configuration in short: "id66 t20 s12 k4/r2 sw1 c1 i2 cl3", fields at their
// defaults left out.
std::string short_solution_name(const std::string& name);

}  // namespace gemmtune::bench

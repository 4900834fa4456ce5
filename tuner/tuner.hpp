// Tuner: tunes one problem on one backend with the solutions the registry offers for it.
//
//   enumerate → drop unsupported (reason kept) → warm up and screen each (a few capped
//   iterations; Default first, and one far slower than it on its first sample, or past the keep
//   bar on the median of its first three, stops there, see screening_stops) → numerical check
//   against Default, fastest screening median first, dropping as ScreenedOut what is slower than
//   keep_factor × the best *correct* screening median → measure the survivors under the caps →
//   confirm: measure the fastest few and Default again, in fresh rounds → pick the lowest median of
//   the confirmation (a lead under min_gain first gets a trial in long turns, see trial_min_gain) →
//   where Default is short, check that pick back to back and from a graph
//   (TimingPolicy::burst_check_below_ms).
//
// Default is required (it is the numerical reference and the baseline), is never screened out and
// is always measured. A candidate beats Default only when its median is lower by at least
// min_gain and by more than the measured noise (default_margin_sigmas standard errors of the
// difference of the two medians, see beats_default, or of the mean per-round log ratio, see
// beats_default_paired); otherwise Default wins. So a winner is never slower than Default, and two
// runs on one machine agree up to candidates whose times agree within noise.
//
// Every candidate ends with a Disposition, a reason where it did not compete, and the statistics
// of the last phase it ran. Expected failures (unsupported, throwing or failing or wrong
// candidates) are recorded and the sweep goes on; a problem that cannot be tuned at all (invalid,
// no Default, operands that do not fit) returns a report whose `error` says why. The tuner knows
// no concrete backend or solution.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "tuner/backend.hpp"
#include "tuner/noise_tests.hpp"
#include "tuner/numerical_check.hpp"
#include "tuner/problem.hpp"
#include "tuner/registry.hpp"
#include "tuner/result.hpp"
#include "tuner/rotation.hpp"
#include "tuner/solution.hpp"
#include "tuner/statistics.hpp"
#include "tuner/timing_policy.hpp"

namespace gemmtune {

struct TunerOptions {
  TimingPolicy timing;
  NumericalCheckOptions check;
  SearchOptions search;
  std::uint64_t seed = 42;
  // The GEMM's scalars. TunableOp tunes offline with alpha = 1, beta = 0; beta ≠ 0 makes C an
  // input (random instead of poisoned).
  double alpha = 1.0;
  double beta = 0.0;
  // How many standard errors of the median difference (or of the paired per-round log ratio) a
  // candidate must beat Default by; 0 picks the lowest median outright.
  double default_margin_sigmas = 2.0;
  // The least fraction by which a candidate's median must undercut Default's to replace it. The
  // noise within one tuning is not all there is: on an H200, clock and power states move a GEMM's
  // time by 1-3% between a tuning and a later measurement, and candidates the tuner had measured
  // less than 1.5% ahead of Default were 0.2% ahead on average when measured again, and up to 3.8%
  // behind (32 verdicts over four runs of the LLM benchmark: bench/results/2026-11-22-h200-min-
  // gain.md). On a GEMM a trial fits, a lead under twice this goes to the trial too (see
  // tuning_run_selection.cpp). 0 lets any gain beyond the noise through.
  double min_gain = 0.015;
  // A lead over Default that does not replace it on the confirmation (under min_gain, or within
  // the confirmation's noise) gets a trial: the candidate and Default measured again in long turns
  // (TimingPolicy::trial_turn_ms), and it replaces Default if it keeps a lead of at least this
  // fraction there, beyond the noise, and is ahead in every turn (or twice this fraction, whatever
  // its turns: kTrialAnyTurnsGainTimes). Real leads of about 1% were
  // turned down run after run by min_gain alone (the LLM benchmark's 1B qkv wgrad GEMM on H100s,
  // bench/results/2026-11-27-h100-small-leads.md); the long turns are there to show up the kernels
  // whose lead holds only in short ones (see trial_turn_ms). Measured: bench/results/2026-11-27-
  // h100-trial.md. 0 = no trial.
  double trial_min_gain = 0.005;
  // Fraction of Backend::available_memory_bytes() the rotating operand sets may take.
  double memory_fraction = 0.5;
};

// Where a tuning's time went: the wall time of one of its phases.
struct PhaseTime {
  std::string phase;  // enumerate, operands, screen, check, measure, confirm, trial, burst, select
  double seconds = 0;
};

struct TuningReport {
  Problem problem;
  std::string winner;
  Statistics winner_stats;
  Statistics default_stats;
  std::vector<CandidateReport> candidates;
  // Non-empty when the problem could not be tuned at all (invalid, Default unsupported or failing,
  // operands too large for memory, a lost device).
  std::string error;
  bool fatal = false;             // the device is unusable (DeviceError): stop tuning on it
  RotationPlan rotation;          // the measurement conditions
  double elapsed_s = 0;           // wall time of the whole tuning of this problem
  std::vector<PhaseTime> phases;  // the phases that ran, in order (their sum ≈ elapsed_s)

  bool ok() const { return error.empty() && !winner.empty(); }
  // Default's median over the winner's (1 when Default won; 0 without both).
  double speedup_over_default() const;
};

// "enumerate 0.12 s, operands 0.01 s, ..." for a report's phases.
std::string describe_phases(const TuningReport& report);

// Called as each candidate's disposition becomes known: the measured ones (Default included) once
// the winner is chosen, as Winner or Slower.
using TuningProgress = std::function<void(const CandidateReport&, int done, int total)>;

class Tuner {
 public:
  Tuner(Backend& backend, const Registry& registry, TunerOptions options);

  TuningReport tune(const Problem& problem, const TuningProgress& progress = {});

  const TunerOptions& options() const { return options_; }

 private:
  Backend& backend_;
  const Registry& registry_;
  TunerOptions options_;
};

}  // namespace gemmtune

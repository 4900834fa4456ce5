// The tuning of one problem, phase by phase (what Tuner::tune runs; the pipeline is described in
// tuner.hpp). Each phase is a method that works on the candidates the last one left in the
// running and returns false once the problem has ended (report.error says why, and every
// candidate has its disposition):
//
//   enumerate → drop_unsupported → allocate_operands → warm_up_and_screen → check_reference →
//   check_and_screen → measure → confirm → trial → burst_check → select
//
// tuning_run.cpp holds the enumeration, the operands and the bookkeeping;
// tuning_run_screening.cpp the cheap filters (warm-up, screening, numerical check);
// tuning_run_selection.cpp the measurement in rounds, the confirmation, the trial and the verdict;
// tuning_run_burst.cpp the burst check of the challenger about to replace Default.
// Internal to the tuner.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tuner/candidate.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/output_checker.hpp"
#include "tuner/profiler.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune {

class TuningRun {
 public:
  TuningRun(Backend& backend, const Registry& registry, const TunerOptions& options,
            TuningReport& report, const TuningProgress& progress);
  TuningRun(const TuningRun&) = delete;
  TuningRun& operator=(const TuningRun&) = delete;

  // Fills the report; throws only what ends the problem outside a candidate's calls (a
  // DeviceError, an allocation failure, a provider's exception while enumerating).
  void run();

 private:
  // The phases, in order (see the top of the file).
  void enumerate();
  bool drop_unsupported();
  bool allocate_operands();
  bool warm_up_and_screen();
  bool check_reference();
  void check_and_screen();
  bool measure();
  bool confirm();
  bool trial();
  bool burst_check();
  void select();

  // Bookkeeping.
  void finish(Candidate& c);  // out of the running, reported to the progress callback
  void collect();             // every candidate's report into the report, once at the end
  bool end(std::string error);
  bool reference_failed();
  // One phase of one candidate; false (and Failed) when it threw or failed.
  bool phase(Candidate& c, const PhaseCaps& caps, std::string_view name, Measurement& out,
             Profiler& with, const EarlyStop& stop = {});
  // Default's output under the check's other scalars, the reference of each candidate's second
  // check run; none where Default cannot run them (it refuses or fails: a ScaledGemm with an fp8
  // output takes beta = 0 only) or where they are the tuned scalars.
  void take_other_scalars_reference();
  // True when checked and wrong (or failed to run), under the tuned scalars or, where Default
  // gave a reference, the check's other ones.
  bool incorrect(Candidate& c);
  // One check run of `c` under (alpha, beta), compared by `checker`; true when wrong or failed.
  // `scalars` names other scalars than the tuned ones ("alpha = 0.75, beta = -0.5") in the
  // reasons, and is empty for the tuned ones.
  bool wrong_in_check_run(Candidate& c, OutputChecker& checker, double alpha, double beta,
                          const std::string& scalars);
  // Interleaved rounds of `group` under `caps`; false when Default failed.
  bool measure_in_rounds(const std::vector<Candidate*>& group, const PhaseCaps& caps,
                         std::string_view name);
  // TimingPolicy::idle_between_turns_ms of sleep after one turn of measure_in_rounds (none at 0).
  void idle_after_turn() const;
  // Whether `c`'s last measuring phase puts it ahead of Default's by at least `min_gain` and
  // beyond the noise of either test (noise_tests.hpp).
  bool beats_reference(const Candidate& c, double min_gain) const;
  // Whether the options let a trial run at all (its minimum gain under the minimum gain, turns).
  bool trial_enabled() const;
  // Whether `c`, not past the minimum gain, leads Default at all: then it is tried in long turns.
  bool worth_a_trial(const Candidate& c) const;
  // Why the fastest challenger, faster than Default, did not replace it.
  std::string kept_default_reason(const Candidate& fastest) const;
  // The challenger that replaces Default on what has been measured so far (the fastest, by the
  // minimum gain or its trial; after the burst check turned one down, the next only by the gain
  // that needs no trial, and none once it turned down the one tried); none where Default stays.
  Candidate* replacing_challenger() const;
  // The lead a challenger needs on the confirmation alone where a trial could have run.
  double untried_gain() const;
  // `c` and Default in interleaved bursts and graph replays (burst_check); false when Default
  // failed. Sets `c_slower`, and `c`'s reason, when Default was faster either way beyond the
  // noise; otherwise records the times for the winner's reason (checked_back_to_back_).
  bool compare_back_to_back(Candidate& c, bool& c_slower);

  Backend& backend_;
  const Registry& registry_;
  const TunerOptions& options_;
  const TimingPolicy& timing_;
  TuningReport& report_;
  const Problem& problem_;
  const TuningProgress& progress_;

  std::vector<Candidate> candidates_;  // Default first; never resized after enumerate()
  Candidate* reference_ = nullptr;     // Default
  int total_ = 0;
  int done_ = 0;
  std::size_t workspace_bytes_ = 0;  // the most any supported candidate needs

  std::optional<OperandSets> sets_;
  std::optional<Profiler> profiler_;
  std::optional<Profiler> warmup_profiler_;
  std::optional<OutputChecker> checker_;
  std::optional<OutputChecker> other_scalars_checker_;  // engaged when it holds a reference
  std::int64_t compared_ = 0;  // what a numerical check counts: real and imaginary parts apart

  std::vector<Candidate*> survivors_;    // measured: Default and the finalists
  std::vector<Candidate*> challengers_;  // the finalists still alive, fastest first
  bool confirmed_ = false;               // the confirmation ran to its end and decides
  // The challenger the trial measured last in long turns (none: no trial), its confirmation's
  // gain over Default, and whether it passed; those tried before it, which lost (their reasons
  // are written when they lose).
  Candidate* tried_ = nullptr;
  double tried_confirmation_gain_ = 0;
  std::string tried_why_;  // why its confirmation did not decide: for its reason
  bool trial_passed_ = false;
  std::vector<Candidate*> lost_trials_;
  bool lost_trial(const Candidate& c) const {
    return std::find(lost_trials_.begin(), lost_trials_.end(), &c) != lost_trials_.end();
  }
  // Challengers the burst check turned down, in the order it did; the one it let through, with
  // its burst times for the winner's reason.
  std::vector<Candidate*> slower_back_to_back_;
  std::pair<const Candidate*, std::string> checked_back_to_back_{nullptr, {}};
};

}  // namespace gemmtune

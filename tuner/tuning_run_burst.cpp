// The burst check: the challenger about to replace Default, timed again beside it with its runs
// back to back, in bursts with one pair of events around each and in replays of a captured graph,
// where Default is short enough for launch overlap to matter (TimingPolicy::burst_check_below_ms).
// The measurement, the confirmation and the trial put events between iterations, and an event
// keeps the next kernel from starting while the one before finishes; a program's stream or CUDA
// graph does not. A challenger Default beats either way beyond the noise does not replace it, and
// the next one that would is checked in turn.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuner/noise_tests.hpp"
#include "tuner/round_order.hpp"
#include "tuner/statistics.hpp"
#include "tuner/tuning_run.hpp"

namespace gemmtune {

bool TuningRun::burst_check() {
  if (!burst_check_applies(timing_, reference_->report.stats.median_ms)) return true;
  while (Candidate* c = replacing_challenger()) {
    bool slower = false;
    if (!compare_back_to_back(*c, slower)) return reference_failed();
    if (c->alive && !slower) return true;
    std::erase(challengers_, c);
    if (!c->alive) continue;  // failed in a burst: the next is judged as before
    slower_back_to_back_.push_back(c);
  }
  return true;
}

namespace {

// One way of running back to back, both sides' samples (ms a run), one per round.
struct BackToBack {
  const char* how;  // "back to back", "from a graph"
  std::vector<double> reference_ms, c_ms;
  bool skipped = false;  // a side that could not be timed this way
  std::string why_skipped;

  bool judged() const { return !skipped && reference_ms.size() >= 2 && c_ms.size() >= 2; }
  // Default faster beyond the noise, by the tuner's two tests (beats_reference, with Default as
  // the challenger).
  bool reference_faster(double margin) const {
    return beats_default(reference_ms, c_ms, margin) ||
           (median(reference_ms) < median(c_ms) && reference_ms.size() == c_ms.size() &&
            beats_default_paired(reference_ms, c_ms, margin + 1));
  }
  std::string describe() const {
    if (!judged()) {
      return fmt::format("{}: not timed ({})", how,
                         why_skipped.empty() ? std::string("too few samples") : why_skipped);
    }
    const double c = median(c_ms), reference = median(reference_ms);
    const double change = 100 * (c / reference - 1);
    return fmt::format("{} {:.2f}% {} Default's ({:.4g} ms a run against {:.4g})", how,
                       std::abs(change), change > 0 ? "above" : "below", c, reference);
  }
};

}  // namespace

bool TuningRun::compare_back_to_back(Candidate& c, bool& c_slower) {
  Candidate& reference = *reference_;
  const std::vector<Candidate*> pair{&reference, &c};
  BackToBack burst{"back to back"}, graph{"from a graph"};
  // Each side's runs captured once for replay, where the backend can (CUDA graphs).
  std::vector<std::unique_ptr<CapturedRuns>> captured;
  for (Candidate* who : pair) {
    std::string why;
    std::unique_ptr<CapturedRuns> runs;
    guarded(*who, "capture", [&] {
      runs = backend_.capture_runs(
          // By value: a backend may keep `issue` (the fake one replays through it).
          [this, who](void* stream) { return who->solution->run(problem_, sets_->next(), stream); },
          kBurstIterations, why);
    });
    if (!who->alive) {
      if (who->is_default) return false;
      finish(*who);
      return true;
    }
    if (!runs && !graph.skipped) {
      graph.skipped = true;
      if (!why.empty()) graph.why_skipped = fmt::format("{}: {}", who->report.solution, why);
    }
    captured.push_back(std::move(runs));
  }
  // One burst and one replay of each per round, in alternating order.
  for (int round = 0; round < kBurstRounds; ++round) {
    for (std::size_t at = 0; at < pair.size(); ++at) {
      const std::size_t k = round_position(round, at, pair.size());
      Candidate& who = *pair[k];
      const bool is_reference = &who == &reference;
      Measurement m;
      std::optional<double> replay;
      const bool ran = guarded(who, "burst", [&] {
        m = profiler_->run_burst(*who.solution, problem_, kBurstIterations);
        if (m.status && !graph.skipped) replay = captured[k]->replay_ms_per_run();
      });
      if (ran && !m.status) who.fail(fmt::format("burst: {}", m.status.error));
      if (!who.alive) {
        if (who.is_default) return false;
        finish(who);
        return true;
      }
      if (!m.samples_ms.empty()) {
        (is_reference ? burst.reference_ms : burst.c_ms).push_back(m.samples_ms.front());
      }
      if (replay) (is_reference ? graph.reference_ms : graph.c_ms).push_back(*replay);
      idle_after_turn();
    }
  }
  const double margin = options_.default_margin_sigmas;
  c_slower = (burst.judged() && burst.reference_faster(margin)) ||
             (graph.judged() && graph.reference_faster(margin));
  const std::string times = fmt::format(
      "{} bursts of {} runs: {}; {}", burst.c_ms.size(), kBurstIterations, burst.describe(),
      graph.skipped && graph.why_skipped.empty() ? std::string("no graphs on this backend")
                                                 : graph.describe());
  if (c_slower) {
    c.report.reason = fmt::format(
        "median {:.2f}% below Default's per iteration, but slower than Default beyond the noise "
        "run back to back ({})",
        100 * (1 - c.report.stats.median_ms / reference.report.stats.median_ms), times);
  } else {
    checked_back_to_back_ = {&c, times};
  }
  return true;
}

}  // namespace gemmtune

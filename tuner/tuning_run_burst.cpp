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

// The samples of the rounds that gave one (kNoRound where a round gave none).
std::vector<double> taken(const std::vector<double>& rounds) {
  std::vector<double> samples;
  for (double x : rounds) {
    if (!std::isnan(x)) samples.push_back(x);
  }
  return samples;
}

// One way of running back to back: both sides' sample (ms a run) of each round.
struct BackToBack {
  explicit BackToBack(const char* way) : how(way) {}
  const char* how;  // "back to back", "from a graph"
  std::vector<double> reference_rounds = std::vector<double>(kBurstRounds, kNoRound);
  std::vector<double> c_rounds = std::vector<double>(kBurstRounds, kNoRound);
  bool skipped = false;  // a side that could not be timed this way
  std::string why_skipped;

  bool judged() const {
    return !skipped && taken(reference_rounds).size() >= 2 && taken(c_rounds).size() >= 2;
  }
  // Default faster beyond the noise, by the tuner's two tests with Default as the challenger.
  bool reference_faster(double margin) const {
    return beats_default_either(taken(reference_rounds), reference_rounds, taken(c_rounds),
                                c_rounds, margin);
  }
  std::string describe() const {
    if (!judged()) {
      return fmt::format("{}: not timed ({})", how,
                         why_skipped.empty() ? std::string("too few samples") : why_skipped);
    }
    const double c = median(taken(c_rounds)), reference = median(taken(reference_rounds));
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
  // A side that failed ends the comparison, and the problem where it was Default.
  const auto out_of_the_running = [this](Candidate& who) {
    if (who.is_default) return false;
    finish(who);
    return true;
  };
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
    if (!who->alive) return out_of_the_running(*who);
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
      if (!who.alive) return out_of_the_running(who);
      const auto at_round = static_cast<std::size_t>(round);
      if (!m.samples_ms.empty()) {
        (is_reference ? burst.reference_rounds : burst.c_rounds)[at_round] = m.samples_ms.front();
      }
      if (replay) (is_reference ? graph.reference_rounds : graph.c_rounds)[at_round] = *replay;
      idle_after_turn();
    }
  }
  const double margin = options_.default_margin_sigmas;
  c_slower = (burst.judged() && burst.reference_faster(margin)) ||
             (graph.judged() && graph.reference_faster(margin));
  const std::string times = fmt::format(
      "{} bursts of {} runs: {}; {}", taken(burst.c_rounds).size(), kBurstIterations,
      burst.describe(),
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

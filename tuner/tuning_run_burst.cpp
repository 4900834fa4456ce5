// The burst check: the challenger about to replace Default, timed again beside it with its
// iterations back to back and one pair of events around each burst, where Default is short enough
// for launch overlap to matter (TimingPolicy::burst_check_below_ms). The measurement, the
// confirmation and the trial put events between iterations, and an event keeps the next kernel
// from starting while the one before finishes; a program's stream or CUDA graph does not. A
// challenger Default beats back to back beyond the noise does not replace it, and the next one
// that would is checked in turn.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tuner/noise_tests.hpp"
#include "tuner/round_order.hpp"
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
    // After a trial Default's samples are the trial's, which no other challenger shares.
    if (c == tried_) return true;
  }
  return true;
}

bool TuningRun::compare_back_to_back(Candidate& c, bool& c_slower) {
  Candidate& reference = *reference_;
  const std::vector<Candidate*> pair{&reference, &c};
  // One burst of each per round, in alternating order; ms an iteration.
  std::vector<double> reference_ms, c_ms;
  for (int round = 0; round < kBurstRounds; ++round) {
    for (std::size_t at = 0; at < pair.size(); ++at) {
      Candidate& who = *pair[round_position(round, at, pair.size())];
      Measurement m;
      const bool ran = guarded(who, "burst", [&] {
        m = profiler_->run_burst(*who.solution, problem_, kBurstIterations);
      });
      if (ran && !m.status) who.fail(fmt::format("burst: {}", m.status.error));
      if (!who.alive) {
        if (who.is_default) return false;
        finish(who);
        return true;
      }
      if (m.samples_ms.empty()) continue;  // a timer that lost the burst's pair
      (&who == &reference ? reference_ms : c_ms).push_back(m.samples_ms.front());
      idle_after_turn();
    }
  }
  if (reference_ms.size() < 2 || c_ms.size() < 2) return true;  // nothing to judge by
  const double margin = options_.default_margin_sigmas;
  const double reference_median = summarize(reference_ms).median_ms;
  const double c_median = summarize(c_ms).median_ms;
  c_slower = beats_default(reference_ms, c_ms, margin) ||
             (reference_median < c_median && reference_ms.size() == c_ms.size() &&
              beats_default_paired(reference_ms, c_ms, margin + 1));
  const double change = 100 * (c_median / reference_median - 1);
  const std::string burst = fmt::format(
      "back to back ({} bursts of {} iterations) {:.2f}% {} Default's ({:.4g} ms an "
      "iteration against {:.4g})",
      c_ms.size(), kBurstIterations, std::abs(change), change > 0 ? "above" : "below", c_median,
      reference_median);
  if (c_slower) {
    c.report.reason =
        fmt::format("median {:.2f}% below Default's per iteration, but {}, beyond the noise",
                    100 * (1 - c.report.stats.median_ms / reference.report.stats.median_ms), burst);
  } else {
    checked_back_to_back_ = {&c, burst};
  }
  return true;
}

}  // namespace gemmtune

// The TuningRun's verdict: the finalists and Default measured in interleaved rounds, the fastest
// few confirmed in fresh rounds, a lead under the minimum gain tried in long turns, and the winner
// chosen against Default's noise.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include "tuner/noise_tests.hpp"
#include "tuner/round_order.hpp"
#include "tuner/tuning_run.hpp"

namespace gemmtune {
namespace {

// Interleaved rounds of the measurement phase (see there). Eight, not four: on an H200 a large
// GEMM's speed drifted by 10-25% within a second, and four rounds still let one finalist collect
// a quarter of its samples in a fast stretch the others missed
// (bench/results/2026-11-21-h200-run2.md).
constexpr int kMeasurementRounds = 8;
// A phase sized for one iteration per round gets this much more, so that a sample a little slower
// than the measured median does not cost the last round.
constexpr double kRoundHeadroom = 1.25;
// The trial's turns are the rounds of measure_in_rounds.
static_assert(kTrialTurns == kMeasurementRounds);
// On GEMMs a trial fits, a lead under this many times the minimum gain (3% at the default 1.5%)
// replaces Default only through the trial. On H100s the confirmation's verdicts at 1.5-3% broke
// the benchmark's 0.98x floor where a trial could have looked: id66 t20 ... cluster_3 chosen
// 2.1% ahead on the 8B qkv dgrad GEMM came out 0.973x of Default (run 77) and 1.8% ahead on the
// 1B gate/up wgrad GEMM 0.980x, while the trial's 76 winners on such GEMMs came out 0.994-1.050x
// (bench/results/2026-11-27-h100-trial-every-lead.md). The confirmation's other 23 winners under 3%
// on such GEMMs in runs 74-77 were 1.010-1.053x: real leads of that size, which a trial keeps.
constexpr double kTrialUpToMinGainTimes = 2.0;

void sort_fastest_first(std::vector<Candidate*>& candidates) {
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate* x, const Candidate* y) {
                     return x->report.stats.median_ms < y->report.stats.median_ms;
                   });
}

}  // namespace

// Measurement of the survivors (warm: they ran in screening and in the check), in interleaved
// rounds: each round gives every survivor its share of what is left of its caps, in an order that
// turns from round to round (round_order.hpp), and the samples of all rounds are pooled. A
// device's speed drifts within a measurement phase (fresh from the idle numerical checks, an H200
// ran 0.2-3 ms GEMMs 15-25% faster for a while), and measuring each survivor in one block handed
// that head start to whoever came first: always Default.
bool TuningRun::measure_in_rounds(const std::vector<Candidate*>& group, const PhaseCaps& caps,
                                  std::string_view name) {
  const int rounds = caps.empty() ? 1 : kMeasurementRounds;
  for (Candidate* c : group) {
    c->samples.clear();
    c->round_medians.assign(static_cast<std::size_t>(rounds), kNoRound);
  }
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < group.size(); ++i) {
      Candidate& c = *group[round_position(round, i, group.size())];
      if (!c.alive) continue;
      const auto done_iterations = static_cast<int>(c.samples.size());
      double done_ms = 0;
      for (double x : c.samples) done_ms += x;
      const int rounds_left = rounds - round;
      PhaseCaps share;  // with both caps at 0 this is the single round of exactly one iteration
      if (caps.max_iterations > 0) {
        const int left = caps.max_iterations - done_iterations;
        if (left <= 0) continue;
        share.max_iterations = (left + rounds_left - 1) / rounds_left;
      }
      if (caps.max_duration_ms > 0) {
        const double left = caps.max_duration_ms - done_ms;
        if (left <= 0) continue;
        share.max_duration_ms = left / rounds_left;
      }
      Measurement m;
      if (!phase(c, share, name, m, *profiler_)) {
        if (c.is_default) return false;
        finish(c);
        continue;
      }
      c.samples.insert(c.samples.end(), m.samples_ms.begin(), m.samples_ms.end());
      c.round_medians[static_cast<std::size_t>(round)] = m.stats.median_ms;
      idle_after_turn();
    }
  }
  for (Candidate* c : group) {
    if (!c->alive) continue;
    c->report.stats = summarize(c->samples);
    c->report.tflops = tflops_at(problem_, c->report.stats.median_ms);
    c->report.disposition = Disposition::Slower;
    c->report.reason.clear();
  }
  return true;
}

void TuningRun::idle_after_turn() const {
  // The phase has waited for the device (the profiler reads its timer): it idles from here.
  if (timing_.idle_between_turns_ms > 0) {
    std::this_thread::sleep_for(
        std::chrono::duration<double, std::milli>(timing_.idle_between_turns_ms));
  }
}

bool TuningRun::measure() {
  const PhaseCaps caps = measurement_caps(timing_);
  // No settle where the finalists are to be measured with headroom: it exists to bring the device
  // to sustained work first.
  if (settle_enabled(timing_) && timing_.idle_between_turns_ms <= 0 && !caps.empty() &&
      survivors_.size() > 1) {
    // Untimed in effect (its samples are dropped), so run as issued: queued, a decode GEMM's
    // chunks left the device waiting while the host queued each one, and the measurement phase
    // of a 10 µs GEMM, settle included, took 0.24-0.26 s on an H100; as issued, 0.13 s
    // (bench/results/2026-11-27-h100-settle-as-issued.md).
    Measurement settled;
    if (!phase(*reference_, settle_caps(timing_), "settle", settled, *warmup_profiler_)) {
      return reference_failed();
    }
  }
  if (!measure_in_rounds(survivors_, caps, "measurement")) return reference_failed();
  for (Candidate* c : survivors_) {
    if (c->alive && !c->is_default) challengers_.push_back(c);
  }
  sort_fastest_first(challengers_);
  return true;
}

bool TuningRun::confirm() {
  // The fastest few challengers and Default measured again, in fresh interleaved rounds, and the
  // verdict taken on these samples alone. The fastest of several finalists is partly the one whose
  // samples happened to come out low, so the measurement that picked it overstates its lead (the
  // winner's curse); samples taken after the pick carry no such bias. On an H200, winners the tuner
  // had measured 1.5-2.5% ahead of Default were 1.2% ahead when measured again, and those under
  // 1.5% 0.2% ahead (bench/results/2026-11-22-h200-min-gain.md).
  if (timing_.confirmation_contenders <= 0 || challengers_.empty()) return true;
  const std::size_t contenders =
      std::min(challengers_.size(), static_cast<std::size_t>(timing_.confirmation_contenders));
  std::vector<Candidate*> group{reference_};
  group.insert(group.end(), challengers_.begin(), challengers_.begin() + contenders);
  // Long enough for one iteration of the slowest in every round (the paired test needs the
  // rounds), though never longer than the measurement: half of a 30 ms cap is one sample of a
  // 15 ms GEMM.
  double slowest_ms = 0;
  for (const Candidate* c : group) slowest_ms = std::max(slowest_ms, c->report.stats.median_ms);
  const PhaseCaps confirmation =
      confirmation_caps(timing_, kRoundHeadroom * kMeasurementRounds * slowest_ms);
  // What the measurement found, for the case where a contender fails on the way.
  std::vector<MeasuredSamples> measured;
  for (const Candidate* c : group) measured.push_back(c->measured());
  if (!measure_in_rounds(group, confirmation, "confirmation")) return reference_failed();
  if (std::all_of(group.begin(), group.end(), [](const Candidate* c) { return c->alive; })) {
    confirmed_ = true;
    for (std::size_t i = contenders; i < challengers_.size(); ++i) {
      challengers_[i]->report.reason = fmt::format(
          "measurement median {:.4g} ms: not among the {} fastest confirmed beside Default",
          challengers_[i]->report.stats.median_ms, contenders);
    }
    challengers_.resize(contenders);
    sort_fastest_first(challengers_);
  } else {
    // A contender failed after a clean measurement: the confirmation no longer covers the
    // fastest finalists, so the measurement decides among those still alive, as without it.
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (group[i]->alive) group[i]->restore(measured[i]);
    }
    std::erase_if(challengers_, [](const Candidate* c) { return !c->alive; });
  }
  return true;
}

bool TuningRun::beats_reference(const Candidate& c, double min_gain) const {
  // The paired test asks one standard error more: over 8 rounds its mean has only 7 degrees of
  // freedom, at which 2 standard errors still pass a candidate no faster than Default about one
  // time in 25 (3: one in 100; fewer rounds raise the bar to keep that, see beats_default_paired).
  // On an H200 the paired test at 2 picked a prefill configuration 0.7% ahead in the tuner's rounds
  // that the benchmark then found 2.7% behind (bench/results/2026-11-21-h200-run7.md, #68). The
  // paired test pairs the rounds both ran: a candidate faster than Default spends its duration cap
  // in more rounds than Default where one iteration takes more than a round's share of the cap
  // (GEMMs over about 4 ms at the default caps; from 10 ms on fewer than the 4 rounds it needs
  // pair, and the pooled test decides alone).
  const Candidate& reference = *reference_;
  if (c.report.stats.median_ms > (1.0 - min_gain) * reference.report.stats.median_ms) return false;
  return beats_default_either(c.samples, c.round_medians, reference.samples,
                              reference.round_medians, options_.default_margin_sigmas);
}

namespace {

double gain_over(const Candidate& c, const Candidate& reference) {
  return 1.0 - c.report.stats.median_ms / reference.report.stats.median_ms;
}

// The turns both ran, and those of them in which `c` was faster than `reference`.
struct TurnsAhead {
  std::size_t ahead = 0;
  std::size_t both_ran = 0;
};

TurnsAhead turns_ahead(const Candidate& c, const Candidate& reference) {
  TurnsAhead t;
  const std::size_t n = std::min(c.round_medians.size(), reference.round_medians.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double mine = c.round_medians[i];
    const double theirs = reference.round_medians[i];
    if (std::isnan(mine) || std::isnan(theirs)) continue;
    ++t.both_ran;
    if (mine < theirs) ++t.ahead;
  }
  return t;
}

}  // namespace

bool TuningRun::trial_enabled() const {
  return options_.trial_min_gain > 0 && options_.trial_min_gain < options_.min_gain &&
         timing_.trial_turn_ms > 0;
}

bool TuningRun::worth_a_trial(const Candidate& c) const {
  // Any lead of the median, neither beyond the confirmation's noise nor of trial_min_gain: the
  // confirmation's short turns give a 0.1-0.4 ms GEMM a noise of 0.5-1%, and leads the
  // confirmation held within it or under 0.5% were 1-2% in the LLM benchmark's evaluation (on
  // H100s: #89 of run 73 and #97 of run 74 at 0.55% and 0.65%, #65 of run 76 at 0.38%,
  // bench/results/2026-11-27-h100-device-state.md). The trial's own samples, many more, must show
  // a lead of trial_min_gain beyond their noise. With the leads of 1.5-3% (kTrialUpToMinGainTimes),
  // 13-20 of the benchmark's 108 problems ran a trial (runs 77-78), at 0.91-0.92 s of tuning per
  // problem on average.
  return gain_over(c, *reference_) > 0;
}

bool TuningRun::trial() {
  // A lead that did not replace Default on the confirmation (worth_a_trial), measured again
  // beside Default in long turns: it replaces Default if it keeps at least trial_min_gain there,
  // beyond the noise, in every turn, or kTrialAnyTurnsGainTimes that whatever its turns. The
  // minimum gain turns down every small lead, the real with the false; a kernel whose lead is an
  // artefact of short turns loses it in long ones (see TimingPolicy::trial_turn_ms), and one whose
  // speed changes over hundreds of milliseconds shows it as a turn behind. GEMMs too long for a
  // turn of kTrialIterationsPerTurn get none.
  //
  // Where the fastest loses, the next contender with a lead on the confirmation is tried in turn,
  // until one passes: the confirmation's contenders are often within a few tenths of a percent of
  // each other, and the one that lost may not be the one with the real lead. In the LLM
  // benchmark's runs 79-93 the best of cuBLASLt's top 8 had been a contender never tried, behind
  // one that lost its trial, on 13 of the problems where the winner was slower than it.
  if (!trial_enabled() || challengers_.empty()) return true;
  if (!trial_fits(timing_, reference_->report.stats.median_ms) ||
      beats_reference(*challengers_.front(), untried_gain())) {
    return true;
  }
  // Each contender's lead and why it did not decide, on the confirmation's samples: a trial
  // replaces Default's samples with its own.
  struct Contender {
    Candidate* c;
    double gain;
    std::string why;
  };
  std::vector<Contender> contenders;
  for (Candidate* c : challengers_) {
    if (!worth_a_trial(*c)) break;  // fastest first: none after it leads either
    const double gain = gain_over(*c, *reference_);
    contenders.push_back(
        {c, gain,
         gain < options_.min_gain
             ? fmt::format("less than the minimum gain of {:.2f}%", 100 * options_.min_gain)
         : !beats_reference(*c, options_.min_gain)
             ? std::string("within the noise")
             : fmt::format("less than the {:.2f}% that replaces Default without a trial",
                           100 * untried_gain())});
  }
  const double least = options_.trial_min_gain;
  for (Contender& next : contenders) {
    Candidate& c = *next.c;
    tried_ = &c;
    tried_confirmation_gain_ = next.gain;
    tried_why_ = std::move(next.why);
    if (!measure_in_rounds({reference_, &c}, trial_caps(timing_), "trial")) {
      return reference_failed();
    }
    if (!c.alive) {  // failed in the trial: out of the running, like any failure
      tried_ = nullptr;
      std::erase(challengers_, &c);
      continue;
    }
    const TurnsAhead turns = turns_ahead(c, *reference_);
    trial_passed_ =
        beats_reference(c, least) &&
        (turns.ahead == turns.both_ran || beats_reference(c, kTrialAnyTurnsGainTimes * least));
    if (trial_passed_) return true;
    c.report.reason = kept_default_reason(c);
    lost_trials_.push_back(&c);
  }
  // None passed: Default stays, even where every one tried failed (the others' confirmation
  // samples no longer share a phase with Default's).
  if (tried_ == nullptr && !lost_trials_.empty()) tried_ = lost_trials_.back();
  return true;
}

double TuningRun::untried_gain() const {
  return trial_enabled() && trial_fits(timing_, reference_->report.stats.median_ms)
             ? kTrialUpToMinGainTimes * options_.min_gain
             : options_.min_gain;
}

Candidate* TuningRun::replacing_challenger() const {
  if (challengers_.empty()) return nullptr;
  // A trial decides: its winner, unless the burst check turned it down; Default's samples are the
  // trial's now, which no other challenger shares, so Default stays otherwise.
  if (tried_ != nullptr) {
    return trial_passed_ && slower_back_to_back_.empty() ? tried_ : nullptr;
  }
  Candidate* fastest = challengers_.front();
  double gain = options_.min_gain;
  if (!slower_back_to_back_.empty()) {
    // The fastest had its chance at a trial; one behind it had none, so it needs the lead that
    // replaces Default without one.
    gain = untried_gain();
  }
  return beats_reference(*fastest, gain) ? fastest : nullptr;
}

std::string TuningRun::kept_default_reason(const Candidate& fastest) const {
  const Candidate& reference = *reference_;
  const double gain = gain_over(fastest, reference);
  const auto noise = [&] {
    return fastest.samples.size() < 2 || reference.samples.size() < 2
               ? fmt::format(
                     "within the noise (one sample, taken as {:.0f}% noise: a longer "
                     "--max-tuning-duration-ms gives more)",
                     100 * kSingleSampleNoise)
               : std::string("within the noise");
  };
  if (&fastest == tried_) {
    const TurnsAhead turns = turns_ahead(fastest, reference);
    const bool turns_decide =
        turns.ahead < turns.both_ran && gain < kTrialAnyTurnsGainTimes * options_.trial_min_gain;
    return fmt::format(
        "{} median {:.2f}% below Default's, {}; in the trial ({} turns of {:g} ms) {:.2f}% {} "
        "Default's, {}",
        confirmed_ ? "confirmation" : "measurement", 100 * tried_confirmation_gain_, tried_why_,
        kTrialTurns, timing_.trial_turn_ms, 100 * std::abs(gain), gain >= 0 ? "below" : "above",
        gain < options_.trial_min_gain
            ? fmt::format("less than the trial's minimum gain of {:.2f}%",
                          100 * options_.trial_min_gain)
        : turns_decide
            ? fmt::format("and ahead in {} of {} turns (a lead under {:.2f}% must be ahead in all)",
                          turns.ahead, turns.both_ran,
                          100 * kTrialAnyTurnsGainTimes * options_.trial_min_gain)
            : noise());
  }
  // A lead the trial would have taken up, on a GEMM too long for it (a lead that beat the minimum
  // gain replaced Default and has no reason from here).
  const bool too_long_for_a_trial = trial_enabled() && worth_a_trial(fastest) &&
                                    !trial_fits(timing_, reference.report.stats.median_ms);
  return fmt::format(
      "{} median {:.2f}% below Default's, {}{}", confirmed_ ? "confirmation" : "measurement",
      100 * gain,
      gain < options_.min_gain
          ? fmt::format("less than the minimum gain of {:.2f}%", 100 * options_.min_gain)
          : noise(),
      too_long_for_a_trial
          ? fmt::format(" (no trial: Default's {:.3g} ms fits fewer than {} iterations in a "
                        "{:g} ms turn)",
                        reference.report.stats.median_ms, kTrialIterationsPerTurn,
                        timing_.trial_turn_ms)
          : "");
}

void TuningRun::select() {
  // The challenger that replaces Default (replacing_challenger), else Default.
  Candidate& reference = *reference_;
  Candidate* fastest = challengers_.empty() ? nullptr : challengers_.front();
  Candidate* winner = &reference;
  if (Candidate* replacing = replacing_challenger()) {
    winner = replacing;
    if (winner == tried_) {
      const TurnsAhead turns = turns_ahead(*winner, reference);
      winner->report.reason = fmt::format(
          "{} median {:.2f}% below Default's, {}; in the trial ({} turns of {:g} ms) {:.2f}% "
          "below, {}",
          confirmed_ ? "confirmation" : "measurement", 100 * tried_confirmation_gain_, tried_why_,
          kTrialTurns, timing_.trial_turn_ms, 100 * gain_over(*winner, reference),
          turns.ahead == turns.both_ran
              ? std::string("ahead in every turn")
              : fmt::format("ahead in {} of {} turns", turns.ahead, turns.both_ran));
    }
    if (checked_back_to_back_.first == winner) {
      std::string& reason = winner->report.reason;
      reason = reason.empty() ? checked_back_to_back_.second
                              : fmt::format("{}; {}", reason, checked_back_to_back_.second);
    }
  } else if (fastest == nullptr || lost_trial(*fastest)) {
    // Nothing to say, or said when it lost its trial (trial()). A trial winner the burst check
    // turned down is no longer among the challengers: the fastest left was never tried.
  } else if (!slower_back_to_back_.empty() && gain_over(*fastest, reference) > 0) {
    fastest->report.reason = fmt::format(
        "{} median {:.2f}% below Default's, less than the {:.2f}% that replaces Default without "
        "a trial, after a faster challenger was slower back to back",
        confirmed_ ? "confirmation" : "measurement", 100 * gain_over(*fastest, reference),
        100 * untried_gain());
  } else if (reference.report.stats.median_ms > 0 &&
             fastest->report.stats.median_ms < reference.report.stats.median_ms) {
    // Why the fastest did not replace Default, for whoever reads the measurements.
    fastest->report.reason = kept_default_reason(*fastest);
  }
  winner->report.disposition = Disposition::Winner;
  // The measured candidates are reported once the selection is made, so that each comes with its
  // final disposition (the winner as Winner, the fastest loser with its reason).
  for (Candidate* c : survivors_) {
    if (!c->alive) continue;
    ++done_;
    if (progress_) progress_(c->report, done_, total_);
  }
  report_.winner = winner->report.solution;
  report_.winner_stats = winner->report.stats;
  report_.default_stats = reference.report.stats;
  collect();
}

}  // namespace gemmtune

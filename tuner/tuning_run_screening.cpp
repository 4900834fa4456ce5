// The TuningRun's cheap filters: warm-up and screening (a few capped iterations each), Default's
// reference output, and the numerical check of the candidates fast enough to be worth one.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "tuner/error.hpp"
#include "tuner/tuning_run.hpp"

namespace gemmtune {

bool TuningRun::warm_up_and_screen() {
  // Each candidate's warmup right before its few capped screening iterations, so that screening
  // sees it warm. Default goes first (enumeration put it there), so its own screening runs uncut
  // and its median sets the early cut of the others'.
  EarlyStop stops;  // none until Default's screening median is known
  for (auto& c : candidates_) {
    if (!c.alive) continue;
    Measurement m;
    const bool ok = (!warmup_enabled(timing_) ||
                     phase(c, warmup_caps(timing_), "warmup", m, *warmup_profiler_)) &&
                    (!screening_enabled(timing_) ||
                     phase(c, screening_caps(timing_), "screening", m, *profiler_, stops));
    if (!ok) {
      if (c.is_default) return reference_failed();
      finish(c);
      continue;
    }
    if (screening_enabled(timing_)) {
      c.report.stats = m.stats;
      c.report.tflops = tflops_at(problem_, m.stats.median_ms);
      c.screening_cut_after = m.cut_after;
      if (c.is_default) stops = screening_stops(timing_, m.stats.median_ms);
    }
  }
  return true;
}

bool TuningRun::check_reference() {
  // Default's output, the reference of the numerical check.
  checker_.emplace(backend_, *sets_, problem_, options_.check);
  compared_ = problem_.m * problem_.n * problem_.batch * (info(problem_.c_type).is_complex ? 2 : 1);
  if (!options_.check.enabled()) return true;
  Candidate& reference = *reference_;
  CheckResult self;
  guarded(reference, "reference run", [&] {
    sets_->reset_check_output();
    const RunStatus status =
        reference.solution->run(problem_, sets_->check_operands(), backend_.stream());
    if (!status) GEMMTUNE_THROW("{}", status.error);
    // Default is compared with itself too: a reference with NaN or unwritten elements is no
    // reference, and that must end the problem rather than fail every candidate.
    self = checker_->take_reference();
  });
  if (!reference.alive) return reference_failed();
  if (!self.passed) {
    // Compared with itself, only a NaN or an Inf (or an element it never wrote: poisoned with
    // NaN) can differ.
    reference.report.reason =
        fmt::format("its output holds NaN or Inf: {}", self.describe(compared_));
    return reference_failed();
  }
  take_other_scalars_reference();
  return true;
}

void TuningRun::take_other_scalars_reference() {
  if (options_.alpha == kOtherCheckAlpha && options_.beta == kOtherCheckBeta) return;
  other_scalars_checker_.emplace(backend_, *sets_, problem_, options_.check);
  bool usable = false;
  try {
    sets_->reset_check_output(kOtherCheckBeta);
    const RunStatus status = reference_->solution->run(
        problem_, sets_->check_operands(kOtherCheckAlpha, kOtherCheckBeta), backend_.stream());
    usable = status.ok && other_scalars_checker_->take_reference().passed;
  } catch (const DeviceError&) {
    throw;
  } catch (const std::exception&) {
    // Default ran the tuned scalars, which is all the tuning needs: these only widen the check.
  }
  if (!usable) other_scalars_checker_.reset();
}

bool TuningRun::incorrect(Candidate& c) {
  if (!options_.check.enabled()) return false;
  if (wrong_in_check_run(c, *checker_, options_.alpha, options_.beta, "")) return true;
  return other_scalars_checker_ &&
         wrong_in_check_run(
             c, *other_scalars_checker_, kOtherCheckAlpha, kOtherCheckBeta,
             fmt::format("alpha = {}, beta = {}", kOtherCheckAlpha, kOtherCheckBeta));
}

bool TuningRun::wrong_in_check_run(Candidate& c, OutputChecker& checker, double alpha, double beta,
                                   const std::string& scalars) {
  const bool tuned = scalars.empty();
  const std::string run = tuned ? "numerical check run" : "numerical check run at " + scalars;
  CheckResult result;
  bool refused = false;
  const bool ran = guarded(c, run, [&] {
    sets_->reset_check_output(beta);
    const RunStatus status =
        c.solution->run(problem_, sets_->check_operands(alpha, beta), backend_.stream());
    // Under other scalars than the tuned ones a refusal is an answer: an application's call it
    // refuses runs on Default.
    refused = !tuned && status.refused;
    if (refused) return;
    if (!status) {
      c.fail(fmt::format("{}: {}", run, status.error));
      return;
    }
    result = checker.check_candidate();
  });
  if (!ran || !c.alive) return true;
  if (refused || result.passed) return false;
  c.report.disposition = Disposition::Incorrect;
  c.report.reason = tuned ? result.describe(compared_)
                          : fmt::format("at {}: {}", scalars, result.describe(compared_));
  return true;
}

void TuningRun::check_and_screen() {
  // Fastest screening median first: the bar a candidate must clear is keep_factor × the best
  // median of a *correct* candidate (Default included), so a fast wrong candidate can never screen
  // out a correct one, and what is clearly slower than that bar is dropped without the cost of a
  // check. Without screening every survivor is checked.
  std::vector<Candidate*> order;
  for (auto& c : candidates_) {
    if (c.alive && !c.is_default) order.push_back(&c);
  }
  const bool screened = screening_enabled(timing_);
  if (screened) {
    std::stable_sort(order.begin(), order.end(), [](const Candidate* x, const Candidate* y) {
      return x->report.stats.median_ms < y->report.stats.median_ms;
    });
  }
  const Candidate& reference = *reference_;
  double best_ms = reference.report.stats.median_ms;
  std::string best_name = reference.report.solution;
  int finalists = 0;
  for (Candidate* c : order) {
    const double median = c->report.stats.median_ms;
    if (c->screening_cut_after > 0) {
      const double default_ms = reference.report.stats.median_ms;
      c->report.disposition = Disposition::ScreenedOut;
      c->report.reason =
          c->screening_cut_after == 1
              ? fmt::format(
                    "screening cut after its first sample: {:.4g} ms > {} x {} x {:.4g} ms "
                    "of {}",
                    median, kScreeningCutFactor, timing_.screening_keep_factor, default_ms,
                    kDefaultSolutionName)
              : fmt::format(
                    "screening cut after {} samples: their median {:.4g} ms > {} x {:.4g} "
                    "ms of {}",
                    c->screening_cut_after, median, timing_.screening_keep_factor, default_ms,
                    kDefaultSolutionName);
      finish(*c);
      continue;
    }
    if (screened && timing_.max_finalists > 0 && finalists >= timing_.max_finalists) {
      c->report.disposition = Disposition::ScreenedOut;
      c->report.reason = fmt::format("screening median {:.4g} ms: not among the {} fastest", median,
                                     timing_.max_finalists);
      finish(*c);
      continue;
    }
    // A keep factor of 0 (or less) is no bar, as for the screening cuts (screening_stops).
    if (screened && timing_.screening_keep_factor > 0 &&
        median > timing_.screening_keep_factor * best_ms) {
      c->report.disposition = Disposition::ScreenedOut;
      c->report.reason = fmt::format("screening median {:.4g} ms > {} x {:.4g} ms of {}", median,
                                     timing_.screening_keep_factor, best_ms, best_name);
      finish(*c);
      continue;
    }
    if (incorrect(*c)) {
      finish(*c);
      continue;
    }
    ++finalists;
    if (screened && median < best_ms) {
      best_ms = median;
      best_name = c->report.solution;
    }
  }
  for (auto& c : candidates_) {
    if (c.alive) survivors_.push_back(&c);
  }
}

}  // namespace gemmtune

#include "tuner/tuner.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <new>
#include <utility>

#include "tuner/error.hpp"
#include "tuner/tuning_run.hpp"

namespace gemmtune {

double TuningReport::speedup_over_default() const {
  if (winner_stats.median_ms <= 0 || default_stats.median_ms <= 0) return 0;
  return default_stats.median_ms / winner_stats.median_ms;
}

std::string describe_phases(const TuningReport& report) {
  std::string out;
  for (const PhaseTime& p : report.phases) {
    out += fmt::format("{}{} {:.3f} s", out.empty() ? "" : ", ", p.phase, p.seconds);
  }
  return out;
}

namespace {

// Options come from the command line, a config file, the C API: a NaN or an infinity in one of
// these would pass every "at least 0" check (comparisons with NaN are false) and make a phase that
// never ends or a rotation plan that wraps, so each must be a finite number.
void require_finite_options(const TunerOptions& o) {
  const TimingPolicy& t = o.timing;
  const std::pair<const char*, double> values[] = {
      {"max_tuning_duration_ms", t.max_tuning_duration_ms},
      {"max_warmup_duration_ms", t.max_warmup_duration_ms},
      {"rotating_buffer_mb", t.rotating_buffer_mb.value_or(0)},
      {"screening_duration_ms", t.screening_duration_ms},
      {"screening_keep_factor", t.screening_keep_factor},
      {"settle_duration_ms", t.settle_duration_ms},
      {"trial_turn_ms", t.trial_turn_ms},
      {"idle_between_turns_ms", t.idle_between_turns_ms},
      {"burst_check_below_ms", t.burst_check_below_ms},
      {"alpha", o.alpha},
      {"beta", o.beta},
      {"default_margin_sigmas", o.default_margin_sigmas},
      {"min_gain", o.min_gain},
      {"trial_min_gain", o.trial_min_gain},
      {"memory_fraction", o.memory_fraction},
  };
  for (const auto& [name, value] : values) {
    if (!std::isfinite(value)) {
      throw InputError(
          fmt::format("tuning option {} must be a finite number, not {}", name, value));
    }
  }
}

}  // namespace

Tuner::Tuner(Backend& backend, const Registry& registry, TunerOptions options)
    : backend_(backend), registry_(registry), options_(std::move(options)) {
  require_finite_options(options_);
  registry_.require_providers(backend_.properties().backend, options_.search.providers);
}

TuningReport Tuner::tune(const Problem& problem, const TuningProgress& progress) {
  TuningReport report;
  report.problem = problem;
  const auto start = std::chrono::steady_clock::now();
  try {
    const auto on_device = backend_.make_current();  // the providers ask "the current device"
    TuningRun(backend_, registry_, options_, report, progress).run();
  } catch (const DeviceError& e) {
    report.error = fmt::format("device error: {}", e.message());
    report.fatal = true;
  } catch (const std::bad_alloc&) {
    report.error = "out of host memory";
  } catch (const std::exception& e) {
    report.error = e.what();
  } catch (...) {
    // From an application's provider or solution outside the guarded candidate calls.
    report.error = std::string(kNotAStdException);
  }
  if (!report.error.empty()) report.winner.clear();
  report.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace gemmtune

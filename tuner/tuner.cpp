#include "tuner/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <utility>

#include "tuner/error.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/output_checker.hpp"
#include "tuner/profiler.hpp"
#include "tuner/round_order.hpp"

namespace gemmtune {
namespace {

// A measuring phase's result for one candidate, kept to fall back on.
struct MeasuredSamples {
  std::vector<double> samples;
  std::vector<double> round_medians;
  Statistics stats;
  double tflops = 0;
};

struct Candidate {
  std::unique_ptr<Solution> solution;
  CandidateReport report;
  bool alive = true;  // still competing
  bool is_default = false;
  bool screening_cut = false;         // screening ended after one sample (screening_cut_ms)
  std::vector<double> samples;        // of the last measuring phase, all rounds pooled
  // Of the last measuring phase, indexed by round; kNoRound where its caps were spent before it.
  std::vector<double> round_medians;

  MeasuredSamples measured() const { return {samples, round_medians, report.stats, report.tflops}; }
  void restore(MeasuredSamples m) {
    samples = std::move(m.samples);
    round_medians = std::move(m.round_medians);
    report.stats = m.stats;
    report.tflops = m.tflops;
  }
};

double tflops_at(const Problem& p, double median_ms) {
  return median_ms > 0 ? p.flops() / (median_ms * 1e9) : 0.0;
}

double mib(std::size_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// Interleaved rounds of the measurement phase (see there). Eight, not four: on an H200 a large
// GEMM's speed drifted by 10-25% within a second, and four rounds still let one finalist collect
// a quarter of its samples in a fast stretch the others missed
// (bench/results/2026-11-21-h200-run2.md).
constexpr int kMeasurementRounds = 8;
// A phase sized for one iteration per round gets this much more, so that a sample a little slower
// than the measured median does not cost the last round.
constexpr double kRoundHeadroom = 1.25;

// Runs `body`, turning a candidate's exception into a Failed disposition. A DeviceError is not
// the candidate's fault and ends the problem.
template <class F>
bool guarded(Candidate& c, std::string_view what, F&& body) {
  try {
    body();
    return true;
  } catch (const DeviceError&) {
    throw;
  } catch (const std::exception& e) {
    c.alive = false;
    c.report.disposition = Disposition::Failed;
    c.report.reason = fmt::format("{} threw: {}", what, e.what());
  } catch (...) {
    c.alive = false;
    c.report.disposition = Disposition::Failed;
    c.report.reason = fmt::format("{} threw an unknown exception", what);
  }
  return false;
}

}  // namespace

double TuningReport::speedup_over_default() const {
  if (winner_stats.median_ms <= 0 || default_stats.median_ms <= 0) return 0;
  return default_stats.median_ms / winner_stats.median_ms;
}

bool beats_default(std::span<const double> challenger_ms, std::span<const double> reference_ms,
                   double margin_sigmas) {
  if (challenger_ms.empty()) return false;
  if (reference_ms.empty()) return true;
  const double challenger = median(challenger_ms);
  const double reference = median(reference_ms);
  // One sample has no spread to measure: its standard error would come out 0, and any lower
  // median would pass as beyond the noise (a GEMM of 30 ms or more gets one sample a phase). It
  // is taken as kSingleSampleNoise of its time instead, the run-to-run variation of one GEMM.
  const auto standard_error = [](std::span<const double> samples, double m) {
    return samples.size() < 2 ? kSingleSampleNoise * m : median_standard_error(samples, m);
  };
  const double threshold = margin_sigmas * std::hypot(standard_error(challenger_ms, challenger),
                                                      standard_error(reference_ms, reference));
  return challenger < reference - threshold;
}

bool beats_default_paired(std::span<const double> challenger_round_ms,
                          std::span<const double> reference_round_ms, double margin_sigmas) {
  const std::size_t rounds = std::min(challenger_round_ms.size(), reference_round_ms.size());
  std::vector<double> logs;
  logs.reserve(rounds);
  for (std::size_t i = 0; i < rounds; ++i) {
    if (std::isnan(challenger_round_ms[i]) || std::isnan(reference_round_ms[i])) continue;
    if (challenger_round_ms[i] <= 0 || reference_round_ms[i] <= 0) return false;
    logs.push_back(std::log(challenger_round_ms[i] / reference_round_ms[i]));
  }
  const std::size_t n = logs.size();
  if (n < 4) return false;
  double mean = 0;
  for (double x : logs) mean += x;
  mean /= static_cast<double>(n);
  double variance = 0;
  for (double x : logs) variance += (x - mean) * (x - mean);
  variance /= static_cast<double>(n - 1);
  const double standard_error = std::sqrt(variance / static_cast<double>(n));
  return mean < 0 && -mean > margin_sigmas * standard_error;
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
      {"alpha", o.alpha},
      {"beta", o.beta},
      {"default_margin_sigmas", o.default_margin_sigmas},
      {"min_gain", o.min_gain},
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
    tune_into(report, progress);
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

void Tuner::tune_into(TuningReport& report, const TuningProgress& progress) {
  const Problem& problem = report.problem;
  if (auto why = problem.invalid_reason()) {
    report.error = fmt::format("invalid problem: {}", *why);
    return;
  }
  const DeviceProperties& device = backend_.properties();

  // Enumerate, Default first: it is the reference and the first "best so far" of screening.
  std::vector<Candidate> candidates;
  for (auto& s : registry_.enumerate(device.backend, problem, options_.search)) {
    Candidate c;
    c.solution = std::move(s);
    c.report.solution = c.solution->name();
    c.is_default = c.report.solution == kDefaultSolutionName;
    candidates.push_back(std::move(c));
  }
  std::stable_partition(candidates.begin(), candidates.end(),
                        [](const Candidate& c) { return c.is_default; });
  const int total = static_cast<int>(candidates.size());
  int done = 0;
  auto finish = [&](Candidate& c) {
    c.alive = false;
    ++done;
    if (progress) progress(c.report, done, total);
  };

  // Drop what cannot run, keeping the reason; a repeated name could not be told apart in a
  // results file, so only its first holder competes.
  std::set<std::string, std::less<>> names;
  std::size_t workspace_bytes = 0;
  for (auto& c : candidates) {
    if (!names.insert(c.report.solution).second) {
      c.report.disposition = Disposition::Failed;
      c.report.reason = "another candidate has the same name";
      c.is_default = false;
      finish(c);
      continue;
    }
    Support support;
    std::size_t needs = 0;
    if (!guarded(c, "supports()", [&] {
          support = c.solution->supports(problem);
          if (support) needs = c.solution->workspace_bytes(problem);
        })) {
      finish(c);
      continue;
    }
    if (support && needs > options_.search.max_workspace_bytes) {
      support =
          Support::no(fmt::format("needs {:.1f} MiB of workspace, more than the {:.1f} MiB allowed",
                                  mib(needs), mib(options_.search.max_workspace_bytes)));
    }
    if (!support) {
      c.report.disposition = Disposition::Unsupported;
      c.report.reason = support.reason;
      finish(c);
      continue;
    }
    workspace_bytes = std::max(workspace_bytes, needs);
  }
  auto default_it = std::find_if(candidates.begin(), candidates.end(),
                                 [](const Candidate& c) { return c.is_default; });
  if (default_it == candidates.end()) {
    // Most likely its provider failed to enumerate: that failure is the news, not the absence.
    std::string failures;
    for (const auto& c : candidates) {
      if (c.report.solution.ends_with(kEnumerationFailedSuffix)) {
        failures += fmt::format("; {}: {}", c.report.solution, c.report.reason);
      }
    }
    report.error = fmt::format("no '{}' solution is registered for backend '{}'{}",
                               kDefaultSolutionName, device.backend, failures);
  } else if (!default_it->alive) {
    report.error = fmt::format("'{}' cannot run this problem: {}", kDefaultSolutionName,
                               default_it->report.reason);
  }
  // Also where the problem ends early: candidates still in the running were never measured, and
  // say so instead of keeping the "slower" a report starts with.
  auto collect = [&] {
    for (auto& c : candidates) {
      if (c.alive && !report.error.empty()) {
        c.report.disposition = Disposition::Failed;
        c.report.reason = fmt::format("not tuned: {}", report.error);
        finish(c);
      }
      report.candidates.push_back(c.report);
    }
  };
  if (!report.error.empty()) return collect();
  Candidate& reference = *default_it;

  // Memory: one set must fit next to the fixed buffers; rotation takes what the budget allows.
  const std::size_t available = backend_.available_memory_bytes();
  const OperandMemory memory =
      plan_operand_memory(backend_, problem, workspace_bytes, options_.memory_fraction,
                          options_.timing.rotating_buffer_mb, options_.timing.flush_cache);
  report.rotation = memory.rotation;
  if (!report.rotation.fits) {
    report.error = fmt::format(
        "operands need {:.1f} MiB (+{:.1f} MiB workspace and check buffers), more than {:.0f}% of "
        "the {:.1f} MiB available on {}",
        mib(memory.set_bytes), mib(memory.fixed_bytes), 100 * options_.memory_fraction,
        mib(available), device.name);
    return collect();
  }
  std::optional<OperandSets> sets;
  try {
    sets.emplace(backend_, problem, report.rotation, workspace_bytes, options_.seed, options_.alpha,
                 options_.beta);
  } catch (const DeviceError&) {
    throw;
  } catch (const std::exception& e) {
    report.error = fmt::format("could not allocate the operands ({}): {}",
                               report.rotation.describe(), e.what());
    return collect();
  }
  Profiler profiler(backend_, *sets, report.rotation.flush, options_.timing.mode);
  // Warmup runs each iteration as issued, whatever the timing mode: a library loads a kernel on
  // its first launch (CUDA's lazy loading), which waits for the device to go idle, and behind a
  // held stream that wait would last until the hold's timeout (0.1-2 s more per problem on an
  // H200, where hundreds of candidates each loaded theirs).
  Profiler warmup_profiler(backend_, *sets, report.rotation.flush, TimingMode::Immediate);
  const TimingPolicy& timing = options_.timing;

  // One phase of one candidate; false (and Failed) when it threw or failed.
  auto phase = [&](Candidate& c, const PhaseCaps& caps, std::string_view name, Measurement& out,
                   Profiler& with, double stop_above_ms = 0) {
    if (!guarded(c, name, [&] { out = with.run(*c.solution, problem, caps, stop_above_ms); })) {
      return false;
    }
    if (out.status) return true;
    c.alive = false;
    c.report.disposition = Disposition::Failed;
    c.report.reason = fmt::format("{}: {}", name, out.status.error);
    c.report.stats = out.stats;
    return false;
  };
  // Without its reference and baseline the problem cannot be tuned; what had not finished yet is
  // recorded as not tuned rather than left looking measured.
  auto reference_failed = [&] {
    reference.report.disposition = Disposition::Failed;
    reference.alive = true;  // so that the loop below reports it once
    report.error = fmt::format("'{}' failed: {}", kDefaultSolutionName, reference.report.reason);
    for (auto& c : candidates) {
      if (!c.alive) continue;
      if (&c != &reference) {
        c.report.disposition = Disposition::Failed;
        c.report.reason = fmt::format("not tuned: '{}' failed", kDefaultSolutionName);
      }
      finish(c);
    }
    collect();
  };

  // Warmup and screening: each candidate's warmup right before its few capped screening
  // iterations, so that screening sees it warm. Default goes first (enumeration put it there), so
  // its own screening runs uncut and its median sets the early cut of the others'.
  double cut_ms = 0;
  for (auto& c : candidates) {
    if (!c.alive) continue;
    Measurement m;
    const bool ok =
        (!warmup_enabled(timing) || phase(c, warmup_caps(timing), "warmup", m, warmup_profiler)) &&
        (!screening_enabled(timing) ||
         phase(c, screening_caps(timing), "screening", m, profiler, cut_ms));
    if (!ok) {
      if (c.is_default) return reference_failed();
      finish(c);
      continue;
    }
    if (screening_enabled(timing)) {
      c.report.stats = m.stats;
      c.report.tflops = tflops_at(problem, m.stats.median_ms);
      c.screening_cut = m.cut_short;
      if (c.is_default) cut_ms = screening_cut_ms(timing, m.stats.median_ms);
    }
  }

  // Default's output, the reference of the numerical check.
  const bool check = options_.check.enabled();
  OutputChecker checker(backend_, *sets, problem, options_.check);
  // What a check counts: real and imaginary parts apart.
  const std::int64_t compared =
      problem.m * problem.n * problem.batch * (info(problem.c_type).is_complex ? 2 : 1);
  if (check) {
    CheckResult self;
    guarded(reference, "reference run", [&] {
      sets->reset_check_output();
      const RunStatus status =
          reference.solution->run(problem, sets->check_operands(), backend_.stream());
      if (!status) GEMMTUNE_THROW("{}", status.error);
      // Default is compared with itself too: a reference with NaN or unwritten elements is no
      // reference, and that must end the problem rather than fail every candidate.
      self = checker.take_reference();
    });
    if (!reference.alive) return reference_failed();
    if (!self.passed) {
      // Compared with itself, only a NaN or an Inf (or an element it never wrote: poisoned with
      // NaN) can differ.
      reference.report.reason =
          fmt::format("its output holds NaN or Inf: {}", self.describe(compared));
      return reference_failed();
    }
  }
  auto incorrect = [&](Candidate& c) {  // true when checked and wrong (or failed to run)
    if (!check) return false;
    CheckResult result;
    const bool ran = guarded(c, "numerical check run", [&] {
      sets->reset_check_output();
      const RunStatus status = c.solution->run(problem, sets->check_operands(), backend_.stream());
      if (!status) {
        c.alive = false;
        c.report.disposition = Disposition::Failed;
        c.report.reason = fmt::format("numerical check run: {}", status.error);
        return;
      }
      result = checker.check_candidate();
    });
    if (!ran || !c.alive) return true;
    if (result.passed) return false;
    c.report.disposition = Disposition::Incorrect;
    c.report.reason = result.describe(compared);
    return true;
  };

  // Check and screen together, fastest screening median first: the bar a candidate must clear is
  // keep_factor × the best median of a *correct* candidate (Default included), so a fast wrong
  // candidate can never screen out a correct one, and what is clearly slower than that bar is
  // dropped without the cost of a check. Without screening every survivor is checked.
  std::vector<Candidate*> order;
  for (auto& c : candidates) {
    if (c.alive && !c.is_default) order.push_back(&c);
  }
  const bool screened = screening_enabled(timing);
  if (screened) {
    std::stable_sort(order.begin(), order.end(), [](const Candidate* x, const Candidate* y) {
      return x->report.stats.median_ms < y->report.stats.median_ms;
    });
  }
  double best_ms = reference.report.stats.median_ms;
  std::string best_name = reference.report.solution;
  int finalists = 0;
  for (Candidate* c : order) {
    const double median = c->report.stats.median_ms;
    if (c->screening_cut) {
      c->report.disposition = Disposition::ScreenedOut;
      c->report.reason =
          fmt::format("screening cut after its first sample: {:.4g} ms > {} x {} x {:.4g} ms of {}",
                      median, kScreeningCutFactor, timing.screening_keep_factor,
                      reference.report.stats.median_ms, kDefaultSolutionName);
      finish(*c);
      continue;
    }
    if (screened && timing.max_finalists > 0 && finalists >= timing.max_finalists) {
      c->report.disposition = Disposition::ScreenedOut;
      c->report.reason = fmt::format("screening median {:.4g} ms: not among the {} fastest", median,
                                     timing.max_finalists);
      finish(*c);
      continue;
    }
    // A keep factor of 0 (or less) is no bar, as for the screening cut (screening_cut_ms).
    if (screened && timing.screening_keep_factor > 0 &&
        median > timing.screening_keep_factor * best_ms) {
      c->report.disposition = Disposition::ScreenedOut;
      c->report.reason = fmt::format("screening median {:.4g} ms > {} x {:.4g} ms of {}", median,
                                     timing.screening_keep_factor, best_ms, best_name);
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

  // Measurement of the survivors (warm: they ran in screening and in the check), in interleaved
  // rounds: each round gives every survivor its share of what is left of its caps, in an order
  // that turns from round to round (round_order.hpp), and the samples of all rounds are pooled. A
  // device's speed drifts within a measurement phase (fresh from the idle numerical checks, an H200
  // ran 0.2-3 ms GEMMs 15-25% faster for a while), and measuring each survivor in one block handed
  // that head start to whoever came first: always Default. False when Default failed.
  auto measure_in_rounds = [&](const std::vector<Candidate*>& group, const PhaseCaps& caps,
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
        if (!phase(c, share, name, m, profiler)) {
          if (c.is_default) return false;
          finish(c);
          continue;
        }
        c.samples.insert(c.samples.end(), m.samples_ms.begin(), m.samples_ms.end());
        c.round_medians[static_cast<std::size_t>(round)] = m.stats.median_ms;
      }
    }
    for (Candidate* c : group) {
      if (!c->alive) continue;
      c->report.stats = summarize(c->samples);
      c->report.tflops = tflops_at(problem, c->report.stats.median_ms);
      c->report.disposition = Disposition::Slower;
      c->report.reason.clear();
    }
    return true;
  };
  std::vector<Candidate*> survivors;
  for (auto& c : candidates) {
    if (c.alive) survivors.push_back(&c);
  }
  const PhaseCaps caps = measurement_caps(timing);
  if (settle_enabled(timing) && !caps.empty() && survivors.size() > 1) {
    Measurement settled;  // untimed in effect: its samples are dropped
    if (!phase(reference, settle_caps(timing), "settle", settled, profiler)) {
      return reference_failed();
    }
  }
  if (!measure_in_rounds(survivors, caps, "measurement")) return reference_failed();

  // The challengers by measured median, fastest first.
  std::vector<Candidate*> challengers;
  for (Candidate* c : survivors) {
    if (c->alive && !c->is_default) challengers.push_back(c);
  }
  std::stable_sort(challengers.begin(), challengers.end(),
                   [](const Candidate* x, const Candidate* y) {
                     return x->report.stats.median_ms < y->report.stats.median_ms;
                   });

  // Confirmation: the fastest few challengers and Default measured again, in fresh interleaved
  // rounds, and the verdict taken on these samples alone. The fastest of several finalists is
  // partly the one whose samples happened to come out low, so the measurement that picked it
  // overstates its lead (the winner's curse); samples taken after the pick carry no such bias.
  // On an H200, winners the tuner had measured 1.5-2.5% ahead of Default were 1.2% ahead when
  // measured again, and those under 1.5% 0.2% ahead (bench/results/2026-11-22-h200-min-gain.md).
  bool confirmed = false;
  if (timing.confirmation_contenders > 0 && !challengers.empty()) {
    const std::size_t contenders =
        std::min(challengers.size(), static_cast<std::size_t>(timing.confirmation_contenders));
    std::vector<Candidate*> group{&reference};
    group.insert(group.end(), challengers.begin(), challengers.begin() + contenders);
    // Long enough for one iteration of the slowest in every round (the paired test needs the
    // rounds), though never longer than the measurement: half of a 30 ms cap is one sample of a
    // 15 ms GEMM.
    double slowest_ms = 0;
    for (const Candidate* c : group) slowest_ms = std::max(slowest_ms, c->report.stats.median_ms);
    const PhaseCaps confirmation =
        confirmation_caps(timing, kRoundHeadroom * kMeasurementRounds * slowest_ms);
    // What the measurement found, for the case where a contender fails on the way.
    std::vector<MeasuredSamples> measured;
    for (const Candidate* c : group) measured.push_back(c->measured());
    if (!measure_in_rounds(group, confirmation, "confirmation")) return reference_failed();
    if (std::all_of(group.begin(), group.end(), [](const Candidate* c) { return c->alive; })) {
      confirmed = true;
      for (std::size_t i = contenders; i < challengers.size(); ++i) {
        challengers[i]->report.reason = fmt::format(
            "measurement median {:.4g} ms: not among the {} fastest confirmed beside Default",
            challengers[i]->report.stats.median_ms, contenders);
      }
      challengers.resize(contenders);
      std::stable_sort(challengers.begin(), challengers.end(),
                       [](const Candidate* x, const Candidate* y) {
                         return x->report.stats.median_ms < y->report.stats.median_ms;
                       });
    } else {
      // A contender failed after a clean measurement: the confirmation no longer covers the
      // fastest finalists, so the measurement decides among those still alive, as without it.
      for (std::size_t i = 0; i < group.size(); ++i) {
        if (group[i]->alive) group[i]->restore(measured[i]);
      }
      std::erase_if(challengers, [](const Candidate* c) { return !c->alive; });
    }
  }

  // Selection: the lowest median, if it beats Default beyond the noise of either test; else
  // Default. The paired test pairs the rounds both ran: a candidate faster than Default spends its
  // duration cap in more rounds than Default where one iteration takes more than a round's share
  // of the cap (4-30 ms GEMMs at the default caps).
  Candidate* fastest = challengers.empty() ? nullptr : challengers.front();
  Candidate* winner = &reference;
  // The paired test asks one standard error more: its mean has only rounds − 1 = 7 degrees of
  // freedom, at which 2 standard errors still pass a candidate no faster than Default about one
  // time in 25 (3: one in 100). On an H200 the paired test at 2 picked a prefill configuration
  // 0.7% ahead in the tuner's rounds that the benchmark then found 2.7% behind
  // (bench/results/2026-11-21-h200-run7.md, #68).
  const auto beats = [&](const Candidate& c) {
    if (c.report.stats.median_ms > (1.0 - options_.min_gain) * reference.report.stats.median_ms) {
      return false;
    }
    const double margin = options_.default_margin_sigmas;
    return beats_default(c.samples, reference.samples, margin) ||
           (c.round_medians.size() == reference.round_medians.size() &&
            c.report.stats.median_ms < reference.report.stats.median_ms &&
            beats_default_paired(c.round_medians, reference.round_medians, margin + 1));
  };
  if (fastest != nullptr && beats(*fastest)) {
    winner = fastest;
  } else if (fastest != nullptr && reference.report.stats.median_ms > 0 &&
             fastest->report.stats.median_ms < reference.report.stats.median_ms) {
    // Why the fastest did not replace Default, for whoever reads the measurements.
    const double gain = 1.0 - fastest->report.stats.median_ms / reference.report.stats.median_ms;
    fastest->report.reason = fmt::format(
        "{} median {:.2f}% below Default's, {}", confirmed ? "confirmation" : "measurement",
        100 * gain,
        gain < options_.min_gain
            ? fmt::format("less than the minimum gain of {:.2f}%", 100 * options_.min_gain)
        : fastest->samples.size() < 2 || reference.samples.size() < 2
            ? fmt::format("within the noise (one sample, taken as {:.0f}% noise: a longer "
                          "--max-tuning-duration-ms gives more)",
                          100 * kSingleSampleNoise)
            : std::string("within the noise"));
  }
  winner->report.disposition = Disposition::Winner;
  // The measured candidates are reported once the selection is made, so that each comes with its
  // final disposition (the winner as Winner, the fastest loser with its reason).
  for (Candidate* c : survivors) {
    if (!c->alive) continue;
    ++done;
    if (progress) progress(c->report, done, total);
  }
  report.winner = winner->report.solution;
  report.winner_stats = winner->report.stats;
  report.default_stats = reference.report.stats;
  collect();
}

}  // namespace gemmtune

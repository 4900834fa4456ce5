#include "drivers/bench/bench_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <vector>

#include "db/atomic_file.hpp"
#include "db/results_store.hpp"
#include "drivers/bench/pair_measure.hpp"
#include "drivers/solution_resolver.hpp"
#include "tuner/error.hpp"
#include "validator/compare.hpp"

namespace gemmtune::bench {
namespace {

std::atomic<bool> g_stop{false};

std::vector<double> to_us(const std::vector<double>& samples_ms) {
  std::vector<double> us;
  us.reserve(samples_ms.size());
  for (double ms : samples_ms) us.push_back(ms * 1e3);
  return us;
}

// What the measurement of one solution yields for its row.
void fill_from(BenchRow& row, const Measurement& m, const GemmFootprint& footprint,
               const DevicePeaks& peaks) {
  if (!m.status) {
    row.status = RowStatus::Failed;
    row.error = fmt::format("{} failed: {}", row.solution, m.status.error);
    return;
  }
  if (m.samples_ms.empty()) {
    row.status = RowStatus::Failed;
    row.error = fmt::format("{} gave no timing sample", row.solution);
    return;
  }
  row.metrics = compute_metrics(footprint, to_us(m.samples_ms), peaks, row.gemm_dtype);
}

void fail_rows(BenchRow& def, BenchRow& tuned, const std::string& why) {
  for (BenchRow* r : {&def, &tuned}) {
    if (r->status != RowStatus::Ok) continue;
    r->status = RowStatus::Failed;
    r->error = why;
    r->metrics.reset();
  }
}

class CaseRunner {
 public:
  CaseRunner(Backend& backend, const Registry& registry, const BenchOptions& options,
             const DevicePeaks& peaks, const TunedSolutions* tuned, BenchObserver& observer,
             BenchResult& result)
      : backend_(backend),
        registry_(registry),
        options_(options),
        peaks_(peaks),
        tuned_(tuned),
        observer_(observer),
        result_(result),
        tuner_(backend, registry, options.tuner) {}

  // Fills both rows; throws DeviceError when the device is lost.
  void run(const BenchCase& c, std::size_t index, std::size_t total, BenchRow& def,
           BenchRow& tuned) {
    const std::string backend_name = backend_.properties().backend;
    const Problem problem = problem_for_case(c);
    for (BenchRow* r : {&def, &tuned}) {
      r->gemm_dtype = std::string(info(problem.dtype()).cli_name);
      r->op_signature = problem.op_signature();
      r->params_signature = problem.params_signature();
    }
    if (auto why = problem.invalid_reason()) return fail_rows(def, tuned, *why);
    auto base = resolve_solution(registry_, backend_name, problem, kDefaultSolutionName,
                                 options_.tuner.search);
    if (!base.solution) {
      return fail_rows(def, tuned, fmt::format("Default cannot run it: {}", base.warning));
    }

    // The tuned solution: stored, or tuned here.
    std::string name;
    std::string lookup_key_text;
    if (tuned_) {
      auto it = tuned_->by_signature.find({problem.op_signature(), problem.params_signature()});
      if (it != tuned_->by_signature.end()) {
        name = it->second;
        tuned.source = kSourceResults;
      }
    }
    std::string tuning_error;
    if (name.empty()) {
      observer_.on_case(c, index, total, "tuning");
      const TuningReport report = tuner_.tune(problem);
      if (report.fatal) throw DeviceError(__FILE__, __LINE__, report.error);
      tuned.source = kSourceTuned;
      if (report.ok()) {
        name = report.winner;
      } else {
        tuning_error = fmt::format("not tuned: {}", report.error);
      }
    }
    std::unique_ptr<Solution> other;
    if (!name.empty() && name != kDefaultSolutionName) {
      auto r = resolve_solution(registry_, backend_name, problem, name, options_.tuner.search);
      if (r.fell_back) {
        note(fmt::format("{} {}: {}", c.shape_text(), c.dtype, r.warning));
        tuned.source = kSourceFallback;
        name = kDefaultSolutionName;
      } else {
        other = std::move(r.solution);
      }
    }

    observer_.on_case(c, index, total, "measuring");
    MeasureOptions m;
    m.warmup_ms = options_.warmup_ms;
    m.warmup_iterations = options_.warmup_iterations;
    m.iterations = c.iterations;
    m.timing = options_.tuner.timing;
    m.seed = options_.tuner.seed;
    m.memory_fraction = options_.memory_fraction;
    const PairMeasurement pm = measure_pair(backend_, problem, *base.solution, other.get(), m);
    const GemmFootprint footprint = gemm_footprint(problem);
    def.solution = base.solution->name();
    def.conditions = tuned.conditions = pm.rotation.describe();
    fill_from(def, pm.baseline, footprint, peaks_);
    if (!tuning_error.empty()) {
      tuned.status = RowStatus::Failed;
      tuned.error = tuning_error;
      return;
    }
    if (other) {
      tuned.solution = other->name();
      fill_from(tuned, *pm.other, footprint, peaks_);
    } else {  // Default is the tuned solution: the same numbers
      tuned.solution = def.solution;
      tuned.status = def.status;
      tuned.error = def.error;
      tuned.metrics = def.metrics;
    }
    if (def.metrics && tuned.metrics && tuned.metrics->avg_latency_us > 0) {
      tuned.speedup_vs_default = def.metrics->avg_latency_us / tuned.metrics->avg_latency_us;
    }
  }

  void note(std::string text) {
    observer_.on_note(text);
    result_.notes.push_back(std::move(text));
  }

 private:
  Backend& backend_;
  const Registry& registry_;
  const BenchOptions& options_;
  const DevicePeaks& peaks_;
  const TunedSolutions* tuned_;
  BenchObserver& observer_;
  BenchResult& result_;
  Tuner tuner_;
};

}  // namespace

std::string_view to_string(RowKind kind) {
  return kind == RowKind::Default ? "default" : "tuned";
}

std::string_view to_string(RowStatus status) {
  switch (status) {
    case RowStatus::Ok:
      return "ok";
    case RowStatus::Failed:
      return "failed";
    case RowStatus::Skipped:
      return "skipped";
  }
  return "?";
}

bool BenchResult::complete() const {
  return !interrupted && std::all_of(rows.begin(), rows.end(),
                                     [](const BenchRow& r) { return r.status == RowStatus::Ok; });
}

TunedSolutions load_tuned_solutions(const std::string& file, const Environment& environment) {
  TunedSolutions out;
  out.file = file;
  // Opening a .db that is not there would create it, empty: a misspelt name must be an error.
  require_regular_file("--results " + file, file);
  auto tables = open_results_store(file)->load();
  // This environment's own table first, then the others measured here, so that theirs win.
  const auto rank = [&](const ResultsTable& t) {
    return environment_rank(t.environment, environment);
  };
  std::stable_sort(tables.begin(), tables.end(),
                   [&](const ResultsTable& a, const ResultsTable& b) { return rank(a) > rank(b); });
  for (const auto& table : tables) {
    out.this_environment = out.this_environment || rank(table) > 0;
    for (const auto& e : table.entries) {
      out.by_signature.emplace(std::make_pair(e.op_signature, e.params_signature), e.solution);
    }
  }
  return out;
}

std::vector<std::string> describe_measurement(const BenchOptions& o) {
  const auto& t = o.tuner.timing;
  return {
      fmt::format(
          "per case and solution: one call as issued, a warm-up of {} ms of device "
          "time and {} iteration(s), untimed, then the case's iterations, one timer pair each ({} "
          "timing), in up to 4 rounds interleaving Default and the tuned solution (order "
          "reversed every other round)",
          o.warmup_ms, o.warmup_iterations, to_string(t.mode)),
      fmt::format("operands: random values in [-1, 1], rotating copies covering {}{}",
                  t.rotating_buffer_mb ? fmt::format("{} MiB", *t.rotating_buffer_mb)
                                       : std::string("twice the last-level cache"),
                  t.flush_cache ? ", cache flushed before every iteration" : ""),
      "C = A(MxK) . B(KxN), row-major as torch.matmul: the column-major call nn m=N n=M k=K "
      "(float8: ScaledGemm tn)",
      "tuned solution: from the results file where it has the problem, else tuned on the spot",
  };
}

void request_bench_stop() noexcept {
  g_stop.store(true);
}

BenchResult run_bench(Backend& backend, const Registry& registry, std::span<const BenchCase> cases,
                      const BenchOptions& options, const DevicePeaks& peaks,
                      const TunedSolutions* tuned, BenchObserver& observer) {
  g_stop.store(false);
  BenchResult result;
  CaseRunner runner(backend, registry, options, peaks, tuned, observer, result);
  if (tuned && !tuned->this_environment) {
    runner.note(
        fmt::format("{} was measured in another environment; its solutions are used "
                    "where they run here",
                    tuned->file));
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (g_stop.load()) {
      result.interrupted = true;
      runner.note(
          fmt::format("interrupted: {} of {} case(s) not run", cases.size() - i, cases.size()));
      break;
    }
    const BenchCase& c = cases[i];
    BenchRow def;
    def.case_index = i;
    def.bench_case = c;
    def.kind = RowKind::Default;
    def.solution = kDefaultSolutionName;
    def.source = kSourceDefault;
    BenchRow tuned_row = def;
    tuned_row.kind = RowKind::Tuned;
    tuned_row.source = kSourceTuned;
    tuned_row.solution.clear();
    bool device_lost = false;
    if (!c.runnable()) {
      for (BenchRow* r : {&def, &tuned_row}) {
        r->status = RowStatus::Skipped;
        r->error = c.skip_reason;
      }
    } else {
      try {
        runner.run(c, i, cases.size(), def, tuned_row);
      } catch (const DeviceError& e) {
        fail_rows(def, tuned_row, fmt::format("the device failed: {}", e.message()));
        device_lost = true;
      } catch (const std::exception& e) {
        fail_rows(def, tuned_row, e.what());
      }
    }
    for (const BenchRow* r : {&def, &tuned_row}) {
      if (r->status == RowStatus::Failed) {
        runner.note(fmt::format("{} {} ({}): {}: {}", c.shape_text(), c.dtype, c.origin,
                                to_string(r->kind), r->error));
      }
    }
    result.rows.push_back(std::move(def));
    result.rows.push_back(std::move(tuned_row));
    ++result.cases_run;
    observer.on_rows(result);
    if (device_lost) {
      result.interrupted = true;
      runner.note(fmt::format("the device failed; {} case(s) not run", cases.size() - i - 1));
      break;
    }
  }
  return result;
}

}  // namespace gemmtune::bench

#include "drivers/tune_run.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>

#include "db/results_store.hpp"
#include "db/untuned_file.hpp"
#include "tuner/error.hpp"
#include "validator/collect.hpp"
#include "validator/compare.hpp"

namespace gemmtune {
namespace {

std::atomic<bool> g_stop_requested{false};

std::vector<UntunedEntry> read_problems(const TuneOptions& options, Diagnostics& diagnostics) {
  std::vector<UntunedEntry> entries;
  if (!options.inputs.empty()) entries = read_untuned_patterns(options.inputs, diagnostics);
  for (const auto& inline_problem : options.problems) {
    for (auto& e : parse_untuned(inline_problem, "--problem", diagnostics)) {
      entries.push_back(std::move(e));
    }
  }
  dedupe_untuned(entries);
  return entries;
}

// The signatures the output already holds for `environment`; refuses an output that cannot
// take results from this environment without mixing.
std::set<std::pair<std::string, std::string>> already_tuned(ResultsStore& store,
                                                            const Environment& environment) {
  std::set<std::pair<std::string, std::string>> done;
  if (!std::filesystem::exists(store.path())) return done;
  Diagnostics output_diagnostics;  // bad lines of the output are kept there as they are
  for (const auto& table : store.load(output_diagnostics)) {
    if (table.environment == environment) {
      for (const auto& e : table.entries) done.emplace(e.op_signature, e.params_signature);
      return done;
    }
    const bool csv_holds_results = store.kind() == "csv" &&
                                   (!table.entries.empty() || !table.environment.empty());
    if (csv_holds_results) {
      const auto comparison = compare_environments(table.environment, environment);
      throw ValidatorMismatchError(fmt::format(
          "{} holds results measured in another environment; a CSV file holds one environment, "
          "so nothing was tuned. Write to another file or to a SQLite database (.db). "
          "Validators:\n{}",
          store.path().string(), comparison.explain()));
    }
  }
  return done;
}

}  // namespace

void request_tune_stop() noexcept { g_stop_requested.store(true); }

TuneSummary run_tune(const TuneOptions& options, Diagnostics& diagnostics, TuneObserver& observer,
                     const std::string& command_line) {
  const auto started = std::chrono::system_clock::now();
  g_stop_requested.store(false);
  TuneSummary summary;
  std::vector<UntunedEntry> entries = read_problems(options, diagnostics);
  summary.bad_lines = diagnostics.error_count();
  summary.requested = entries.size();
  if (entries.empty()) {
    throw InputError(summary.bad_lines
                         ? fmt::format("no usable problems: {}", diagnostics.summary())
                         : std::string("no problems to tune: give untuned files or --problem"));
  }

  BackendSession session = open_backend(options.backend, options.device);
  Backend& backend = *session.backend;
  const auto& props = backend.properties();
  summary.device = fmt::format("{} device {}: {}", props.backend, props.ordinal, props.name);
  const Environment environment = collect_environment(backend);

  auto store = open_results_store(options.output);
  const auto done = already_tuned(*store, environment);
  std::vector<const UntunedEntry*> todo;
  for (const auto& e : entries) {
    if (done.count({e.op_signature, e.params_signature})) {
      ++summary.already_tuned;
    } else {
      todo.push_back(&e);
    }
  }
  observer.on_start(summary.device, todo.size(), summary.already_tuned);

  Tuner tuner(backend, *session.registry, options.tuner);
  bool device_lost = false;
  std::string device_lost_reason;
  for (std::size_t i = 0; i < todo.size(); ++i) {
    const UntunedEntry& entry = *todo[i];
    if (g_stop_requested.load()) {
      summary.interrupted = true;
      summary.failed.push_back({entry.op_signature, entry.params_signature, "interrupted"});
      continue;
    }
    if (device_lost) {
      summary.failed.push_back({entry.op_signature, entry.params_signature,
                                fmt::format("not tried: {}", device_lost_reason)});
      continue;
    }
    observer.on_problem(entry, i, todo.size());
    TuningReport report = tuner.tune(entry.problem, [&](const CandidateReport& c, int d, int t) {
      observer.on_candidate(c, d, t);
    });
    observer.on_result(report);
    if (!report.ok()) {
      summary.failed.push_back({entry.op_signature, entry.params_signature, report.error});
      if (report.fatal) {
        device_lost = true;
        device_lost_reason = fmt::format("the device failed earlier ({})", report.error);
      }
      continue;
    }
    ResultEntry result{entry.op_signature, entry.params_signature, report.winner,
                       report.winner_stats.median_ms, entry.extra};
    store->append(environment, result, report.candidates);
    summary.tuned.push_back(std::move(report));
  }

  const char* status = summary.interrupted ? "interrupted"
                       : summary.complete() ? "ok"
                                            : "partial";
  store->record_run({command_line, describe(options), started, std::chrono::system_clock::now(),
                     status});
  return summary;
}

}  // namespace gemmtune

#include "drivers/tune_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "db/results_store.hpp"
#include "db/untuned_file.hpp"
#include "drivers/monitor/start_monitor.hpp"
#include "drivers/multi/coordinator.hpp"
#include "drivers/multi/output_names.hpp"
#include "drivers/tune_claims.hpp"
#include "tuner/error.hpp"
#include "validator/collect.hpp"

namespace gemmtune {
namespace {

// Every file the run may write: -o itself (with its shard's rank), and in a multi-device run each
// device's file, the gathered file and the copies (output_names.hpp).
std::vector<std::filesystem::path> output_paths(const TuneOptions& options) {
  std::vector<std::filesystem::path> out{options.output, with_rank(options.output, options.shard)};
  if (options.devices.empty()) return out;
  const OutputNames names(options.output, options.shard);
  out.push_back(names.gathered());
  for (const int ordinal : options.devices) {
    out.push_back(names.per_device(ordinal));
    out.push_back(names.copy(ordinal));
  }
  for (const auto& [ordinal, path] : names.existing_per_device()) {
    out.push_back(path);
    out.push_back(names.copy(ordinal));
  }
  return out;
}

std::atomic<int> g_stop_requests{0};  // lock-free, so a signal handler may touch it

// One device, in this process.
void tune_here(const TuneOptions& options, const std::vector<UntunedEntry>& entries,
               TuneSummary& summary, TuneObserver& observer, const std::string& command_line,
               Diagnostics& diagnostics) {
  const auto started = std::chrono::system_clock::now();
  BackendSession session = open_backend(options.backend, options.device);
  Backend& backend = *session.backend;
  const auto& props = backend.properties();
  summary.device = fmt::format("{} device {}: {}", props.backend, props.ordinal, props.name);
  const Environment environment = collect_environment(backend);

  auto store = open_results_store(with_rank(options.output, options.shard));
  require_appendable(store->path());
  SignatureSet done;
  add_tuned_signatures(*store, environment, done, &diagnostics);
  std::vector<const UntunedEntry*> todo;
  for (const auto& e : entries) {
    if (done.count({e.op_signature, e.params_signature})) {
      ++summary.already_tuned;
    } else {
      todo.push_back(&e);
    }
  }
  monitor::MonitorOptions monitor_options;
  monitor_options.interval_ms = options.monitor_interval_ms;
  monitor::MonitorStart gpu = monitor::start_monitor_for(backend, monitor_options);
  if (!gpu.note.empty()) observer.on_note(gpu.note);
  observer.on_start(summary.device, todo.size(), summary.already_tuned);

  Tuner tuner(backend, *session.registry, options.tuner);
  bool device_lost = false;
  std::string device_lost_reason;
  TuneClaims claims(store->path(), environment);
  std::size_t begun = 0;  // problems measured so far, for the progress line
  // Tunes one problem unless it needs no tuning (or cannot have it); false where another run on
  // this output is tuning it now, and `holder` says which. A `deferred` problem (claimed by
  // another run when it first came up) is looked for in the output only once its claim is ours:
  // it is asked about every 200 ms, and the claims file is small where the output may not be.
  const auto tune_unless_claimed = [&](const UntunedEntry& entry, std::string& holder,
                                       bool deferred) {
    if (g_stop_requests.load() > 0) {
      summary.interrupted = true;
      summary.failed.push_back({entry.op_signature, entry.params_signature, "interrupted"});
      return true;
    }
    if (device_lost) {
      summary.failed.push_back({entry.op_signature, entry.params_signature,
                                fmt::format("not tried: {}", device_lost_reason)});
      return true;
    }
    // Another run on the same output (overlapping inputs) may have tuned the problem since the
    // output was read: the store is asked, so that no problem is measured and appended twice.
    const auto already_tuned = [&] {
      if (done.count({entry.op_signature, entry.params_signature}) > 0) return true;
      if (!store->holds(environment, entry.op_signature, entry.params_signature)) return false;
      done.emplace(entry.op_signature, entry.params_signature);
      return true;
    };
    if (!deferred && already_tuned()) {
      ++summary.already_tuned;
      return true;
    }
    if (auto other = claims.claim(entry.op_signature, entry.params_signature)) {
      holder = std::move(*other);
      return false;
    }
    // Asked again now that the claim is ours: a run lets go of a problem only once its result is
    // saved, so one that finished it just now is seen here.
    if (already_tuned()) {
      claims.release(entry.op_signature, entry.params_signature);
      ++summary.already_tuned;
      return true;
    }
    observer.on_problem(entry, begun++, todo.size());
    std::optional<monitor::MeasurementWindow> window(std::in_place, gpu.monitor.get());
    TuningReport report = tuner.tune(entry.problem, [&](const CandidateReport& c, int d, int t) {
      observer.on_candidate(c, d, t);
    });
    window.reset();
    observer.on_result(report);
    if (!report.ok()) {
      claims.release(entry.op_signature, entry.params_signature);  // another run may try it
      summary.failed.push_back({entry.op_signature, entry.params_signature, report.error});
      if (report.fatal) {
        device_lost = true;
        device_lost_reason = fmt::format("the device failed earlier ({})", report.error);
      }
      return true;
    }
    ResultEntry result{entry.op_signature, entry.params_signature, report.winner,
                       report.winner_stats.median_ms, entry.extra};
    store->append(environment, result, report.candidates);
    claims.release(entry.op_signature, entry.params_signature);
    done.emplace(entry.op_signature, entry.params_signature);
    summary.tuned.push_back(std::move(report));
    return true;
  };

  std::vector<const UntunedEntry*> deferred;  // another run was tuning them when we came to them
  std::string holder;
  for (const UntunedEntry* entry : todo) {
    if (!tune_unless_claimed(*entry, holder, false)) deferred.push_back(entry);
  }
  // Wait for the other runs' results, and tune what they let go of without one (failed, or the
  // run stopped): this run ends with every problem it was given tuned or failed, as without them.
  // Said once the wait is long enough to wonder about: most last a problem's tuning or less.
  const auto say_after = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool waiting_said = false;
  while (!deferred.empty()) {
    std::erase_if(deferred,
                  [&](const UntunedEntry* e) { return tune_unless_claimed(*e, holder, true); });
    if (deferred.empty()) break;
    if (!waiting_said && std::chrono::steady_clock::now() >= say_after) {
      observer.on_note(fmt::format(
          "waiting for {} problem(s) that another tune of {} is tuning ({}; claims in {})",
          deferred.size(), store->path().string(), holder, claims.path().string()));
      waiting_said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (const std::string note = claims.sharing_note(); !note.empty()) observer.on_note(note);

  if (gpu.monitor) {
    gpu.monitor->stop();
    summary.monitor = gpu.monitor->summary();
  }
  const char* status = summary.interrupted ? "interrupted" : summary.complete() ? "ok" : "partial";
  store->record_run(
      {command_line, describe(options), started, std::chrono::system_clock::now(), status});
  summary.outputs.push_back(store->path().string());
}

}  // namespace

void request_tune_stop() noexcept {
  g_stop_requests.fetch_add(1);
}
bool tune_stop_requested() noexcept {
  return g_stop_requests.load() > 0;
}
int tune_stop_requests() noexcept {
  return g_stop_requests.load();
}

TuneSummary run_tune(const TuneOptions& options, Diagnostics& diagnostics, TuneObserver& observer,
                     const std::string& command_line) {
  const auto started = std::chrono::steady_clock::now();
  g_stop_requests.store(0);
  TuneSummary summary;
  summary.shard = options.shard;
  RequestedProblems requested = read_requested_problems(options, diagnostics);
  summary.bad_lines = diagnostics.error_count();
  summary.requested = requested.entries.size();
  summary.all_problems = requested.all;
  if (requested.all == 0) {
    // The lines' own messages too: the caller prints them only after a run.
    std::string lines = diagnostics.format_all();
    if (!lines.empty()) lines.pop_back();
    throw InputError(summary.bad_lines
                         ? fmt::format("no usable problems: {}:\n{}", diagnostics.summary(), lines)
                         : std::string("no problems to tune: give untuned files or --problem"));
  }
  // An untuned file given as the output too would be refused later as a results file of no
  // environment, which says nothing of the mistake. Every file read counts, also one whose lines
  // all repeat an earlier file's (deduped away) or fall to another rank's share.
  const std::vector<std::filesystem::path> outputs = output_paths(options);
  for (const auto& input : requested.files) {
    for (const auto& output : outputs) {
      std::error_code ec;
      if (std::filesystem::equivalent(input, output, ec)) {
        throw InputError(
            output == options.output
                ? fmt::format("{}: the output is also an input; write the results to another "
                              "file (-o)",
                              input.string())
                : fmt::format("{}: the output {} writes this file ({}), which is also an input; "
                              "write the results to another file (-o)",
                              input.string(), options.output, output.string()));
      }
    }
  }
  if (options.devices.empty()) {
    tune_here(options, requested.entries, summary, observer, command_line, diagnostics);
  } else {
    if (options.devices.size() > static_cast<std::size_t>(kMaxDevices)) {
      throw InputError(fmt::format("{} devices: at most {} (one worker process each)",
                                   options.devices.size(), kMaxDevices));
    }
    // GPUs asked for by number where there is none would be played by CPU workers, quietly.
    if (options.backend == BackendKind::Auto &&
        resolve_backend_kind(options.backend) == BackendKind::Cpu) {
      throw InputError(fmt::format(
          "devices {}: no CUDA GPU is visible, so --backend auto chose the CPU, which has one "
          "device; give --workers N to tune with N CPU worker processes, or --backend cpu to "
          "play these devices on the CPU",
          fmt::join(options.devices, ",")));
    }
    // Before any worker starts: a worker on a GPU that is not there, or one that fails on a
    // misspelt provider, would retire its device and leave the run to the others, which would
    // then end partial (exit 5) for a mistake that is the command line's.
    require_devices(options.backend, options.devices);
    const BackendProviders providers = providers_of(options.backend);
    providers.registry->require_providers(providers.backend, options.tuner.search.providers);
    run_multi_tune(options, requested.entries, summary, observer, command_line);
  }
  summary.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace gemmtune

// gemmtune tune UNTUNED... -o RESULTS: offline tuning of recorded GEMMs on one device, or on
// several (--gpus, --devices, --workers: one worker process each, docs/multi-gpu.md), or this
// rank's share under a launcher (--shard, mpirun, srun). `--worker` (internal) is the worker side.
//
// Options mirror PyTorch TunableOp's environment knobs; each is also read from a GEMMTUNE_*
// variable once at start (docs/options.md lists them all; a test keeps it in step with --help).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/command_line.hpp"
#include "cli/config_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/number_checks.hpp"
#include "cli/text_table.hpp"
#include "cli/tuning_options.hpp"
#include "cli/value_checks.hpp"
#include "db/untuned_file.hpp"
#include "drivers/multi/worker_main.hpp"
#include "drivers/tune_run.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cli {
namespace {

struct TuneCliOptions {
  TuneOptions run;
  std::string backend = "auto";
  TuningOptionTexts tuning;  // the knobs that need parsing (cli/tuning_options.hpp)
  int gpus = 0;
  std::vector<int> devices;
  int workers = 0;
  std::string shard;
  bool worker = false;  // internal: the worker side of a multi-device run
  std::vector<const CLI::Option*> device_options;  // --gpus, --devices, --workers
  const CLI::Option* shard_option = nullptr;
  std::string command_line;
  ConfigChoice config;  // --config, --configs-dir, --device-config, --show-config
};

// Progress on a terminal, one redrawn line on stderr; silent when stderr is not a terminal.
class TerminalProgress final : public TuneObserver {
 public:
  explicit TerminalProgress(bool verbose) : tty_(isatty(STDERR_FILENO) != 0), verbose_(verbose) {}

  void on_start(const std::string& device, std::size_t to_tune, std::size_t skipped) override {
    fmt::print(stderr, "Tuning {} problem(s) on {} ({} already tuned in the output)\n", to_tune,
               device, skipped);
    start_ = std::chrono::steady_clock::now();
  }
  void on_problem(const UntunedEntry& entry, std::size_t index, std::size_t total) override {
    current_ = fmt::format("{},{}", entry.op_signature, entry.params_signature);
    index_ = index;
    total_ = total;
    draw(0, 0);
  }
  void on_candidate(const CandidateReport& c, int done, int total) override {
    if (verbose_) {
      clear();
      fmt::print(stderr, "{}\n", format_candidate_line(c));
    }
    draw(done, total);
  }
  void on_result(const TuningReport& report) override {
    clear();
    ++finished_;
    if (!report.ok()) {
      fmt::print(stderr, "  not tuned: {},{}: {}\n", report.problem.op_signature(),
                 report.problem.params_signature(), report.error);
    }
    if (verbose_ && !report.phases.empty()) {
      fmt::print(stderr, "  {:.2f} s: {}\n", report.elapsed_s, describe_phases(report));
    }
  }
  void on_note(const std::string& note) override {
    clear();
    fmt::print(stderr, "  {}\n", note);
  }

 private:
  void draw(int done, int total) {
    if (!tty_) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string eta = "?";
    if (index_ > 0) {
      const double left =
          elapsed / static_cast<double>(index_) * static_cast<double>(total_ - index_);
      eta = fmt::format("{}:{:02}", static_cast<int>(left) / 60, static_cast<int>(left) % 60);
    }
    fmt::print(stderr, "\r\033[K[{}/{}] {:.60} candidates {}/{} ETA {}", index_ + 1, total_,
               current_, done, total, eta);
  }
  void clear() {
    if (tty_) fmt::print(stderr, "\r\033[K");
  }

  bool tty_;
  bool verbose_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::string current_;
  std::size_t index_ = 0, total_ = 0, finished_ = 0;
};

std::string format_results(const TuneSummary& summary) {
  TextTable t;
  t.column("problem")
      .column("winner")
      .column("time_ms", TextTable::Align::Right)
      .column("vs Default", TextTable::Align::Right)
      .column("TFLOPS", TextTable::Align::Right)
      .column("noise", TextTable::Align::Right);
  for (const auto& r : summary.tuned) {
    const double ms = r.winner_stats.median_ms;
    t.add_row({fmt::format("{},{}", r.problem.op_signature(), r.problem.params_signature()),
               r.winner, fmt::format("{:.5f}", ms),
               fmt::format("{:.2f}x", r.speedup_over_default()),
               fmt::format("{:.3f}", ms > 0 ? r.problem.flops() / (ms * 1e-3) / 1e12 : 0.0),
               fmt::format("{:.1f}%", r.winner_stats.noise_percent())});
  }
  return t.render();
}

std::string format_devices(const TuneSummary& summary) {
  TextTable t;
  t.column("device", TextTable::Align::Right)
      .column("tuned", TextTable::Align::Right)
      .column("failed", TextTable::Align::Right)
      .column("busy_s", TextTable::Align::Right)
      .column("GFLOP", TextTable::Align::Right)
      .column("share", TextTable::Align::Right)
      .column("deaths", TextTable::Align::Right)
      .column("status");
  const double total_busy =
      std::accumulate(summary.devices.begin(), summary.devices.end(), 0.0,
                      [](double a, const DeviceLoad& d) { return a + d.busy_s; });
  for (const auto& d : summary.devices) {
    t.add_row({std::to_string(d.ordinal), std::to_string(d.tuned), std::to_string(d.failed),
               fmt::format("{:.2f}", d.busy_s), fmt::format("{:.3f}", d.flops / 1e9),
               fmt::format("{:.1f}%", total_busy > 0 ? 100.0 * d.busy_s / total_busy : 0.0),
               std::to_string(d.worker_deaths),
               d.retired.empty() ? "ok" : "retired: " + d.retired});
  }
  return t.render();
}

// Lock-free, so that the handler may read it.
std::atomic<bool> g_exit_on_second_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// The first request stops after the problem in flight. A second one, where nobody else can stop
// that problem, exits at once: every result already saved is on disk (each save is atomic).
void on_stop_signal(int) {
  request_tune_stop();
  if (g_exit_on_second_stop.load() && tune_stop_requests() > 1) {
    static const char msg[] =
        "\ngemmtune tune: stopped at once (asked twice); the results already saved are kept\n";
    [[maybe_unused]] const auto n = write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(130);
  }
}

// --gpus, --devices, --workers and --shard into the run's devices, backend and shard.
void resolve_devices(TuneCliOptions& cli) {
  TuneOptions& options = cli.run;
  // One of the three, the command line winning over the environment (GEMMTUNE_GPUS, ...), which
  // wins over a configuration file; two set at the level that wins are a mistake.
  const bool set[] = {cli.gpus > 0, !cli.devices.empty(), cli.workers > 0};  // 0: not given
  int level_of[] = {-1, -1, -1};  // 0 a configuration file, 1 the environment, 2 the command line
  std::vector<std::string> named[3];
  for (std::size_t i = 0; i < cli.device_options.size(); ++i) {
    if (!set[i]) continue;
    const CLI::Option& opt = *cli.device_options[i];
    const std::string origin = option_origin(opt);
    const int level = static_cast<int>(option_source(opt));  // OptionSource's order, as above
    level_of[i] = level;
    named[level].push_back(level == 2   ? opt.get_name()
                           : level == 1 ? origin
                                        : fmt::format("{} ({})", opt.get_name(), origin));
  }
  const int winning = *std::max_element(std::begin(level_of), std::end(level_of));
  if (winning == 2 && named[2].size() > 1) {
    throw ExitWith(ExitCode::Usage, "give one of --gpus, --devices and --workers");
  }
  if (winning >= 0 && named[winning].size() > 1) {
    throw ExitWith(ExitCode::Usage,
                   fmt::format("{} are set: set one of them, or give --gpus, --devices or "
                               "--workers, which wins over the environment and configuration "
                               "files",
                               fmt::join(named[winning], " and ")));
  }
  // What the lower levels set besides is overruled.
  if (level_of[0] != winning) cli.gpus = 0;
  if (level_of[1] != winning) cli.devices.clear();
  if (level_of[2] != winning) cli.workers = 0;
  if (cli.workers > 0) {
    if (options.backend == BackendKind::Cuda) {
      throw ExitWith(ExitCode::Usage, "--workers is for the CPU backend; use --gpus or --devices");
    }
    options.backend = BackendKind::Cpu;
    options.devices.resize(static_cast<std::size_t>(cli.workers));
  } else if (cli.gpus > 0) {
    if (options.backend == BackendKind::Cpu) {
      throw ExitWith(ExitCode::Usage, "--gpus is for the CUDA backend; use --workers on the CPU");
    }
    options.backend = BackendKind::Cuda;
    options.devices.resize(static_cast<std::size_t>(cli.gpus));
  }
  std::iota(options.devices.begin(), options.devices.end(), 0);
  if (!cli.devices.empty()) options.devices = cli.devices;  // checked as --devices was parsed
  if (!cli.shard.empty()) {
    // Checked as --shard was parsed; named where it came from in the summary.
    const std::string origin =
        cli.shard_option != nullptr ? option_origin(*cli.shard_option) : "command line";
    options.shard = parse_shard(cli.shard, origin == "command line" ? "--shard" : origin);
  } else if (auto from_launcher = shard_from_environment(std::getenv)) {
    options.shard = *from_launcher;
  }
}

void print_summary(const TuneOptions& options, const TuneSummary& summary) {
  if (!summary.tuned.empty()) fmt::print("\n{}", format_results(summary));
  if (!summary.devices.empty()) fmt::print("\nDevices:\n{}", format_devices(summary));
  for (const auto& note : summary.notes) fmt::print("note: {}\n", note);
  if (summary.shard.active()) {
    fmt::print("\nShard {}/{} (from {}): {} of {} distinct problem(s)\n", summary.shard.index,
               summary.shard.count, summary.shard.source, summary.requested, summary.all_problems);
  }
  // A run that tuned nothing (every problem failed, or a rank with no share) may have written
  // nothing: no file is named that is not there.
  std::vector<std::string> written;
  std::error_code ec;
  for (const auto& path :
       summary.outputs.empty() ? std::vector<std::string>{options.output} : summary.outputs) {
    if (std::filesystem::exists(path, ec)) written.push_back(path);
  }
  fmt::print("\nResults: {}\n", written.empty() ? std::string("none written")
                                                : fmt::format("{}", fmt::join(written, " ")));
  fmt::print(
      "Summary: {} problem(s): {} tuned, {} already tuned (skipped), {} not "
      "tuned; {} bad input line(s)\n",
      summary.requested, summary.tuned.size(), summary.already_tuned, summary.failed.size(),
      summary.bad_lines);
  if (!summary.devices.empty()) fmt::print("Wall time: {:.2f} s\n", summary.wall_s);
  for (const auto& f : summary.failed) {
    fmt::print("  not tuned: {},{}: {}\n", f.op_signature, f.params_signature, f.reason);
  }
}

// The first of the problems' reasons for a run to be partial, if any.
std::optional<std::string> why_problems_partial(const TuneSummary& summary) {
  if (summary.interrupted) return "interrupted; rerun to resume";
  if (!summary.failed.empty()) return "some problems were not tuned";
  if (summary.bad_lines > 0) return "some input lines could not be read (see above)";
  if (!summary.stale_outputs.empty()) {
    return fmt::format("{} left without this run's results (see the notes)",
                       fmt::join(summary.stale_outputs, ", "));
  }
  return std::nullopt;
}

// Why an incomplete run ends partial. Every lost device is named with its reason, also beside
// the problems' reason: the others may have tuned everything, and a device asked for that took
// no part (or stopped early) must not pass unnoticed.
std::string why_partial(const TuneSummary& summary) {
  std::vector<std::string> reasons;
  if (auto problems = why_problems_partial(summary)) reasons.push_back(std::move(*problems));
  const std::vector<const DeviceLoad*> lost = summary.lost_devices();
  for (const DeviceLoad* device : lost) {
    reasons.push_back(fmt::format("device {} was lost ({})", device->ordinal, device->retired));
  }
  if (!lost.empty()) reasons.emplace_back("what was tuned is kept");
  return fmt::format("{}", fmt::join(reasons, "; "));
}

// --devices' list, as it is parsed (so that a configuration file's is refused naming its key):
// sorted; each ordinal once, none negative or above kMaxDeviceOrdinal, at most kMaxDevices.
std::vector<int> checked_devices(std::vector<int> devices) {
  std::sort(devices.begin(), devices.end());
  if (devices.size() > static_cast<std::size_t>(kMaxDevices)) {
    throw CLI::ValidationError("--devices",
                               fmt::format("at most {} devices (one worker process each), not {}",
                                           kMaxDevices, devices.size()));
  }
  if (std::adjacent_find(devices.begin(), devices.end()) != devices.end() ||
      (!devices.empty() && (devices.front() < 0 || devices.back() > kMaxDeviceOrdinal))) {
    throw CLI::ValidationError(
        "--devices",
        fmt::format("each ordinal once, none negative or above {}", kMaxDeviceOrdinal));
  }
  return devices;
}

void run_tune_command(TuneCliOptions& cli) {
  TuneOptions& options = cli.run;
  options.backend = parse_backend_kind(cli.backend);
  apply_tuning_options(cli.tuning, options.tuner);
  options.config = cli.config.text();
  if (cli.worker) {
    const int status = run_worker(options, FaultInjection::from_environment());
    if (status != 0) throw ExitWith(static_cast<ExitCode>(status));
    return;
  }
  if (options.inputs.empty() && options.problems.empty()) {
    throw ExitWith(ExitCode::Usage, "no problems to tune: give untuned files or --problem");
  }
  resolve_devices(cli);

  // One device: the problem in flight runs in this process, and may take minutes (or hang), so a
  // second request exits at once. Several: the coordinator kills the workers' problems instead.
  g_exit_on_second_stop.store(options.devices.empty());
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  Diagnostics diagnostics(options.strict);
  TerminalProgress progress(options.verbose);
  if (options.verbose) fmt::print(stderr, "Options:\n{}", describe(options));
  TuneSummary summary;
  try {
    summary = run_tune(options, diagnostics, progress, cli.command_line);
  } catch (const ValidatorMismatchError& e) {
    throw ExitWith(ExitCode::ValidatorMismatch, e.what());
  }
  if (!diagnostics.empty()) fmt::print(stderr, "{}", diagnostics.format_all());
  print_summary(options, summary);
  if (summary.monitor) {
    std::fflush(stdout);
    fmt::print(stderr, "\n{}", monitor::format_monitor_summary(*summary.monitor));
  }
  if (!summary.complete()) throw ExitWith(ExitCode::Partial, why_partial(summary));
}

}  // namespace

void setup_tune(CLI::App& app) {
  auto cli = std::make_shared<TuneCliOptions>();
  TuneOptions& o = cli->run;
  auto* cmd = app.add_subcommand("tune", "Tune the GEMMs of untuned files (or --problem)");
  cmd->add_option("untuned", o.inputs, "Untuned files or glob patterns (quote the pattern)");
  // One value an occurrence (repeat --problem for several): taking all that follow, it had
  // swallowed an untuned file given after it.
  cmd->add_option("--problem", o.problems,
                  "Tune this problem, given as \"OP_SIG,PARAMS_SIG\" (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", o.output,
                  "Results file (.csv, .db, .sqlite, .sqlite3); appended to")
      ->check(results_file_name())
      ->envname("GEMMTUNE_RESULTS_FILE")
      ->capture_default_str();
  cmd->add_option("--backend", cli->backend, "auto (CUDA where a GPU is present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->envname("GEMMTUNE_BACKEND")
      ->capture_default_str();
  cmd->add_option("--device", o.device, "Device ordinal")
      ->envname("GEMMTUNE_DEVICE")
      ->check(finite_non_negative())
      ->capture_default_str();
  // Bounded (kMaxDevices): each device is a process, and a typo must not spawn 100000 of them.
  auto* gpus_option = cmd->add_option("--gpus", cli->gpus,
                                      "Tune on GPUs 0..N-1, one worker process each (CUDA backend)")
                          ->envname("GEMMTUNE_GPUS")
                          ->check(finite_range(0, kMaxDevices))
                          ->capture_default_str();
  auto* devices_option =
      cmd->add_option_function<std::vector<int>>(
             "--devices",
             [cli](const std::vector<int>& devices) { cli->devices = checked_devices(devices); },
             fmt::format("Tune on these device ordinals, e.g. 0,2,3 (at most {})", kMaxDevices))
          ->envname("GEMMTUNE_DEVICES")
          ->delimiter(',')
          ->allow_extra_args(false);  // one list: an untuned file after it is not swallowed
  auto* workers_option =
      cmd->add_option("--workers", cli->workers,
                      "Tune with N worker processes on the CPU backend, each playing one device")
          ->envname("GEMMTUNE_WORKERS")
          ->check(finite_range(0, kMaxDevices))
          ->capture_default_str();
  cli->device_options = {gpus_option, devices_option, workers_option};  // resolve_devices's order
  cmd->add_option("--problem-timeout-s", o.problem_timeout_s,
                  "Kill a worker that spends longer on one problem (s; 0 = no limit); the "
                  "problem is retried once")
      ->envname("GEMMTUNE_PROBLEM_TIMEOUT_S")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_option("--max-worker-restarts", o.max_worker_restarts,
                  "How often a device's worker is restarted after it died")
      ->envname("GEMMTUNE_MAX_WORKER_RESTARTS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cli->shard_option =
      cmd->add_option(
             "--shard", cli->shard,
             "Tune share I of N (I/N, 0-based); default: from mpirun or srun's environment")
          ->check(parsed_by("I/N", [](const std::string& text) { (void)parse_shard(text); }))
          ->envname("GEMMTUNE_SHARD");
  cmd->add_flag("--worker", cli->worker,
                "Internal: the worker side of a multi-device run (problems on stdin)")
      ->group("");
  add_tuning_options(*cmd, o.tuner, cli->tuning);
  cmd->add_option("--monitor-interval-ms", o.monitor_interval_ms,
                  "Sample the GPU's clocks, power and throttling every N ms through NVML (0 = off)")
      ->envname("GEMMTUNE_MONITOR_INTERVAL_MS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_flag("--strict", o.strict, "Stop at the first bad input line instead of skipping it")
      ->envname("GEMMTUNE_STRICT");
  cmd->add_flag("-v,--verbose", o.verbose,
                "Print the options, every candidate's disposition and each problem's tuning time "
                "by phase")
      ->envname("GEMMTUNE_VERBOSE");
  // Layered configuration: [tune] of configs/default.toml < the device's file < --config FILE.
  // Workers are told every setting on their command line and load nothing.
  ConfigHooks hooks;
  hooks.device_name = [cli] {
    const BackendKind kind = cli->workers > 0 ? BackendKind::Cpu
                             : cli->gpus > 0  ? BackendKind::Cuda
                                              : parse_backend_kind(cli->backend);
    return device_name(kind, cli->run.device);
  };
  hooks.skip = [cli] { return cli->worker; };
  hooks.verbose = [cli] { return cli->run.verbose; };
  attach_config(*cmd, "tune", cli->config, hooks);
  cmd->callback([cli, cmd] {
    cli->command_line = command_line_of(*cmd);
    run_tune_command(*cli);
  });
}

}  // namespace gemmtune::cli

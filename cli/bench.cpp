// gemmtune bench WORKLOAD.json: a micro_perf-style GEMM workload (ByteMLPerf byte_micro_perf, old
// or newer form; docs/bench.md), each case run with Default and with the tuned solution (from
// --results, else tuned on the spot), reported with micro_perf's metrics as a table on stdout and,
// when asked, as CSV and JSONL files (rewritten after every case, so an interrupted run keeps
// what it measured). Progress goes to stderr when it is a terminal. Ctrl-C stops after the case
// in flight, a second one at once (exit 130; the files hold the cases finished before). Exit code
// 5 (partial) when a row could not be measured or a case was skipped.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>

#include "cli/app.hpp"
#include "cli/command_line.hpp"
#include "cli/config_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/number_checks.hpp"
#include "cli/same_file_checks.hpp"
#include "cli/text_table.hpp"
#include "cli/tuning_options.hpp"
#include "cli/value_checks.hpp"
#include "db/atomic_file.hpp"
#include "db/results_store.hpp"
#include "drivers/backend_factory.hpp"
#include "drivers/bench/bench_case.hpp"
#include "drivers/bench/bench_report.hpp"
#include "drivers/bench/bench_run.hpp"
#include "drivers/bench/workload.hpp"
#include "drivers/config/device_spec.hpp"
#include "drivers/monitor/start_monitor.hpp"
#include "drivers/tune_options.hpp"
#include "tuner/error.hpp"
#include "validator/collect.hpp"

namespace gemmtune::cli {
namespace {

std::atomic<int> g_interrupts{0};
// Whether the output files are being written, so that a second Ctrl-C waits for them: Idle, then
// Writing; ExitWhenWritten where it came meanwhile; Exiting once the handler exits.
enum Phase : int { Idle, Writing, ExitWhenWritten, Exiting };
std::atomic<int> g_phase{Idle};
static_assert(std::atomic<int>::is_always_lock_free);

constexpr char kStoppedAtOnce[] =
    "\ngemmtune bench: stopped at once (asked twice); the output files hold the cases finished "
    "before\n";

[[noreturn]] void exit_at_once() {
  [[maybe_unused]] const auto n = write(STDERR_FILENO, kStoppedAtOnce, sizeof kStoppedAtOnce - 1);
  _exit(130);
}

// The first Ctrl-C stops after the case in flight, which may take minutes (a large case on the
// CPU); a second exits at once, as tune and mamf do: the CSV and JSONL files are rewritten whole
// after each case, so they hold every case finished before, and a second Ctrl-C that comes while
// they are written exits once they are (not between the CSV and its run record).
void on_interrupt(int) {
  if (g_interrupts.fetch_add(1) > 0) {
    int idle = Idle;
    if (g_phase.compare_exchange_strong(idle, Exiting)) exit_at_once();
    int writing = Writing;
    g_phase.compare_exchange_strong(writing, ExitWhenWritten);
    return;
  }
  bench::request_bench_stop();
  static const char msg[] =
      "\ngemmtune bench: stopping after the case in flight (Ctrl-C again to exit at once)\n";
  [[maybe_unused]] const auto n = write(STDERR_FILENO, msg, sizeof msg - 1);
}

// write_report_files, which a second Ctrl-C does not cut short.
void write_report_files_whole(const bench::BenchReport& report, const std::string& csv,
                              const std::string& jsonl) {
  int idle = Idle;
  if (!g_phase.compare_exchange_strong(idle, Writing)) {
    for (;;) ::pause();  // the handler is exiting
  }
  try {
    bench::write_report_files(report, csv, jsonl);
  } catch (...) {
    g_phase.store(Idle);  // a second Ctrl-C that came meanwhile is answered by the error's exit
    throw;
  }
  int writing = Writing;
  if (!g_phase.compare_exchange_strong(writing, Idle)) exit_at_once();
}

using namespace gemmtune::bench;

struct BenchCliOptions {
  std::string workload;
  std::string backend = "auto";
  int device = 0;
  std::string results_file;
  std::string output_csv;
  std::string output_jsonl;
  std::vector<std::string> dtypes;
  int iterations = 0;  // 0: the workload's
  double peak_tflops = 0;
  double peak_bandwidth_gb_s = 0;
  int monitor_interval_ms = monitor::kDefaultIntervalMs;
  ConfigChoice config;
  BenchOptions run;
  TuningOptionTexts tuning;
};

// The device's peaks: the layered configuration's [device] table (configs/devices/*.toml, chosen
// for this device or by --device-config); --peak-* override it.
DevicePeaks device_peaks(const std::string& device_name, const BenchCliOptions& cli) {
  DevicePeaks peaks;
  peaks.source = fmt::format("no device spec matches \"{}\"", device_name);
  if (auto spec = cli.config.device_spec()) {
    if (spec->memory_bandwidth_gb_s > 0) peaks.memory_bandwidth_gb_s = spec->memory_bandwidth_gb_s;
    for (const auto& [dtype, tflops] : spec->peak_dense_tflops) {
      if (tflops > 0) peaks.dense_tflops_by_dtype.emplace(dtype, tflops);
    }
    peaks.source = fmt::format("{} spec, {}", spec->name, spec->origin);
  }
  std::vector<std::string> overridden;
  if (cli.peak_tflops > 0) {
    peaks.dense_tflops_by_dtype.clear();
    for (const auto& d : all_dtypes()) {
      if (!d.is_complex)
        peaks.dense_tflops_by_dtype.emplace(std::string(d.cli_name), cli.peak_tflops);
    }
    overridden.emplace_back("--peak-tflops");
  }
  if (cli.peak_bandwidth_gb_s > 0) {
    peaks.memory_bandwidth_gb_s = cli.peak_bandwidth_gb_s;
    overridden.emplace_back("--peak-bandwidth-gb-s");
  }
  if (!overridden.empty()) {
    const std::string from = fmt::format("{}", fmt::join(overridden, ", "));
    peaks.source =
        overridden.size() == 2 ? from : fmt::format("{}; otherwise {}", from, peaks.source);
  }
  return peaks;
}

std::string now_utc() {
  return format_timestamp(std::chrono::system_clock::now());
}

// Progress on a terminal; rewrites the output files after every case; tells the GPU monitor
// when a case's timed measurement runs (not its tuning).
class Console final : public BenchObserver {
 public:
  Console(BenchReport& report, const BenchCliOptions& cli, monitor::GpuMonitor* gpu)
      : report_(report), cli_(cli), gpu_(gpu), tty_(isatty(STDERR_FILENO) != 0) {}
  ~Console() override { measuring(false); }
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  void on_case(const BenchCase& c, std::size_t index, std::size_t total,
               std::string_view phase) override {
    measuring(phase == "measuring");
    if (!tty_) return;
    fmt::print(stderr, "\r\033[K[{}/{}] {} {}: {}", index + 1, total, c.shape_text(), c.dtype,
               phase);
  }
  void on_rows(const BenchResult& so_far) override {
    measuring(false);
    if (cli_.output_csv.empty() && cli_.output_jsonl.empty()) return;
    // Each rewrite costs as much as the rows so far: after every case, a workload of 1000 quick
    // cases spent 170 of its 173 s writing. So the next one waits until the run has gone on ten
    // times as long as the last took, which keeps writing within a tenth of the run (a case that
    // takes seconds to measure still gets its rewrite). The run's end writes the files anyway.
    const auto now = std::chrono::steady_clock::now();
    if (now < next_write_) return;
    report_.result = so_far;
    write_report_files_whole(report_, cli_.output_csv, cli_.output_jsonl);
    const auto written = std::chrono::steady_clock::now();
    next_write_ = written + 10 * (written - now);
  }
  void on_note(const std::string& note) override {
    clear();
    fmt::print(stderr, "note: {}\n", note);
  }
  void clear() {
    if (tty_) fmt::print(stderr, "\r\033[K");
  }

 private:
  void measuring(bool on) {
    if (gpu_ == nullptr || on == in_window_) return;
    on ? gpu_->begin_measurement() : gpu_->end_measurement();
    in_window_ = on;
  }

  BenchReport& report_;
  const BenchCliOptions& cli_;
  monitor::GpuMonitor* gpu_;
  bool tty_;
  bool in_window_ = false;
  std::chrono::steady_clock::time_point next_write_{};
};

std::string format_table(const BenchResult& result) {
  TextTable table;
  const auto header = table_header();
  const auto right = table_right_aligned();
  for (std::size_t i = 0; i < header.size(); ++i) {
    table.column(header[i], right[i] ? TextTable::Align::Right : TextTable::Align::Left);
  }
  for (const auto& row : result.rows) table.add_row(table_cells(row));
  return table.render();
}

void run_bench_command(BenchCliOptions& cli) {
  if (cli.workload.empty()) throw ExitWith(ExitCode::Usage, "workload is required");
  // Before anything is measured: the report files are written at the end, and a path that cannot
  // take them would throw the whole run's measurements away.
  if (!cli.output_csv.empty()) {
    check_can_write(cli.output_csv);
    check_can_write(csv_sidecar_path(cli.output_csv));
  }
  if (!cli.output_jsonl.empty()) check_can_write(cli.output_jsonl);
  // Nor may a report replace another, the workload, the results file it reads, or any file of
  // results.
  const std::vector<NamedPath> outputs{
      {"--output-csv", cli.output_csv},
      {"--output-csv's run record",
       cli.output_csv.empty() ? std::string() : csv_sidecar_path(cli.output_csv).string()},
      {"--output-jsonl", cli.output_jsonl}};
  refuse_outputs_over_others(outputs,
                             {{"the workload", cli.workload}, {"--results", cli.results_file}});
  refuse_outputs_over_results(outputs);
  WorkloadOverrides overrides;
  // Each dtype once, in the order given: `--dtype float32 --dtype fp32` ran every case twice.
  // Names are the same dtype where they name the same GEMM type (unknown ones, refused later,
  // where they are the same name).
  const auto same_dtype = [](const std::string& a, const std::string& b) {
    const auto x = dtype_from_workload_name(a), y = dtype_from_workload_name(b);
    if (x && y && x->dtype && y->dtype) return *x->dtype == *y->dtype;
    return a == b;
  };
  for (const auto& d : cli.dtypes) {
    if (std::none_of(overrides.dtypes.begin(), overrides.dtypes.end(),
                     [&](const std::string& given) { return same_dtype(given, d); })) {
      overrides.dtypes.push_back(d);
    }
  }
  if (cli.iterations > 0) overrides.iterations = cli.iterations;
  const Workload workload = load_workload(cli.workload, overrides);
  apply_tuning_options(cli.tuning, cli.run.tuner);

  BenchReport report;
  const std::string typed = command_line_as_typed();
  report.run.command_line = typed.empty() ? std::string("gemmtune bench") : typed;
  report.run.started_at = now_utc();
  report.run.workload = workload.name;
  report.run.workload_form = workload.form;
  report.run.cases = workload.cases.size();

  BackendSession session = open_backend(parse_backend_kind(cli.backend), cli.device);
  Backend& backend = *session.backend;
  const DeviceProperties& props = backend.properties();
  report.run.backend = props.backend;
  report.run.device = fmt::format("{} device {}: {}", props.backend, props.ordinal, props.name);
  const Environment environment = collect_environment(backend);
  report.run.versions = environment.entries();
  report.run.peaks = device_peaks(props.name, cli);
  report.run.measurement = describe_measurement(cli.run);
  report.run.tuning = describe_tuning(cli.run.tuner);
  report.run.results_file = cli.results_file;
  if (const std::string config = cli.config.text(); !config.empty()) {
    report.extra_sections.push_back({"configuration", config, config});
  }
  monitor::MonitorOptions monitor_options;
  monitor_options.interval_ms = cli.monitor_interval_ms;
  monitor::MonitorStart gpu = monitor::start_monitor_for(backend, monitor_options);
  if (!gpu.note.empty()) fmt::print(stderr, "{}\n", gpu.note);

  std::optional<TunedSolutions> tuned;
  if (!cli.results_file.empty()) tuned = load_tuned_solutions(cli.results_file, environment);

  fmt::print("{}", format_preamble(report));
  std::fflush(stdout);
  Console console(report, cli, gpu.monitor.get());
  g_interrupts.store(0);
  g_phase.store(Idle);
  std::signal(SIGINT, on_interrupt);
  BenchResult result;
  try {
    result = run_bench(backend, *session.registry, workload.cases, cli.run, report.run.peaks,
                       tuned ? &*tuned : nullptr, console);
  } catch (...) {
    std::signal(SIGINT, SIG_DFL);
    console.clear();
    throw;
  }
  console.clear();
  report.result = std::move(result);
  report.run.ended_at = now_utc();
  if (gpu.monitor) {
    gpu.monitor->stop();
    const monitor::MonitorSummary summary = gpu.monitor->summary();
    report.extra_sections.push_back(
        {"gpu monitor", monitor::format_monitor_summary(summary),
         nlohmann::ordered_json::parse(monitor::format_monitor_json(summary))});
  }
  try {
    write_report_files_whole(report, cli.output_csv, cli.output_jsonl);
  } catch (...) {
    std::signal(SIGINT, SIG_DFL);
    throw;
  }
  // Only now: a Ctrl-C while the last files are written must not cut them short.
  std::signal(SIGINT, SIG_DFL);

  fmt::print("\n{}", format_table(report.result));
  const std::string sections = format_sections(report);
  if (!sections.empty()) fmt::print("\n{}", sections);
  // By case: measured (both rows), failed (either row), skipped.
  std::size_t ok = 0, failed = 0, skipped = 0, faster = 0;
  const auto& rows = report.result.rows;
  for (std::size_t i = 0; i + 1 < rows.size(); i += 2) {
    const BenchRow& tuned_row = rows[i + 1];
    if (tuned_row.status == RowStatus::Skipped) {
      ++skipped;
    } else if (rows[i].status == RowStatus::Ok && tuned_row.status == RowStatus::Ok) {
      ++ok;
    } else {
      ++failed;
    }
    faster += tuned_row.speedup_vs_default && *tuned_row.speedup_vs_default > 1.0;
  }
  fmt::print(
      "\nSummary: {} of {} case(s) run: {} measured, {} failed, {} skipped; the tuned "
      "solution's average latency beat Default's in {}\n",
      report.result.cases_run, workload.cases.size(), ok, failed, skipped, faster);
  if (!cli.output_csv.empty()) {
    fmt::print("CSV: {} (run record: {})\n", cli.output_csv,
               csv_sidecar_path(cli.output_csv).string());
  }
  if (!cli.output_jsonl.empty()) fmt::print("JSONL: {}\n", cli.output_jsonl);
  std::fflush(stdout);  // before the exit message on stderr
  if (report.result.interrupted) throw ExitWith(ExitCode::Partial, "interrupted");
  if (!report.result.complete()) {
    throw ExitWith(ExitCode::Partial,
                   fmt::format("{} case(s) failed and {} skipped (the table and the notes say why)",
                               failed, skipped));
  }
}

}  // namespace

void setup_bench(CLI::App& app) {
  auto cli = std::make_shared<BenchCliOptions>();
  auto* cmd = app.add_subcommand(
      "bench", "Run a micro_perf-style GEMM workload with Default and the tuned solutions");
  // Required, but checked by run_bench_command: --show-config prints and exits without one.
  cmd->add_option("workload", cli->workload,
                  "Workload file (micro_perf's JSON, old or newer form; required)");
  cmd->add_option("--backend", cli->backend, "auto (CUDA where a GPU is present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->envname("GEMMTUNE_BACKEND")
      ->capture_default_str();
  cmd->add_option("--device", cli->device, "Device ordinal")
      ->envname("GEMMTUNE_DEVICE")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_option("--results", cli->results_file,
                  "Take tuned solutions from this results file (.csv, .db); problems it lacks are "
                  "tuned on the spot")
      ->check(results_file_name());
  cmd->add_option("--output-csv", cli->output_csv, "Also write the rows to this CSV file");
  cmd->add_option("--output-jsonl", cli->output_jsonl, "Also write the run and its rows as JSONL");
  cmd->add_option("--dtype", cli->dtypes,
                  "Run these dtypes instead of the workload's (comma-separated micro_perf names)")
      ->delimiter(',')
      // Checked here, not when the workload is read, so that a mistake is a usage error.
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return dtype_from_workload_name(text)
                       ? std::string()
                       : fmt::format("unknown dtype '{}'; known: {}", text, known_dtype_names());
          },
          "DTYPE"));
  cmd->add_option("--iterations", cli->iterations,
                  "Timed iterations per solution and case instead of the workload's")
      ->check(finite_positive());
  cmd->add_option("--warmup-ms", cli->run.warmup_ms,
                  "Untimed device time per solution and case before the timed iterations (ms)")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_option(
         "--warmup-iterations", cli->run.warmup_iterations,
         "Untimed iterations per solution and case after --warmup-ms, before the timed ones")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_option("--peak-tflops", cli->peak_tflops,
                  "Peak TFLOPS (every dtype) for the FLOPS utilisation, instead of the device spec")
      ->check(finite_positive());
  cmd->add_option("--peak-bandwidth-gb-s", cli->peak_bandwidth_gb_s,
                  "Peak memory bandwidth (GB/s) for the bandwidth utilisation, instead of the "
                  "device spec")
      ->check(finite_positive());
  cmd->add_option("--monitor-interval-ms", cli->monitor_interval_ms,
                  "Sample the GPU's clocks, power and throttling every N ms through NVML (0 = off)")
      ->envname("GEMMTUNE_MONITOR_INTERVAL_MS")
      ->check(finite_non_negative())
      ->capture_default_str();
  add_tuning_options(*cmd, cli->run.tuner, cli->tuning);
  // Layered configuration: [bench] of configs/default.toml < the device's file < --config FILE.
  ConfigHooks hooks;
  hooks.device_name = [cli] { return device_name(parse_backend_kind(cli->backend), cli->device); };
  attach_config(*cmd, "bench", cli->config, hooks);
  cmd->callback([cli] { run_bench_command(*cli); });
}

}  // namespace gemmtune::cli

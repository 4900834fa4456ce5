// gemmtune mamf: the maximum achievable matmul FLOPS of a device, compatible with mamf-finder.py.
//
// mamf-finder's options keep their names, defaults and meanings (--m/--m_range..., --dtype,
// --num_iterations, --num_warmup_iterations, --output_file, --notes, --verbose/--no-verbose,
// --cuda_device); gemmtune's own use its dashed style. Output: mamf-finder's layout on stdout
// (unless --no-verbose) and in --output_file, written as the sweep goes; a progress bar with ETA
// and the running best on stderr when it is a terminal. Ctrl-C once stops after the shape in
// flight and still prints the summary and writes every file; twice exits at once (status 130).
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>
#include <vector>

#include "cli/app.hpp"
#include "cli/command_line.hpp"
#include "cli/config_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/number_checks.hpp"
#include "cli/same_file_checks.hpp"
#include "cli/tuning_options.hpp"
#include "cli/value_checks.hpp"
#include "drivers/mamf/mamf_report.hpp"
#include "drivers/mamf/mamf_run.hpp"
#include "drivers/mamf/shape_range.hpp"
#include "drivers/tune_problems.hpp"
#include "tuner/error.hpp"
#include "tuner/numerical_check.hpp"

namespace gemmtune::cli {
namespace {

using namespace gemmtune::mamf;

struct MamfCliOptions {
  MamfOptions run;
  std::string dtype = "bfloat16";
  std::string backend = "auto";
  std::string numerical_check = "on";
  std::string search = "heuristic";
  double workspace_mb = 32;
  double peak_tflops = 0;
  ConfigChoice config;  // --config, --configs-dir, --device-config, --show-config
};

constexpr double kMaxIterations = 10'000'000;

// The dtypes a MAMF sweep takes: real, and below double precision.
std::optional<DType> mamf_dtype(std::string_view name) {
  const auto dtype = dtype_from_cli_name(name);
  if (!dtype || info(*dtype).is_complex || *dtype == DType::Float64) return std::nullopt;
  return dtype;
}

// Option values are checked as they are parsed: a mistake on the command line is a usage error
// naming the option, one in a configuration file names its key and the file (cli/value_checks.hpp).
CLI::Validator mamf_dtype_name() {
  constexpr const char* kTaken = "bfloat16, float16, float32, tf32, float8_e4m3fn or float8_e5m2";
  return CLI::Validator(
      [kTaken](std::string& text) -> std::string {
        return mamf_dtype(text) ? std::string() : fmt::format("use {}, not '{}'", kTaken, text);
      },
      "DTYPE");
}

// --m or --m_range (and n, k): the dimension's own checks (mamf::expand) as it is parsed. What
// spans the dimensions — each given one way or the other, the size of the sweep — is checked in
// run_mamf_command.
CLI::Option* add_dimension(CLI::App& cmd, const std::string& option, DimSpec& spec, bool range,
                           const std::string& description) {
  return cmd
      .add_option_function<std::vector<std::int64_t>>(
          option,
          [&spec, range](const std::vector<std::int64_t>& given) {
            DimSpec alone{spec.name, {}, {}};
            (range ? alone.range : alone.values) = given;
            try {
              (void)expand(alone);
            } catch (const InputError& e) {
              throw CLI::ValidationError(e.what());  // names the option already
            }
            (range ? spec.range : spec.values) = given;
          },
          description)
      // Each occurrence replaces the last, as argparse's do in mamf-finder.py: `--m 1024 --m 2048`
      // sweeps 2048 alone, and a repeated --m_range is not six values of one range.
      ->trigger_on_parse();
}

// Lock-free, so that the handler may touch it.
std::atomic<int> g_interrupts{0};
static_assert(std::atomic<int>::is_always_lock_free);

void on_interrupt(int) {
  if (g_interrupts.fetch_add(1) > 0) _exit(130);
  request_mamf_stop();
  static const char msg[] =
      "\ngemmtune mamf: stopping after the shape in flight (Ctrl-C again to exit at once)\n";
  [[maybe_unused]] const auto n = write(STDERR_FILENO, msg, sizeof msg - 1);
}

// Sends the report to stdout (when verbose) and to the output file, and draws the progress bar.
class MamfConsole final : public MamfObserver {
 public:
  // The file is checked here, before the run's own checks, but opened (and truncated) only when
  // the report's first text comes: a run refused before then leaves an earlier report as it was.
  MamfConsole(const std::string& output_file, bool verbose)
      : verbose_(verbose), tty_(isatty(STDERR_FILENO) != 0), output_file_(output_file) {
    if (output_file.empty()) return;
    const std::filesystem::path path(output_file);
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      throw InputError(fmt::format("{}: cannot create its directory {}: {}", output_file,
                                   path.parent_path().string(), ec.message()));
    }
    require_appendable(path);
  }

  void text(std::string_view text) override {
    clear_bar();
    if (verbose_) {
      fmt::print("{}", text);
      std::fflush(stdout);
    }
    if (!output_file_.empty() && !file_.is_open()) {
      file_.open(output_file_, std::ios::out | std::ios::trunc);
      if (!file_) throw InputError(fmt::format("{}: cannot write the output file", output_file_));
    }
    if (file_.is_open()) file_ << text << std::flush;
    redraw();
  }
  void warning(std::string_view message) override {
    clear_bar();
    fmt::print(stderr, "warning: {}\n", message);
    redraw();
  }
  void progress(const MamfProgress& p) override {
    last_ = p;
    have_ = true;
    redraw();
  }
  void finish() { clear_bar(); }

 private:
  void clear_bar() {
    if (tty_ && drawn_) fmt::print(stderr, "\r\033[K");
    drawn_ = false;
  }
  void redraw() {
    if (!tty_ || !have_) return;
    const MamfProgress& p = last_;
    const double fraction = p.flops_total > 0 ? p.flops_done / p.flops_total : 0.0;
    constexpr int kBar = 24;
    const int filled = static_cast<int>(fraction * kBar);
    std::string bar;
    for (int i = 0; i < kBar; ++i) bar += i < filled ? "#" : ".";
    std::string eta = "?";
    if (p.flops_done > 0 && p.sweep_seconds > 0) {
      eta = format_elapsed(p.sweep_seconds / p.flops_done * (p.flops_total - p.flops_done));
    }
    std::string best = p.best_mean_tflops > 0 ? fmt::format(" | best {:.1f} TFLOPS @ {}",
                                                            p.best_mean_tflops, p.best_shape)
                                              : std::string();
    fmt::print(stderr, "\r\033[K[{}] {:3.0f}% {}/{} {} {}{} | ETA {}", bar, 100 * fraction,
               std::min(p.index + 1, p.total), p.total, p.phase, p.shape.text(), best, eta);
    drawn_ = true;
  }

  bool verbose_;
  bool tty_;
  bool drawn_ = false;
  bool have_ = false;
  MamfProgress last_;
  std::string output_file_;
  std::ofstream file_;
};

void run_mamf_command(MamfCliOptions& cli, const std::string& command_line) {
  MamfOptions& o = cli.run;
  // Each dimension was checked as its option was parsed; a dimension not given at all, or a sweep
  // too large, is as much a bad command line.
  try {
    (void)count_shapes(o.m, o.n, o.k);
  } catch (const InputError& e) {
    throw ExitWith(ExitCode::Usage, e.what());
  }
  o.dtype = mamf_dtype(cli.dtype).value();  // checked as --dtype was parsed
  o.backend = parse_backend_kind(cli.backend);
  o.tuner.check = parse_numerical_check(cli.numerical_check);
  o.tuner.search.space =
      cli.search == "exhaustive" ? SearchSpace::Exhaustive : SearchSpace::Heuristic;
  o.tuner.search.max_workspace_bytes = workspace_bytes(cli.workspace_mb);
  if (cli.peak_tflops > 0) o.peak_tflops = cli.peak_tflops;
  o.device_spec = cli.config.device_spec();
  o.config = cli.config.text();

  // Before the report file is opened (truncated): it must not be a file the run reads or stores
  // into. The store and --results may be one file: the run appends to what it reads.
  refuse_outputs_over_others({{"--output_file", o.output_file}, {"--plot", o.plot_file}},
                             {{"--results", o.results_file}, {"--db", o.store_file}});
  refuse_outputs_over_results({{"--output_file", o.output_file}, {"--plot", o.plot_file}});
  MamfConsole console(o.output_file, o.verbose);
  g_interrupts.store(0);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  struct sigaction previous {};
  sigaction(SIGINT, &action, &previous);
  MamfResult result;
  try {
    result = run_mamf(o, console, command_line);
  } catch (const ValidatorMismatchError& e) {
    console.finish();
    sigaction(SIGINT, &previous, nullptr);
    throw ExitWith(ExitCode::ValidatorMismatch, e.what());
  } catch (...) {
    console.finish();
    sigaction(SIGINT, &previous, nullptr);
    throw;
  }
  console.finish();
  sigaction(SIGINT, &previous, nullptr);
  if (!o.verbose && result.baseline.shapes() == 0) {
    fmt::print("no shape measured (0 of {} shapes){}\n", result.planned_shapes,
               o.output_file.empty() ? "" : "; full report in " + o.output_file);
  } else if (!o.verbose) {
    fmt::print("best mean {:.1f} TFLOPS @ {} ({} of {} shapes){}\n", result.baseline.best().mean,
               result.baseline.best_mean_shape().text(), result.baseline.shapes(),
               result.planned_shapes,
               o.output_file.empty() ? "" : "; full report in " + o.output_file);
    if (result.monitor) {
      // The monitor's verdict, its last line: "  throttled during measurements: no".
      const std::string text = monitor::format_monitor_summary(*result.monitor);
      const std::size_t last = text.rfind('\n', text.size() - 2);
      fmt::print("GPU monitor: {}", text.substr(text.find_first_not_of(' ', last + 1)));
    }
  }
  if (result.interrupted) throw ExitWith(ExitCode::Partial, "interrupted");
  if (result.baseline.shapes() < result.planned_shapes) {
    throw ExitWith(ExitCode::Partial, "some shapes were not measured (see the notes)");
  }
}

}  // namespace

const std::vector<std::string>& mamf_finder_options() {
  // clang-format off
  static const std::vector<std::string> names = {
      "--m", "--n", "--k", "--m_range", "--n_range", "--k_range", "--num_iterations",
      "--num_warmup_iterations", "--dtype", "--cuda_device", "--output_file", "--notes",
      "--verbose", "--no-verbose"};
  // clang-format on
  return names;
}

void setup_mamf(CLI::App& app) {
  auto cli = std::make_shared<MamfCliOptions>();
  MamfOptions& o = cli->run;
  auto* cmd = app.add_subcommand(
      "mamf", "Maximum achievable matmul FLOPS over a sweep of shapes (mamf-finder.py compatible)");
  // mamf-finder.py's options.
  auto* m =
      add_dimension(*cmd, "--m", o.m, false, "M values (the first dimension)")->expected(1, -1);
  auto* n =
      add_dimension(*cmd, "--n", o.n, false, "N values (the last dimension)")->expected(1, -1);
  auto* k =
      add_dimension(*cmd, "--k", o.k, false, "K values (the shared dimension)")->expected(1, -1);
  add_dimension(*cmd, "--m_range", o.m, true, "M range START STOP STEP (stop excluded; 0 = STEP)")
      ->expected(3)
      ->excludes(m);
  add_dimension(*cmd, "--n_range", o.n, true, "N range START STOP STEP (stop excluded; 0 = STEP)")
      ->expected(3)
      ->excludes(n);
  add_dimension(*cmd, "--k_range", o.k, true, "K range START STOP STEP (stop excluded; 0 = STEP)")
      ->expected(3)
      ->excludes(k);
  // argparse's rule, which scripts written for mamf-finder.py rely on (appending an override):
  // an option given twice takes its last value. For every option made from here on; the
  // dimensions above handle a repeat themselves.
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // Bounded: every timed sample is kept (8 bytes each), and a count near INT_MAX is a typo.
  cmd->add_option("--num_iterations", o.bench.iterations,
                  "Timed iterations per shape (at most 10000000)")
      ->check(finite_number(0, kMaxIterations, /*min_excluded=*/true))
      ->capture_default_str();
  cmd->add_option("--num_warmup_iterations", o.bench.warmup_iterations,
                  "Warm-up iterations per shape (not timed; at most 10000000)")
      ->check(finite_range(0, kMaxIterations))
      ->capture_default_str();
  cmd->add_option("--dtype", cli->dtype,
                  "bfloat16, float16, float32, tf32, float8_e4m3fn or float8_e5m2")
      ->check(mamf_dtype_name())
      ->capture_default_str();
  cmd->add_option("--cuda_device", o.device, "Device ordinal")
      ->envname("GEMMTUNE_DEVICE")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_option("--output_file", o.output_file, "Also write the report to this file");
  cmd->add_option("--notes", o.notes, "Notes for the report header");
  cmd->add_flag("--verbose,!--no-verbose", o.verbose, "Print the report on stdout (default)");
  // gemmtune's own.
  cmd->add_option("--backend", cli->backend, "auto (CUDA where a GPU is present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->envname("GEMMTUNE_BACKEND")
      ->capture_default_str();
  cmd->add_flag("--tuned", o.tuned, "Tune every shape and report its best solution beside Default");
  cmd->add_option("--results", o.results_file,
                  "Use the solutions of this results file (.csv, .db) where it has the shape")
      ->check(results_file_name());
  cmd->add_option("--max-finalists", o.tuner.timing.max_finalists,
                  "--tuned: how many of the fastest correct candidates are fully measured")
      ->check(finite_non_negative())
      ->default_val(4)
      ->capture_default_str();
  cmd->add_option("--numerical-check", cli->numerical_check,
                  "--tuned: check candidates against Default: on, off, or ATOL_RTOL")
      ->check(numerical_check_value())
      ->capture_default_str();
  cmd->add_option("--search", cli->search, "--tuned: heuristic or exhaustive")
      ->check(CLI::IsMember({"heuristic", "exhaustive"}))
      ->capture_default_str();
  cmd->add_option("--workspace-mb", cli->workspace_mb,
                  "Largest workspace a candidate may use, and the limit Default (fp8: cuBLASLt's "
                  "heuristic pick) is rebuilt under (MiB, at most 1048576 = 1 TiB)")
      ->envname("GEMMTUNE_WORKSPACE_MB")
      ->check(workspace_mb_value())
      ->capture_default_str();
  cmd->add_option("--sustained", o.sustained_seconds,
                  "Also hold the best shape for SECONDS and report the sustained TFLOPS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_option("--max-warmup-seconds", o.warmup.max_seconds,
                  "Warm the device up until timings settle, at most this long (0 = no warm-up)")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_flag("--rotate", o.bench.rotate,
                "Rotate operand copies (2x last-level cache) instead of flushing the cache");
  // A negative seed would wrap around to a huge unsigned one without a word.
  cmd->add_option("--seed", o.bench.seed, "Seed of the random operands")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_option("--peak-tflops", cli->peak_tflops,
                  "Peak TFLOPS for the efficiency figure (default: the device's configuration)")
      ->check(finite_positive());
  cmd->add_option("--db", o.store_file,
                  "Also store every shape's result in this results store (.db, .sqlite, .csv); a "
                  "shape it already holds keeps its entry")
      ->check(results_file_name());
  cmd->add_option("--plot", o.plot_file, "Draw TFLOPS over the sweep into this SVG file (.svg)")
      ->check(CLI::Validator(
          [](std::string& file) -> std::string {
            // The plot is SVG only: m.png would hold SVG that an image viewer refuses.
            std::string ext = std::filesystem::path(file).extension().string();
            for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (ext.empty() || ext == ".svg") return {};
            return fmt::format("the plot is SVG: name it .svg, not '{}'", ext);
          },
          "FILE.svg"));
  cmd->add_option("--monitor-interval-ms", o.monitor_interval_ms,
                  "Sample the GPU's clocks, power and throttling every N ms through NVML (0 = off)")
      ->envname("GEMMTUNE_MONITOR_INTERVAL_MS")
      ->check(finite_non_negative())
      ->capture_default_str();
  // Layered configuration: [mamf] and the device's peaks ([device]) of configs/default.toml < the
  // device's file < --config FILE.
  ConfigHooks hooks;
  hooks.device_name = [cli] {
    return device_name(parse_backend_kind(cli->backend), cli->run.device);
  };
  attach_config(*cmd, "mamf", cli->config, hooks);
  cmd->callback([cli, cmd] {
    cli->run.tuner.seed = cli->run.bench.seed;
    run_mamf_command(*cli, command_line_of(*cmd));
  });
}

}  // namespace gemmtune::cli

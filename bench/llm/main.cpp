// gemmtune_llm_bench: tunes the GEMMs of Llama-style models with gemmtune's engine (default
// TunerOptions, as `gemmtune tune` does), then times Default, cuBLASLt's heuristic #0, the best of
// the heuristic's top 8 and the winner under identical conditions, and prints a markdown report
// with the summary against issue 4's targets. See bench/README.md.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "bench/llm/baselines.hpp"
#include "bench/llm/details.hpp"
#include "bench/llm/device_state.hpp"
#include "bench/llm/report.hpp"
#include "bench/llm/shapes.hpp"
#include "bench/llm/write_atomically.hpp"
#include "drivers/backend_factory.hpp"
#include "drivers/monitor/start_monitor.hpp"
#include "tuner/error.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune::bench {
namespace {

struct Options {
  bool quick = false;
  bool list = false;
  std::string output;
  std::string details;
  int device = 0;
  double time_budget_s = 0;  // 0 = none
  double settle_ms = TimingPolicy{}.settle_duration_ms;
  int confirmation_contenders = TimingPolicy{}.confirmation_contenders;
  double min_gain_percent = 100 * TunerOptions{}.min_gain;
  double trial_min_gain_percent = 100 * TunerOptions{}.trial_min_gain;
  double trial_turn_ms = TimingPolicy{}.trial_turn_ms;
  double idle_between_turns_ms = TimingPolicy{}.idle_between_turns_ms;
  double burst_check_below_ms = TimingPolicy{}.burst_check_below_ms;
  // NVML every this many ms, for each problem's device state (0 = off): 25 gives the finalists'
  // phases of a prefill GEMM about ten samples.
  int monitor_ms = 25;
  // Before the first problem: see warm_up.
  double warmup_s = 10;
  RemeasureOptions remeasure;
  std::vector<int> only;  // problem numbers as --list prints them; empty = all
};

double mib(std::size_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

ReportHeader make_header(Backend& backend, const TunerOptions& tuner, const Options& o,
                         const std::string& command) {
  const DeviceProperties& d = backend.properties();
  ReportHeader h;
  h.device =
      fmt::format("{} ({}, {} SMs, L2 {:.1f} MiB, {:.1f} GiB)", d.name, d.architecture,
                  d.compute_units, mib(d.last_level_cache_bytes), mib(d.memory_bytes) / 1024.0);
  std::vector<std::string> versions;
  const Environment environment = backend.versions();
  for (const auto& [key, value] : environment.entries()) {
    versions.push_back(fmt::format("{}={}", key, value));
  }
  h.versions = fmt::format("{}", fmt::join(versions, ", "));
  h.date = fmt::format(
      "{:%Y-%m-%d %H:%M:%S} UTC",
      fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
  h.command = command;
  const TimingPolicy& t = tuner.timing;
  h.conditions = fmt::format(
      "- tuning: the real engine with TunerOptions as `gemmtune tune` has them by default: "
      "heuristic search "
      "space, workspace {} MiB, warmup {} it, screening {} it / {} ms, keep factor {}, {} "
      "finalists, {}, measurement {} it / {} ms, {}, {} timing, numerical check "
      "against Default, winner must beat Default by {} standard errors and by at least {}%{}{}\n"
      "- re-measurement: one operand set rotation per problem (≥ 2×L2 = {:.0f} MiB, as the tuner "
      "plans it) and one profiler for all solutions; warmup {} it each, then a sweep of {} "
      "interleaved rounds (the order turning by one entry each round) of {} it / {} ms per "
      "solution{} that "
      "chooses the best of the top 8, then Default, heuristic #0, that best and the winner in as "
      "many fresh rounds (the evaluation: the times below); medians of the pooled "
      "samples; per-iteration CUDA events, {} timing as the tuner's; alpha 1, beta 0, random "
      "operands in [-1, 1]; noise = "
      "two standard errors of the per-round winner/other ratios (or of the pooled medians)\n"
      "- burst, graph and immediate times: where Default takes under {} ms (every decode "
      "problem), the evaluation's four again in {} interleaved rounds "
      "of their own: a burst of 20 iterations queued behind a held stream between one pair of "
      "events (burst: device time back to back, no per-iteration events), a replay of 20 "
      "iterations captured into a CUDA graph, queued the same way (graph: no launch gaps "
      "either), and {} it / {} ms run "
      "as issued (immediate: the host's launch time in the samples where it is the longer)\n"
      "{}"
      "- top-8: the first {} proposals of cublasLtMatmulAlgoGetHeuristic (best fit, {} MiB "
      "workspace), each run as proposed; heuristic #0 is the first of them; a winner that is one "
      "of them is that entry (timed once)\n"
      "- warm-up: the first problem tuned and re-measured, results discarded, for {} s before "
      "the first row (a host and GPU that have just started made Default's per-call times on the "
      "first problems up to 50% longer)\n"
      "- time budget: {} (warm-up included)",
      tuner.search.max_workspace_bytes >> 20, t.max_warmup_iterations, t.screening_iterations,
      t.screening_duration_ms, t.screening_keep_factor, t.max_finalists,
      t.idle_between_turns_ms > 0
          ? fmt::format("no settle and {} ms of idle after every finalist's turn",
                        t.idle_between_turns_ms)
          : fmt::format("settle {} ms", t.settle_duration_ms),
      t.max_tuning_iterations, t.max_tuning_duration_ms,
      t.confirmation_contenders > 0
          ? fmt::format("confirmation of the {} fastest and Default in fresh rounds of {} it / {} "
                        "ms that alone decide",
                        t.confirmation_contenders, confirmation_caps(t).max_iterations,
                        confirmation_caps(t).max_duration_ms)
          : std::string("no confirmation (the measurement decides)"),
      to_string(t.mode), tuner.default_margin_sigmas, 100 * tuner.min_gain,
      tuner.trial_min_gain > 0 && t.trial_turn_ms > 0
          ? fmt::format(" (or, a lead of {}% to that, in a trial of {} turns of {} ms each beside "
                        "Default, by {}% and in every turn, or by {}%)",
                        100 * tuner.trial_min_gain, kTrialTurns, t.trial_turn_ms,
                        100 * tuner.trial_min_gain,
                        100 * kTrialAnyTurnsGainTimes * tuner.trial_min_gain)
          : std::string(),
      t.burst_check_below_ms > 0
          ? fmt::format(", and where Default takes under {} ms not be slower than it beyond noise "
                        "in {} interleaved rounds of a burst of {} runs back to back and a replay "
                        "of as many from a CUDA graph",
                        t.burst_check_below_ms, kBurstRounds, kBurstIterations)
          : std::string(),
      mib(2 * d.last_level_cache_bytes), o.remeasure.warmup.max_iterations, o.remeasure.rounds,
      o.remeasure.caps.max_iterations, o.remeasure.caps.max_duration_ms,
      o.remeasure.lead_in_ms > 0
          ? fmt::format(" (each turn right after {} ms of the same solution, untimed)",
                        o.remeasure.lead_in_ms)
          : std::string(),
      to_string(TimingPolicy{}.mode), o.remeasure.small_below_ms, o.remeasure.rounds,
      o.remeasure.caps.max_iterations, o.remeasure.caps.max_duration_ms,
      o.remeasure.headroom_gap_ms > 0
          ? fmt::format(
                "- with clock headroom: Default, the best of the top 8 and the winner again in {} "
                "interleaved rounds of {} it / {} ms with "
                "{} ms of idle time after every turn, so that the device keeps its power "
                "headroom and its clocks up (the sweep and the evaluation run it at its power "
                "limit)\n",
                o.remeasure.rounds, o.remeasure.caps.max_iterations,
                o.remeasure.caps.max_duration_ms, o.remeasure.headroom_gap_ms)
          : std::string(),
      o.remeasure.top, tuner.search.max_workspace_bytes >> 20, o.warmup_s,
      o.time_budget_s > 0 ? fmt::format("{} s", o.time_budget_s) : std::string("none"));
  return h;
}

// Tunes and re-measures `problem` until `seconds` have passed, keeping nothing: on an H200 host
// that had just started, Default's per-iteration event times on the first ~15 problems (those of
// under 20 µs) came out up to 50% longer than in the runs before and after, which inflated their
// speedups (bench/results/2026-11-21-h200-run10.md, -run12.md). cuBLAS's calls
// take more host time than a kernel launch, so a host that has not reached its clocks shows up in
// Default's times first.
void warm_up(Tuner& tuner, Backend& backend, const Registry& registry, const Problem& problem,
             const RemeasureOptions& remeasure_options, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    const TuningReport tuning = tuner.tune(problem);
    if (!tuning.ok()) return;  // the first row reports the failure
    remeasure(backend, registry, problem, tuning.winner, remeasure_options);
  }
}

std::string dtype_name(const Problem& p) {
  return p.dtype() == DType::BFloat16 ? "bf16" : "fp16";
}

int run(const Options& o, const std::string& command) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<LlmShape> shapes = llm_shapes(o.quick);
  if (o.list) {
    int number = 0;
    for (const auto& s : shapes) {
      std::printf("%3d %-28s %-8s %-5s %s,%s\n", ++number, s.label().c_str(),
                  std::string(to_string(s.gemm_class)).c_str(), dtype_name(s.problem).c_str(),
                  s.problem.op_signature().c_str(), s.problem.params_signature().c_str());
    }
    return 0;
  }
  if (!o.only.empty()) {
    std::vector<LlmShape> selected;
    for (int number : o.only) {
      if (number < 1 || number > static_cast<int>(shapes.size())) {
        throw std::invalid_argument(fmt::format(
            "--only {}: the benchmark has problems 1 to {} (see --list)", number, shapes.size()));
      }
      selected.push_back(shapes[static_cast<std::size_t>(number - 1)]);
    }
    shapes = std::move(selected);
  }
  BackendSession session = open_backend(BackendKind::Cuda, o.device);
  Backend& backend = *session.backend;
  TunerOptions tuner_options;  // `gemmtune tune`'s defaults but for the options above
  tuner_options.timing.settle_duration_ms = o.settle_ms;
  tuner_options.timing.confirmation_contenders = o.confirmation_contenders;
  tuner_options.min_gain = o.min_gain_percent / 100;
  tuner_options.trial_min_gain = o.trial_min_gain_percent / 100;
  tuner_options.timing.trial_turn_ms = o.trial_turn_ms;
  tuner_options.timing.idle_between_turns_ms = o.idle_between_turns_ms;
  tuner_options.timing.burst_check_below_ms = o.burst_check_below_ms;
  Tuner tuner(backend, *session.registry, tuner_options);
  const ReportHeader header = make_header(backend, tuner_options, o, command);
  // The device's clocks and power beside each problem's two measurements (device_state.hpp).
  monitor::MonitorStart gpu = monitor::start_monitor_for(backend, {.interval_ms = o.monitor_ms});
  if (!gpu.note.empty()) std::fprintf(stderr, "%s\n", gpu.note.c_str());
  const auto monitor_started = std::chrono::steady_clock::now();
  const auto monitor_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - monitor_started)
        .count();
  };
  if (o.warmup_s > 0 && !shapes.empty()) {
    std::fprintf(stderr, "warming up for %.0f s\n", o.warmup_s);
    warm_up(tuner, backend, *session.registry, shapes.front().problem, o.remeasure, o.warmup_s);
  }

  std::vector<BenchRow> rows;
  std::vector<LlmShape> not_run;
  bool device_lost = false;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const LlmShape& shape = shapes[i];
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (device_lost || (o.time_budget_s > 0 && elapsed > o.time_budget_s)) {
      not_run.push_back(shape);
      continue;
    }
    BenchRow row;
    row.shape = shape;
    const double tuning_started_s = monitor_s();
    row.tuning = tuner.tune(shape.problem);
    if (row.tuning.fatal) device_lost = true;
    if (row.tuning.ok()) {
      try {
        const double remeasure_started_s = monitor_s();
        row.baselines =
            remeasure(backend, *session.registry, shape.problem, row.tuning.winner, o.remeasure);
        if (gpu.monitor) {
          const auto samples = gpu.monitor->samples();
          if (const auto w = finalists_window(row.tuning, tuning_started_s)) {
            row.tuner_state = device_state(samples, w->first, w->second);
          }
          const double now_s = monitor_s();
          const double headroom_s = row.baselines.headroom_started_s > 0
                                        ? remeasure_started_s + row.baselines.headroom_started_s
                                        : now_s;
          row.bench_state = device_state(samples, remeasure_started_s, headroom_s);
          if (headroom_s < now_s) row.headroom_state = device_state(samples, headroom_s, now_s);
        }
      } catch (const DeviceError& e) {
        row.error = fmt::format("device error: {}", e.message());
        device_lost = true;
      } catch (const std::exception& e) {
        row.error = e.what();
      }
    }
    rows.push_back(std::move(row));
    const BenchRow& r = rows.back();
    std::fprintf(
        stderr, "[%zu/%zu %6.1fs] %-28s %s  %s\n", i + 1, shapes.size(), elapsed,
        shape.label().c_str(), dtype_name(shape.problem).c_str(),
        r.ok() ? fmt::format("Default {:.1f} us, winner x{:.3f}, top-8 x{:.3f}, tune {:.2f} s",
                             r.baselines.default_solution.median_ms * 1e3, r.winner_speedup(),
                             r.top_speedup(), r.tuning.elapsed_s)
                     .c_str()
               : "failed");
    if (!o.output.empty()) write_atomically(o.output, render_markdown(header, rows, {}, false));
    if (!o.details.empty()) write_atomically(o.details, render_details(rows));
  }
  const std::string report = render_markdown(header, rows, not_run, true);
  if (!o.output.empty()) write_atomically(o.output, report);
  std::fputs(report.c_str(), stdout);
  return device_lost ? 3 : 0;
}

}  // namespace
}  // namespace gemmtune::bench

int main(int argc, char** argv) {
  using namespace gemmtune::bench;
  Options o;
  CLI::App app{"gemmtune LLM GEMM benchmark: tuned winner vs Default, heuristic #0 and top 8"};
  app.add_flag("--quick", o.quick, "A handful of shapes, for smoke tests");
  app.add_flag("--list", o.list, "Print the problems, numbered, and exit");
  app.add_option("--only", o.only,
                 "Run only these problems (numbers as --list prints them); the report then "
                 "numbers the rows it ran from 1")
      ->delimiter(',');
  app.add_option("--output", o.output, "Also write the markdown report to this file");
  app.add_option(
      "--details", o.details,
      "Write per-problem details (the tuner's view of every heuristic rank) to this file");
  app.add_option("--device", o.device, "CUDA device ordinal");
  app.add_option("--time-budget", o.time_budget_s,
                 "Seconds after which no further problem is started (0 = none)");
  app.add_option("--settle-ms", o.settle_ms,
                 "The tuner's settle phase (gemmtune tune --settle-ms), for comparisons")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--confirmation-contenders", o.confirmation_contenders,
                 "The tuner's confirmation (gemmtune tune --confirmation-contenders), for "
                 "comparisons")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--min-gain-percent", o.min_gain_percent,
                 "The tuner's minimum gain over Default (gemmtune tune --min-gain-percent), for "
                 "comparisons")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--trial-min-gain-percent", o.trial_min_gain_percent,
                 "The tuner's trial of a lead under the minimum gain (gemmtune tune "
                 "--trial-min-gain-percent; 0 = none), for comparisons")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--trial-turn-ms", o.trial_turn_ms,
                 "The trial's turns (gemmtune tune --trial-turn-ms), for comparisons")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--idle-between-turns-ms", o.idle_between_turns_ms,
                 "The tuner's idle time after every finalist's turn (gemmtune tune "
                 "--idle-between-turns-ms), for comparisons")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--burst-check-below-ms", o.burst_check_below_ms,
                 "The tuner's burst check (gemmtune tune --burst-check-below-ms; 0 = off), for "
                 "comparisons")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--monitor-ms", o.monitor_ms,
                 "NVML sampling interval for the device state beside each problem's tuning and "
                 "re-measurement (0 = off)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--placement-probe", o.remeasure.placement_probe,
               "Time the evaluation's solutions three more times (same operands, a second "
               "allocation, a third with other values) and print them in --details");
  app.add_option("--headroom-gap-ms", o.remeasure.headroom_gap_ms,
                 "Idle time after every turn of the evaluation with clock headroom (0 = no such "
                 "evaluation)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--lead-in-ms", o.remeasure.lead_in_ms,
                 "Untimed run of each solution right before each of its timed turns in the sweep "
                 "and the evaluation (0 = none)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--warmup-s", o.warmup_s,
                 "Seconds of tuning and re-measuring the first problem, discarded, before it")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--rounds", o.remeasure.rounds, "Interleaved re-measurement rounds")
      ->check(CLI::PositiveNumber);
  app.add_option("--iterations", o.remeasure.caps.max_iterations,
                 "Re-measurement iterations per solution per round (cap)");
  app.add_option("--duration-ms", o.remeasure.caps.max_duration_ms,
                 "Re-measurement milliseconds per solution per round (cap)");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> args(argv, argv + argc);
  args.front() = std::filesystem::path(args.front()).filename().string();
  try {
    return run(o, fmt::format("{}", fmt::join(args, " ")));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune_llm_bench: %s\n", e.what());
    return 1;
  }
}

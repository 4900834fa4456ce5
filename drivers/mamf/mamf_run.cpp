#include "drivers/mamf/mamf_run.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>

#include "db/atomic_file.hpp"
#include "db/results_store.hpp"
#include "drivers/mamf/shape_bench.hpp"
#include "drivers/mamf/shape_store.hpp"
#include "drivers/mamf/svg_plot.hpp"
#include "drivers/monitor/start_monitor.hpp"
#include "drivers/solution_resolver.hpp"
#include "tuner/error.hpp"
#include "validator/collect.hpp"
#include "validator/compare.hpp"

namespace gemmtune::mamf {
namespace {

std::atomic<bool> g_stop{false};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string local_time_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string platform_text() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return fmt::format("{} {} {} {} {}", u.sysname, u.nodename, u.release, u.version, u.machine);
}

std::string device_text(const DeviceProperties& p) {
  return fmt::format(
      "{} device {}: name='{}', architecture={}, compute_units={}, memory={} MiB, "
      "last_level_cache={} MiB",
      p.backend, p.ordinal, p.name, p.architecture, p.compute_units, p.memory_bytes >> 20,
      p.last_level_cache_bytes >> 20);
}

// Solutions a results file names, by signature; the table of this environment wins over others.
// `elsewhere` is set where no table is this environment's, so that the run can say so (as bench
// does): its solutions are still used where they run here.
std::map<ResultKey, std::string> load_results(const std::string& file, const Environment& env,
                                              bool& elsewhere) {
  std::map<ResultKey, std::string> out;
  // Opening a .db that is not there would create it, empty: a misspelt name must be an error.
  require_regular_file("--results " + file, file);
  auto store = open_results_store(file);
  auto tables = store->load();
  std::stable_sort(tables.begin(), tables.end(), [&](const ResultsTable& a, const ResultsTable& b) {
    return (a.environment == env) > (b.environment == env);
  });
  elsewhere = !tables.empty();
  for (const auto& table : tables) {
    elsewhere = elsewhere && environment_rank(table.environment, env) == 0;
    for (const auto& e : table.entries)
      out.emplace(ResultKey{e.op_signature, e.params_signature}, e.solution);
  }
  return out;
}

std::optional<Efficiency> efficiency_for(const MamfOptions& o) {
  if (o.peak_tflops) return Efficiency{*o.peak_tflops, "--peak-tflops"};
  if (!o.device_spec) return std::nullopt;
  const auto peak = o.device_spec->peak_tflops(info(o.dtype).cli_name);
  if (!peak) return std::nullopt;
  return Efficiency{*peak, fmt::format("{} spec", o.device_spec->name)};
}

// --plot is written at the end: its directory is made and checked now, as --output_file's is,
// so that a bad path fails before the sweep, not after it.
void check_plot_file(const std::string& file) {
  const std::filesystem::path path(file);
  std::error_code ec;
  // One that cannot be made is check_can_write's to report.
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  try {
    check_can_write(path);
  } catch (const InputError& e) {
    throw InputError(fmt::format("--plot {}", e.what()));
  }
}

// Whether Default runs this dtype at all here: a small shape, so that only the dtype can fail.
bool dtype_runs(const Registry& registry, std::string_view backend, DType dtype,
                const SearchOptions& limits) {
  const Problem probe = problem_for_shape(Shape{64, 64, 64}, dtype);
  return resolve_solution(registry, backend, probe, kDefaultSolutionName, limits).solution !=
         nullptr;
}

// Shapes a --results file had no entry for, measured with Default: said, so that a "looked-up"
// column equal to Default is not read as the file's choice.
std::string missing_shapes_note(const std::string& file, const std::vector<std::string>& shapes) {
  return fmt::format(
      "{}: no entry for {} shape(s), measured with Default in the looked-up column "
      "(add --tuned to tune them): {}",
      file, shapes.size(), list_some_shapes(shapes));
}

}  // namespace

void request_mamf_stop() noexcept {
  g_stop.store(true);
}

MamfResult run_mamf(const MamfOptions& o, MamfObserver& observer, const std::string& command_line) {
  const auto started = Clock::now();
  const auto started_wall = std::chrono::system_clock::now();
  g_stop.store(false);
  MamfResult result;
  const std::vector<Shape> shapes = make_shapes(o.m, o.n, o.k);
  if (!o.plot_file.empty()) check_plot_file(o.plot_file);
  result.planned_shapes = static_cast<int>(shapes.size());
  double flops_total = 0;
  for (const auto& s : shapes) flops_total += s.flops();

  BackendSession session = open_backend(o.backend, o.device);
  // mamf-finder.py stops where it finds no accelerator; a sweep sized for a GPU measured on the
  // CPU instead (a driver that did not load, CUDA_VISIBLE_DEVICES left empty) takes hours.
  if (o.backend == BackendKind::Auto && resolve_backend_kind(o.backend) == BackendKind::Cpu) {
    observer.warning(
        "no CUDA GPU is visible, so --backend auto measures the CPU (give --backend cpu to mean "
        "it; otherwise check the driver and CUDA_VISIBLE_DEVICES)");
  }
  Backend& backend = *session.backend;
  const Registry& registry = *session.registry;
  const DeviceProperties& props = backend.properties();
  result.device_name = props.name;
  monitor::MonitorOptions monitor_options;
  monitor_options.interval_ms = o.monitor_interval_ms;
  monitor::MonitorStart gpu = monitor::start_monitor_for(backend, monitor_options);
  const Environment environment = collect_environment(backend);
  result.efficiency = efficiency_for(o);
  std::map<ResultKey, std::string> looked_up;
  if (!o.results_file.empty()) {
    bool elsewhere = false;
    looked_up = load_results(o.results_file, environment, elsewhere);
    if (elsewhere) {
      result.notes.push_back(fmt::format(
          "{} was measured in another environment; its solutions are used where they run here",
          o.results_file));
      observer.warning(result.notes.back());
    }
  }
  result.has_tuned = o.tuned || !o.results_file.empty();
  const std::string tuned_label =
      o.tuned ? (o.results_file.empty() ? "tuned" : "looked-up or tuned") : "looked-up";
  std::optional<ShapeStore> store;
  if (!o.store_file.empty()) {
    store.emplace(o.store_file, environment);
    for (const std::string& note : store->unreadable_notes()) {
      result.notes.push_back(note);
      observer.warning(result.notes.back());
    }
  }

  // The dtype must run at all. A shape that cannot (too large, say) is only skipped, with its
  // reason, as in the sweep; blaming the dtype for it would send the user the wrong way.
  if (!dtype_runs(registry, props.backend, o.dtype, o.tuner.search)) {
    const Problem first = problem_for_shape(shapes.front(), o.dtype);
    auto d = resolve_solution(registry, props.backend, first, kDefaultSolutionName, o.tuner.search);
    throw InputError(fmt::format("--dtype {} does not run on the {} backend: {}",
                                 info(o.dtype).cli_name, props.backend, d.warning));
  }
  const Problem first = problem_for_shape(shapes.front(), o.dtype);

  HeaderInfo header;
  header.started_at = local_time_now();
  header.command_line = command_line;
  header.dtype = std::string(info(o.dtype).cli_name);
  header.platform = platform_text();
  header.device = device_text(props);
  header.versions.emplace_back("gemmtune", std::string(gemmtune_version()));
  const Environment versions = backend.versions();
  for (const auto& [key, value] : versions.entries()) header.versions.emplace_back(key, value);
  header.measurement = {
      fmt::format("C = A(MxK) . B(KxN) as torch.mm computes it ({}), FLOPs = 2*M*N*K",
                  first.op_signature()),
      fmt::format("{} warm-up and {} timed iterations per shape, one timer pair per iteration",
                  o.bench.warmup_iterations, o.bench.iterations),
      o.bench.rotate
          ? std::string("inputs rotate through copies covering twice the last-level cache")
          : fmt::format("before every iteration, untimed: a {} MiB buffer zeroed (cache "
                        "flush) and C re-randomized, as mamf-finder does (it zeroes 256 MiB; "
                        "gemmtune that or twice the last-level cache, the larger)",
                        flush_bytes(backend) >> 20),
      "random inputs in [-1, 1]",
      o.tuned ? fmt::format("--tuned: each shape tuned ({} finalists, the {} fastest confirmed "
                            "beside Default, numerical check {}), the winner measured beside "
                            "Default",
                            o.tuner.timing.max_finalists, o.tuner.timing.confirmation_contenders,
                            to_string(o.tuner.check))
              : std::string("solution: Default"),
  };
  if (!o.results_file.empty())
    header.measurement.push_back("solutions looked up in " + o.results_file);
  if (result.efficiency) {
    header.measurement.push_back(fmt::format("peak: {:.1f} TFLOPS dense {} ({})",
                                             result.efficiency->peak_tflops, info(o.dtype).cli_name,
                                             result.efficiency->source));
  }
  if (!gpu.note.empty()) header.measurement.push_back(gpu.note);
  header.notes = o.notes;
  header.configuration = o.config;
  observer.text(format_header(header));

  // Warm-up on the first shape, as mamf-finder does, until its timings settle.
  MamfProgress progress;
  progress.total = result.planned_shapes;
  progress.flops_total = flops_total;
  progress.phase = "warming up";
  progress.shape = shapes.front();
  observer.progress(progress);
  observer.text("Warming up the accelerator until timings settle ... ");
  const std::unique_ptr<Buffer> flush = backend.allocate(flush_bytes(backend));
  if (o.warmup.max_seconds > 0) {
    // On the first shape that runs and fits; one that does not is skipped by the sweep, with
    // its note, wherever it stands.
    std::unique_ptr<ShapeBench> bench;
    std::unique_ptr<Solution> solution;
    Problem problem = first;
    for (std::size_t i = 0; i < shapes.size() && !bench; ++i) {
      try {
        problem = problem_for_shape(shapes[i], o.dtype);
        auto d = resolve_solution(registry, props.backend, problem, kDefaultSolutionName,
                                  o.tuner.search);
        if (!d.solution) continue;
        bench = std::make_unique<ShapeBench>(backend, problem, o.bench,
                                             d.solution->workspace_bytes(problem), *flush);
        solution = std::move(d.solution);
      } catch (const DeviceError&) {
        throw;
      } catch (const std::exception&) {
        continue;  // does not fit: the sweep notes it
      }
    }
    if (bench) {
      result.warmup = warm_up(
          o.warmup,
          [&](double ms) {
            const Measurement m = bench->run_for(*solution, ms);
            if (!m.status) throw Error(__FILE__, __LINE__, "warm-up failed: " + m.status.error);
            return tflops_of(problem.flops(), m.stats).median;
          },
          g_stop);
    } else {
      result.warmup.skipped = true;
      result.warmup.skip_reason = "no shape can be measured";
    }
  } else {
    result.warmup.skipped = true;
  }
  const std::string warm_line = format_warmup(result.warmup);
  observer.text(warm_line.substr(warm_line.find("... ") + 4));

  const auto sweep_start = Clock::now();
  Tuner tuner(backend, registry, o.tuner);
  std::vector<std::string> not_in_results;  // looked up, absent, so measured with Default
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (g_stop.load()) {
      result.interrupted = true;
      break;
    }
    const Shape& shape = shapes[i];
    const Problem problem = problem_for_shape(shape, o.dtype);
    progress.index = static_cast<int>(i);
    progress.shape = shape;
    progress.sweep_seconds = seconds_since(sweep_start);
    try {
      auto def =
          resolve_solution(registry, props.backend, problem, kDefaultSolutionName, o.tuner.search);
      if (!def.solution) throw InputError(def.warning);
      std::unique_ptr<Solution> other;
      bool tuned_now = false;
      if (result.has_tuned) {
        std::string name;
        if (auto it = looked_up.find({problem.op_signature(), problem.params_signature()});
            it != looked_up.end()) {
          name = it->second;
        } else if (o.tuned) {
          progress.phase = "tuning";
          observer.progress(progress);
          const TuningReport report = tuner.tune(problem);
          tuned_now = true;
          if (report.fatal) throw DeviceError(__FILE__, __LINE__, report.error);
          if (!report.ok()) {
            result.notes.push_back(
                fmt::format("{}: not tuned ({}); Default used", shape.text(), report.error));
          }
          name = report.ok() ? report.winner : std::string(kDefaultSolutionName);
        } else {
          name = kDefaultSolutionName;
          not_in_results.push_back(shape.text());
        }
        if (name != kDefaultSolutionName) {
          auto r = resolve_solution(registry, props.backend, problem, name, o.tuner.search);
          if (r.fell_back) {
            result.notes.push_back(r.warning);
            observer.warning(r.warning);
          } else {
            other = std::move(r.solution);
          }
        }
      }
      progress.phase = "measuring";
      observer.progress(progress);
      const std::size_t workspace = std::max(def.solution->workspace_bytes(problem),
                                             other ? other->workspace_bytes(problem) : 0);
      ShapeBench bench(backend, problem, o.bench, workspace, *flush);
      if (tuned_now) {
        // Tuning leaves the device idle while the host checks results, and an idle GPU drops its
        // clocks within milliseconds: bring them back before measuring, as the sweep had them.
        SettleOptions again;
        again.window_ms = 50;
        again.min_windows = 3;
        again.stable_windows = 3;
        again.max_seconds = 1;
        warm_up(
            again,
            [&](double ms) {
              return tflops_of(problem.flops(), bench.run_for(*def.solution, ms).stats).median;
            },
            g_stop);
      }
      const auto measure = [&](Solution& s) {
        const monitor::MeasurementWindow window(gpu.monitor.get());
        const Measurement m = bench.measure(s);
        if (!m.status) throw InputError(fmt::format("{} failed: {}", s.name(), m.status.error));
        // A shape with no sample has no time: reporting (or storing) 0 would be a lie.
        if (m.samples_ms.empty()) throw InputError(fmt::format("{}: no timed iteration", s.name()));
        return ShapeResult{shape, tflops_of(problem.flops(), m.stats), m.stats, s.name()};
      };
      const ShapeResult base = measure(*def.solution);
      result.baseline.add(base);
      observer.text(format_shape_line(result.baseline.shapes(), base, result.baseline));
      ShapeResult best_here = base;
      if (result.has_tuned) {
        const ShapeResult tuned = other ? measure(*other) : base;
        result.tuned.add(tuned);
        observer.text(format_tuned_line(tuned, base, result.tuned));
        if (tuned.tflops.median > base.tflops.median) best_here = tuned;
      }
      if (store) {
        try {
          store->add(problem, base, best_here);
        } catch (const std::exception& e) {
          // Measured and reported all the same: only the store lacks it.
          result.notes.push_back(fmt::format("{}: measured, but not stored in {}: {}", shape.text(),
                                             o.store_file, e.what()));
          observer.warning(result.notes.back());
        }
      }
    } catch (const DeviceError& e) {
      result.notes.push_back(
          fmt::format("{}: the device failed ({}); sweep ended", shape.text(), e.message()));
      observer.warning(result.notes.back());
      break;
    } catch (const std::exception& e) {
      result.notes.push_back(fmt::format("{}: not measured: {}", shape.text(), e.what()));
      observer.warning(result.notes.back());
    }
    progress.flops_done += shape.flops();
    const SweepSummary& reported = result.has_tuned ? result.tuned : result.baseline;
    progress.best_mean_tflops = reported.best().mean;
    progress.best_shape = reported.best_mean_shape().text();
    progress.sweep_seconds = seconds_since(sweep_start);
    progress.index = static_cast<int>(i + 1);
    observer.progress(progress);
  }

  if (!not_in_results.empty()) {
    result.notes.push_back(missing_shapes_note(o.results_file, not_in_results));
    observer.warning(result.notes.back());
  }
  if (store && !store->kept_note().empty()) {
    result.notes.push_back(store->kept_note());
    observer.warning(result.notes.back());
  }

  // Sustained: hold the best shape (by mean, of the better series) for the window.
  const SweepSummary& best_series =
      result.has_tuned && result.tuned.best().mean > result.baseline.best().mean ? result.tuned
                                                                                 : result.baseline;
  // A stop before the window or within it cuts the run short as a stop within the sweep does.
  bool sustained_cut = o.sustained_seconds > 0 && best_series.shapes() > 0 && g_stop.load();
  if (o.sustained_seconds > 0 && best_series.shapes() > 0 && !g_stop.load()) {
    const Shape shape = best_series.best_mean_shape();
    std::string solution_name;
    double burst = 0;
    for (const auto& r : best_series.results()) {
      if (r.shape == shape) solution_name = r.solution, burst = r.tflops.mean;
    }
    const Problem problem = problem_for_shape(shape, o.dtype);
    auto sol = resolve_solution(registry, props.backend, problem, solution_name, o.tuner.search);
    ShapeBench bench(backend, problem, o.bench, sol.solution->workspace_bytes(problem), *flush);
    SustainedResult s{shape, sol.solution->name(), 0, 0, 0, burst};
    double total_ms = 0, iterations = 0;
    progress.phase = "sustained";
    observer.progress(progress);
    bench.run_for(*sol.solution, 1.0);  // sizes the windows; not counted
    const monitor::MeasurementWindow measuring(gpu.monitor.get());
    const auto held_since = Clock::now();
    while (seconds_since(held_since) < o.sustained_seconds && !g_stop.load()) {
      const Measurement m = bench.run_for(*sol.solution, 1000.0);
      if (!m.status || m.samples_ms.empty()) break;
      const double ms = m.stats.mean_ms * m.stats.iterations;
      const double window = problem.flops() * m.stats.iterations / (ms * 1e-3) / 1e12;
      s.slowest_window_tflops =
          s.slowest_window_tflops == 0 ? window : std::min(s.slowest_window_tflops, window);
      total_ms += ms;
      iterations += m.stats.iterations;
    }
    sustained_cut = g_stop.load() && seconds_since(held_since) < o.sustained_seconds;
    if (total_ms > 0) {
      s.seconds = seconds_since(held_since);
      s.tflops = problem.flops() * iterations / (total_ms * 1e-3) / 1e12;
      result.sustained = s;
    }
  }
  if (g_stop.load()) {
    result.sustained_cut = sustained_cut;
    result.interrupted =
        result.interrupted || result.baseline.shapes() < result.planned_shapes || sustained_cut;
  }

  result.elapsed_seconds = seconds_since(started);
  SummaryInfo summary;
  summary.baseline = &result.baseline;
  summary.tuned = result.has_tuned ? &result.tuned : nullptr;
  summary.tuned_label = tuned_label;
  summary.range_info = describe_ranges(o.m, o.n, o.k);
  summary.dtype = std::string(info(o.dtype).cli_name);
  summary.efficiency = result.efficiency;
  summary.sustained = result.sustained;
  summary.warmup = result.warmup;
  summary.interrupted = result.interrupted;
  summary.sustained_cut = result.sustained_cut;
  summary.planned_shapes = result.planned_shapes;
  summary.notes = result.notes;
  summary.elapsed_seconds = result.elapsed_seconds;
  if (gpu.monitor) {
    gpu.monitor->stop();
    result.monitor = gpu.monitor->summary();
    summary.monitor = monitor::format_monitor_summary(*result.monitor);
  }
  observer.text(format_summary(summary));

  // The run record first: a plot that cannot be written must not cost it.
  if (store) {
    store->record_run({command_line, describe(o), started_wall, std::chrono::system_clock::now(),
                       result.interrupted ? "interrupted" : "ok"});
  }
  if (!o.plot_file.empty()) {
    const std::string svg = plot_sweep(
        result.baseline.results(), result.tuned.results(), tuned_label,
        fmt::format("gemmtune mamf: {} on {}", info(o.dtype).cli_name, props.name),
        result.efficiency ? std::optional<double>(result.efficiency->peak_tflops) : std::nullopt);
    write_file_atomically(o.plot_file, svg);
  }
  return result;
}

}  // namespace gemmtune::mamf

// A whole MAMF run: open the backend, warm the device up until its timings settle, sweep every
// shape (Default, and with --tuned / --results the tuned or looked-up solution too), optionally
// hold the best shape for a sustained window, and summarize — mamf-finder.py's job on gemmtune's
// backends, solutions and profiler.
//
// Contract:
// - Everything that goes into mamf-finder's output (header, warm-up line, shape lines, summary)
//   is passed to MamfObserver::text as it happens, so the output file is complete up to the shape
//   in flight whenever the run ends; progress and warnings go to their own callbacks.
// - A shape that cannot be measured (too large, unsupported, failing) is noted and skipped; the
//   sweep goes on. A lost device ends the sweep with what was measured.
// - request_mamf_stop() (from a signal handler) ends the sweep after the shape in flight; the run
//   then returns normally, interrupted, with its summary, plot and store written.
// - Options that cannot work (bad ranges, an unknown dtype for the backend, a results file that
//   does not load) are InputErrors before anything is measured.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/mamf/mamf_options.hpp"
#include "drivers/mamf/mamf_report.hpp"
#include "drivers/mamf/sweep_stats.hpp"
#include "drivers/monitor/monitor_summary.hpp"

namespace gemmtune::mamf {

struct MamfProgress {
  std::string phase;  // "warming up", "tuning", "measuring", "sustained"
  int index = 0;      // 0-based shape index
  int total = 0;
  Shape shape;
  double flops_done = 0;   // summed FLOPs per iteration of the shapes finished
  double flops_total = 0;  // ... of every shape
  double sweep_seconds = 0;  // wall time since the sweep (after warm-up) began
  double best_mean_tflops = 0;
  std::string best_shape;
};

class MamfObserver {
 public:
  virtual ~MamfObserver() = default;
  virtual void text(std::string_view text) = 0;
  virtual void progress(const MamfProgress& progress) { (void)progress; }
  virtual void warning(std::string_view message) { (void)message; }
};

struct MamfResult {
  SweepSummary baseline;  // Default
  SweepSummary tuned;     // the tuned / looked-up solution per shape
  bool has_tuned = false;
  WarmupResult warmup;
  std::optional<SustainedResult> sustained;
  std::optional<Efficiency> efficiency;
  bool interrupted = false;
  bool sustained_cut = false;  // interrupted before or within --sustained's window
  int planned_shapes = 0;
  std::vector<std::string> notes;
  double elapsed_seconds = 0;
  std::string device_name;
  // What the GPU monitor saw; its measurement windows are the timed measurements of the sweep
  // and the sustained window. Empty where the monitor was off.
  std::optional<monitor::MonitorSummary> monitor;
};

MamfResult run_mamf(const MamfOptions& options, MamfObserver& observer,
                    const std::string& command_line);

// Signal-safe: the sweep stops after the shape in flight.
void request_mamf_stop() noexcept;

}  // namespace gemmtune::mamf

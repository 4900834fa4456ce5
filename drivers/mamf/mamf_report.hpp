// The text of a MAMF run, in mamf-finder.py's layout so that the two outputs compare line by line:
// a header (start time, command line, dtype, platform and device, software versions, notes), one
// line per shape, and the closing summary (best shape by mean, median and max; arithmetic and
// geometric means across shapes; elapsed time). gemmtune's additions (the settled warm-up, the
// tuned series, efficiency against the peak, the sustained figure) are extra lines that a parser
// of mamf-finder's output skips: every mamf-finder line keeps its exact format.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "drivers/mamf/clock_warmup.hpp"
#include "drivers/mamf/sweep_stats.hpp"

namespace gemmtune::mamf {

struct HeaderInfo {
  std::string started_at;    // local time, "2026-11-21 10:55:06"
  std::string command_line;
  std::string dtype;
  std::string platform;      // uname: sysname nodename release version machine
  std::string device;
  std::vector<std::pair<std::string, std::string>> versions;
  std::vector<std::string> measurement;  // how it measures, one item per line
  std::string configuration;  // the effective configuration (TOML); empty: no section
  std::string notes;
};

std::string format_header(const HeaderInfo& header);

// "Warming up the accelerator until timings settle ... settled after 1.2 s (...)".
std::string format_warmup(const WarmupResult& warmup);

// mamf-finder's per-shape line; `best` is the series' summary after adding this shape.
std::string format_shape_line(int index, const ShapeResult& result, const SweepSummary& best);
// The tuned series' line under it: " tuned | ... | best: ... TFLOPS | +1.2% SOLUTION".
std::string format_tuned_line(const ShapeResult& tuned, const ShapeResult& baseline,
                              const SweepSummary& best);

struct SustainedResult {
  Shape shape;
  std::string solution;
  double seconds = 0;        // device time covered
  double tflops = 0;         // over the whole window
  double slowest_window_tflops = 0;
  double burst_tflops = 0;   // the shape's mean TFLOPS in the sweep
};

struct Efficiency {
  double peak_tflops = 0;
  std::string source;  // "NVIDIA H200 SXM spec" or "--peak-tflops"
};

struct SummaryInfo {
  const SweepSummary* baseline = nullptr;
  const SweepSummary* tuned = nullptr;  // null without --tuned / --results
  std::string tuned_label;              // "tuned", "from results file", ...
  std::string range_info;
  std::string dtype;
  std::optional<Efficiency> efficiency;
  std::optional<SustainedResult> sustained;
  std::optional<WarmupResult> warmup;
  bool interrupted = false;
  bool sustained_cut = false;  // the stop came before or within --sustained's window
  int planned_shapes = 0;
  std::vector<std::string> notes;  // shapes that failed, fallbacks
  std::string monitor;  // the GPU monitor's summary (monitor::format_monitor_summary); "": none
  double elapsed_seconds = 0;
};

std::string format_summary(const SummaryInfo& info);

// Python's str(timedelta) without the fraction: "0:00:37", "1:02:03".
std::string format_elapsed(double seconds);

}  // namespace gemmtune::mamf

// Clock warm-up by measurement: instead of mamf-finder's fixed 30 s of load, run the first shape
// in short windows and stop as soon as its throughput has settled — a GPU leaving idle raises its
// clocks over a few hundred milliseconds, and a sweep started before that under-reports its first
// shapes.
//
// Contract (SettleDetector, pure so that it is tested without a device): it is fed one throughput
// per window (the window's median TFLOPS). It reports settled once at least `min_windows` were
// seen and the last `stable_windows` lie within `tolerance_percent` of each other (max − min over
// max). The driver (warm_up) also stops at `max_seconds` of wall time, unsettled, and reports how
// long it took either way; max_seconds == 0 skips the warm-up.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace gemmtune::mamf {

struct SettleOptions {
  double window_ms = 250;  // wall time per window
  int min_windows = 8;     // at least 2 s of load with the defaults
  int stable_windows = 4;
  double tolerance_percent = 0.5;
  double max_seconds = 30;  // mamf-finder's fixed warm-up, as the upper bound
};

class SettleDetector {
 public:
  explicit SettleDetector(const SettleOptions& options) : options_(options) {}
  // Adds one window's throughput; returns settled().
  bool add(double tflops);
  bool settled() const;
  // The spread of the last stable_windows windows, in percent (100 before there are enough).
  double spread_percent() const;
  const std::vector<double>& windows() const { return windows_; }

 private:
  SettleOptions options_;
  std::vector<double> windows_;
};

struct WarmupResult {
  bool skipped = false;
  std::string skip_reason;  // why, when skipped for another reason than --max-warmup-seconds 0
  bool settled = false;
  bool interrupted = false;
  double seconds = 0;  // wall time spent warming up
  int windows = 0;
  double last_tflops = 0;  // median TFLOPS of the last window
  double spread_percent = 0;
};

// Runs `window(ms)` (which measures one window of `ms` device time and returns its median
// TFLOPS) until the detector settles, `max_seconds` pass, or `stop` is set.
WarmupResult warm_up(const SettleOptions& options, const std::function<double(double)>& window,
                     const std::atomic<bool>& stop);

}  // namespace gemmtune::mamf

#include "drivers/mamf/clock_warmup.hpp"

#include <algorithm>
#include <chrono>

namespace gemmtune::mamf {

bool SettleDetector::add(double tflops) {
  windows_.push_back(tflops);
  return settled();
}

double SettleDetector::spread_percent() const {
  const int n = std::max(options_.stable_windows, 2);
  if (static_cast<int>(windows_.size()) < n) return 100.0;
  const auto first = windows_.end() - n;
  const auto [lo, hi] = std::minmax_element(first, windows_.end());
  if (*hi <= 0) return 100.0;
  return 100.0 * (*hi - *lo) / *hi;
}

bool SettleDetector::settled() const {
  if (static_cast<int>(windows_.size()) < std::max(options_.min_windows, 1)) return false;
  return spread_percent() <= options_.tolerance_percent;
}

WarmupResult warm_up(const SettleOptions& options, const std::function<double(double)>& window,
                     const std::atomic<bool>& stop) {
  WarmupResult result;
  if (options.max_seconds <= 0) {
    result.skipped = true;
    return result;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  SettleDetector detector(options);
  while (true) {
    if (stop.load()) {
      result.interrupted = true;
      break;
    }
    result.last_tflops = window(options.window_ms);
    if (detector.add(result.last_tflops)) {
      result.settled = true;
      break;
    }
    if (elapsed() >= options.max_seconds) break;
  }
  result.seconds = elapsed();
  result.windows = static_cast<int>(detector.windows().size());
  result.spread_percent = detector.spread_percent();
  return result;
}

}  // namespace gemmtune::mamf

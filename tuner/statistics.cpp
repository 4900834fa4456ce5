#include "tuner/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace gemmtune {

Statistics summarize(std::span<const double> samples_ms) {
  Statistics s;
  s.iterations = static_cast<int>(samples_ms.size());
  if (samples_ms.empty()) return s;
  std::vector<double> sorted(samples_ms.begin(), samples_ms.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.min_ms = sorted.front();
  s.max_ms = sorted.back();
  s.mean_ms = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double sum_sq = 0;
    for (double x : sorted) sum_sq += (x - s.mean_ms) * (x - s.mean_ms);
    s.stddev_ms = std::sqrt(sum_sq / static_cast<double>(n - 1));
  }
  return s;
}

}  // namespace gemmtune

#include "tuner/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace gemmtune {

namespace {

double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return 0;
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

}  // namespace

double median(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return median_of_sorted(sorted);
}

double median_standard_error(std::span<const double> samples, double center) {
  std::vector<double> deviations;
  deviations.reserve(samples.size());
  for (double x : samples) deviations.push_back(std::fabs(x - center));
  const double sigma = 1.4826 * median(deviations);
  return 1.2533 * sigma / std::sqrt(static_cast<double>(std::max<std::size_t>(samples.size(), 1)));
}

Statistics summarize(std::span<const double> samples_ms) {
  Statistics s;
  s.iterations = static_cast<int>(samples_ms.size());
  if (samples_ms.empty()) return s;
  std::vector<double> sorted(samples_ms.begin(), samples_ms.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.median_ms = median_of_sorted(sorted);
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

#include "drivers/mamf/sweep_stats.hpp"

#include <cmath>

namespace gemmtune::mamf {
namespace {

double tflops_at(double flops, double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0; }

}  // namespace

Tflops tflops_of(double flops, const Statistics& stats) {
  if (stats.iterations == 0) return {};
  return {tflops_at(flops, stats.mean_ms), tflops_at(flops, stats.median_ms),
          tflops_at(flops, stats.min_ms)};
}

Tflops tflops_of(double flops, std::span<const double> samples_ms) {
  return tflops_of(flops, summarize(samples_ms));
}

void SweepSummary::add(const ShapeResult& r) {
  results_.push_back(r);
  if (r.tflops.mean > best_.mean) best_.mean = r.tflops.mean, best_mean_shape_ = r.shape;
  if (r.tflops.median > best_.median) best_.median = r.tflops.median, best_median_shape_ = r.shape;
  if (r.tflops.max > best_.max) best_.max = r.tflops.max, best_max_shape_ = r.shape;
}

double SweepSummary::arithmetic_mean() const {
  if (results_.empty()) return 0;
  double sum = 0;
  for (const auto& r : results_) sum += r.tflops.mean;
  return sum / static_cast<double>(results_.size());
}

double SweepSummary::geometric_mean() const {
  if (results_.empty()) return 0;
  double log_sum = 0;
  for (const auto& r : results_) {
    if (r.tflops.mean <= 0) return 0;
    log_sum += std::log(r.tflops.mean);
  }
  return std::exp(log_sum / static_cast<double>(results_.size()));
}

}  // namespace gemmtune::mamf

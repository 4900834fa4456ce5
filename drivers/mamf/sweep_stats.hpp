// Sweep statistics: what mamf-finder reports per shape and across shapes, computed the same way.
//
// Per shape (from per-iteration samples in ms, warm-up excluded): mean TFLOPS = FLOPs / mean
// time, median TFLOPS = FLOPs / median time (numpy's median: the average of the two middle
// samples for an even count), max TFLOPS = FLOPs / the fastest sample. TFLOPS = 10^12 FLOP/s.
// Across shapes: the best shape by each of the three (the first one wins ties, as mamf-finder's
// strict ">" does) and the arithmetic and geometric means of the per-shape *mean* TFLOPS.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "drivers/mamf/shape_range.hpp"
#include "tuner/statistics.hpp"

namespace gemmtune::mamf {

struct Tflops {
  double mean = 0, median = 0, max = 0;
};

// TFLOPS of `flops` per iteration for the given samples; all zeros without samples.
Tflops tflops_of(double flops, const Statistics& stats);
Tflops tflops_of(double flops, std::span<const double> samples_ms);

struct ShapeResult {
  Shape shape;
  Tflops tflops;
  Statistics stats;      // of the timed samples
  std::string solution;  // "Default", or the tuned / looked-up solution's name
};

// The running summary of one series (Default, or tuned) of a sweep.
class SweepSummary {
 public:
  void add(const ShapeResult& result);

  int shapes() const { return static_cast<int>(results_.size()); }
  const std::vector<ShapeResult>& results() const { return results_; }
  // Best so far by each measure (zeros and an empty shape before the first result).
  const Tflops& best() const { return best_; }
  const Shape& best_mean_shape() const { return best_mean_shape_; }
  const Shape& best_median_shape() const { return best_median_shape_; }
  const Shape& best_max_shape() const { return best_max_shape_; }
  // Of the per-shape mean TFLOPS; 0 without results (geometric: also 0 if any is 0).
  double arithmetic_mean() const;
  double geometric_mean() const;

 private:
  std::vector<ShapeResult> results_;
  Tflops best_;
  Shape best_mean_shape_, best_median_shape_, best_max_shape_;
};

}  // namespace gemmtune::mamf

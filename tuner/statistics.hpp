// Statistics of per-iteration timing samples, the numbers every report and store carries.
#pragma once

#include <span>

namespace gemmtune {

struct Statistics {
  int iterations = 0;
  double median_ms = 0;
  double mean_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double stddev_ms = 0;

  // Relative spread of the samples: stddev over median, in percent (0 with fewer than 2).
  double noise_percent() const { return median_ms > 0 ? 100.0 * stddev_ms / median_ms : 0.0; }
};

// The median of the values (0 for none).
double median(std::span<const double> values);

// Standard error of the median of samples around their median `center`: ≈ 1.2533·σ/√n for
// normal samples, with σ from the median absolute deviation so that one outlier cannot hide a
// real difference or invent one.
double median_standard_error(std::span<const double> samples, double center);

// Summarizes samples in milliseconds; an empty span gives all zeros.
Statistics summarize(std::span<const double> samples_ms);

}  // namespace gemmtune

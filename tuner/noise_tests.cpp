#include "tuner/noise_tests.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tuner/statistics.hpp"

namespace gemmtune {
namespace {

// The margin is set for 8 rounds (7 degrees of freedom). With fewer rounds that both ran, the
// mean's t distribution has heavier tails, and the same margin would pass a candidate no faster
// than Default more often (at 3 standard errors: 1% of the time at 8 rounds, 3% at 4). Scaling
// the margin by the ratio of Student's t quantiles (one-sided 99%) keeps that rate.
double fewer_rounds_factor(std::size_t rounds) {
  constexpr double kT99[] = {4.541, 3.747, 3.365, 3.143, 2.998};  // 3 to 7 degrees of freedom
  if (rounds >= 8) return 1.0;
  return kT99[rounds - 4] / kT99[4];
}

}  // namespace

bool beats_default(std::span<const double> challenger_ms, std::span<const double> reference_ms,
                   double margin_sigmas) {
  if (challenger_ms.empty()) return false;
  if (reference_ms.empty()) return true;
  const double challenger = median(challenger_ms);
  const double reference = median(reference_ms);
  // One sample has no spread to measure: its standard error would come out 0, and any lower
  // median would pass as beyond the noise (a GEMM of 30 ms or more gets one sample a phase). It
  // is taken as kSingleSampleNoise of its time instead, the run-to-run variation of one GEMM.
  const auto standard_error = [](std::span<const double> samples, double m) {
    return samples.size() < 2 ? kSingleSampleNoise * m : median_standard_error(samples, m);
  };
  const double threshold = margin_sigmas * std::hypot(standard_error(challenger_ms, challenger),
                                                      standard_error(reference_ms, reference));
  return challenger < reference - threshold;
}

bool beats_default_paired(std::span<const double> challenger_round_ms,
                          std::span<const double> reference_round_ms, double margin_sigmas) {
  const std::size_t rounds = std::min(challenger_round_ms.size(), reference_round_ms.size());
  std::vector<double> logs;
  logs.reserve(rounds);
  for (std::size_t i = 0; i < rounds; ++i) {
    if (std::isnan(challenger_round_ms[i]) || std::isnan(reference_round_ms[i])) continue;
    if (challenger_round_ms[i] <= 0 || reference_round_ms[i] <= 0) return false;
    logs.push_back(std::log(challenger_round_ms[i] / reference_round_ms[i]));
  }
  const std::size_t n = logs.size();
  if (n < 4) return false;
  double mean = 0;
  for (double x : logs) mean += x;
  mean /= static_cast<double>(n);
  double variance = 0;
  for (double x : logs) variance += (x - mean) * (x - mean);
  variance /= static_cast<double>(n - 1);
  const double standard_error = std::sqrt(variance / static_cast<double>(n));
  return mean < 0 && -mean > margin_sigmas * fewer_rounds_factor(n) * standard_error;
}

bool beats_default_either(std::span<const double> challenger_ms,
                          std::span<const double> challenger_round_ms,
                          std::span<const double> reference_ms,
                          std::span<const double> reference_round_ms, double margin_sigmas) {
  if (beats_default(challenger_ms, reference_ms, margin_sigmas)) return true;
  return !challenger_ms.empty() && !reference_ms.empty() &&
         median(challenger_ms) < median(reference_ms) &&
         beats_default_paired(challenger_round_ms, reference_round_ms, margin_sigmas + 1);
}

}  // namespace gemmtune

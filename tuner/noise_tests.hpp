// The two tests by which a candidate beats Default beyond the measured noise: the pooled test over
// every sample, and the paired test over the medians of the interleaved rounds. The Tuner replaces
// Default only when one of them passes (and the gain reaches TunerOptions::min_gain).
#pragma once

#include <limits>
#include <span>

namespace gemmtune {

// True when `challenger` is faster than `reference` (Default) beyond the noise: its median is
// lower by more than `margin_sigmas` standard errors of the difference of the two medians. The
// spread is estimated robustly (1.4826 × median absolute deviation), so that one outlier sample
// neither hides a real gain nor invents one. A side with one sample, which measures no spread,
// is taken to vary by kSingleSampleNoise of its time.
inline constexpr double kSingleSampleNoise = 0.02;  // GEMMs vary 1-3% between runs on an H200
bool beats_default(std::span<const double> challenger_ms, std::span<const double> reference_ms,
                   double margin_sigmas);

// The paired form, over the medians of the measurement's interleaved rounds (round i of each
// measured both within one pass over the finalists): true when the mean of log(challenger_i /
// reference_i) is below zero by more than `margin_sigmas` of its standard error. A drift of the
// device's speed between rounds moves both medians of a round alike and cancels here, where it
// widens the pooled spread of beats_default: on an H200 a cuBLASLt configuration 1% faster than
// Default in every round stayed within the pooled noise and lost (bench/results/
// 2026-11-21-h200-run6.md, #31). A round that either side did not run (kNoRound, NaN) is left
// out; false with fewer than 4 rounds that both ran. `margin_sigmas` holds for 8 rounds; with 4-7
// it is raised by the ratio of Student's t quantiles, so that a candidate no faster than Default
// passes as rarely. The Tuner asks it for one standard error more than beats_default (see there).
inline constexpr double kNoRound = std::numeric_limits<double>::quiet_NaN();
bool beats_default_paired(std::span<const double> challenger_round_ms,
                          std::span<const double> reference_round_ms, double margin_sigmas);

// The two as the tuner asks them: the pooled test over the samples at `margin_sigmas`, or, where
// the challenger's median is the lower, the paired test over the rounds at one standard error
// more. Round i of either side must be the same round (kNoRound where one did not run).
bool beats_default_either(std::span<const double> challenger_ms,
                          std::span<const double> challenger_round_ms,
                          std::span<const double> reference_ms,
                          std::span<const double> reference_round_ms, double margin_sigmas);

}  // namespace gemmtune

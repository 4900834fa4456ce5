#include "tuner/numerical_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

bool parse_double(std::string_view text, double& out) {
  const std::string s(text);
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && std::isfinite(out) && out >= 0;
}

// Visits the (batch, row, col, index) of every element the GEMM writes.
template <class F>
void for_each_output(const Problem& p, F&& f) {
  const std::int64_t stride = p.batch_stride_c();
  for (std::int64_t b = 0; b < p.batch; ++b) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) f(b, i, j, b * stride + j * p.ldc + i);
    }
  }
}

}  // namespace

NumericalCheckOptions parse_numerical_check(std::string_view text) {
  if (text == "on" || text == "default" || text == "1" || text.empty()) return {};
  if (text == "off" || text == "0") return {NumericalCheckMode::Off, 0, 0};
  const auto underscore = text.find('_');
  double atol = 0, rtol = 0;
  if (underscore == std::string_view::npos || !parse_double(text.substr(0, underscore), atol) ||
      !parse_double(text.substr(underscore + 1), rtol)) {
    throw InputError(fmt::format(
        "numerical check '{}' is not one of on, off or ATOL_RTOL (e.g. 1e-5_1e-5)", text));
  }
  return {NumericalCheckMode::Explicit, atol, rtol};
}

std::string to_string(const NumericalCheckOptions& o) {
  switch (o.mode) {
    case NumericalCheckMode::Default: return "on";
    case NumericalCheckMode::Off: return "off";
    case NumericalCheckMode::Explicit: return fmt::format("{}_{}", o.atol, o.rtol);
  }
  return "on";
}

double default_relative_tolerance(const Problem& p) {
  // Relative to the RMS of C. Each bound is roughly 10× the error an honest implementation makes
  // at the k of LLM GEMMs (k ≤ 16384), and far below the O(1) error of a wrong result (a wrong
  // transpose, a skipped k-block, a missing bias or scale), so a real bug is never let through.
  auto tol = [](DType t) {
    switch (t) {
      // Default accumulates in double; an fp64 BLAS differs by ~k·2^-53 ≈ 2e-12 at k = 16384.
      case DType::Float64:
      case DType::ComplexFloat64: return 1e-10;
      // fp32 accumulation: random-walk error ~√k·2^-24 ≈ 8e-6 at k = 16384, blocked/split-K
      // orders included.
      case DType::Float32:
      case DType::ComplexFloat32: return 1e-4;
      // TF32 rounds the inputs to 10 mantissa bits (2^-11 ≈ 4.9e-4 each): ~7e-4 on the sum.
      case DType::TF32: return 5e-3;
      // Output rounding alone is 2^-11 (fp16) / 2^-8 (bf16); fp32 accumulation of rounded inputs,
      // and the reduced-precision accumulators some tensor-core paths use, add a few times that.
      case DType::Float16: return 2e-2;
      case DType::BFloat16: return 5e-2;
      // fp8 inputs are exact in every implementation, but fp8 tensor cores accumulate with fewer
      // than 24 bits and scaled outputs are often fp8/bf16 themselves.
      case DType::Float8E4M3:
      case DType::Float8E5M2:
      case DType::Float8E4M3Fnuz:
      case DType::Float8E5M2Fnuz: return 1e-1;
    }
    return 1e-1;
  };
  // The loosest of the arithmetic type and the output type: a ScaledGemm writing bf16 is bounded
  // by fp8 arithmetic, an fp32 GEMM writing fp32 by fp32.
  return std::max(tol(p.a_type), tol(p.c_type));
}

Tolerance tolerance_for(const Problem& problem, const NumericalCheckOptions& options,
                        std::span<const double> reference) {
  if (options.mode == NumericalCheckMode::Explicit) return {options.atol, options.rtol};
  const bool complex = info(problem.c_type).is_complex;
  double sum_sq = 0;
  std::int64_t count = 0;
  for_each_output(problem, [&](std::int64_t, std::int64_t, std::int64_t, std::int64_t index) {
    for (int part = 0; part < (complex ? 2 : 1); ++part) {
      const double v = reference[static_cast<std::size_t>(complex ? 2 * index + part : index)];
      if (std::isfinite(v)) {
        sum_sq += v * v;
        ++count;
      }
    }
  });
  return tolerance_for_rms(problem, options,
                           count > 0 ? std::sqrt(sum_sq / static_cast<double>(count)) : 0.0);
}

Tolerance tolerance_for_rms(const Problem& problem, const NumericalCheckOptions& options,
                            double reference_rms) {
  if (options.mode == NumericalCheckMode::Explicit) return {options.atol, options.rtol};
  const double rtol = default_relative_tolerance(problem);
  // A floor keeps an all-zero reference (alpha = 0) from demanding bit-exact zeros.
  return {rtol * std::max(reference_rms, std::numeric_limits<double>::min()), rtol};
}

CheckResult compare_outputs(const Problem& problem, std::span<const double> reference,
                            std::span<const double> candidate, const Tolerance& tolerance) {
  const bool complex = info(problem.c_type).is_complex;
  const std::size_t needed =
      static_cast<std::size_t>(problem.c_elements()) * (complex ? 2u : 1u);
  GEMMTUNE_EXPECT(reference.size() >= needed && candidate.size() >= needed,
                  "outputs of {} values (reference {}, candidate {})", needed, reference.size(),
                  candidate.size());
  CheckResult r;
  r.tolerance = tolerance;
  for_each_output(problem, [&](std::int64_t b, std::int64_t i, std::int64_t j, std::int64_t index) {
    for (int part = 0; part < (complex ? 2 : 1); ++part) {
      const auto at = static_cast<std::size_t>(complex ? 2 * index + part : index);
      const double ref = reference[at];
      const double got = candidate[at];
      const double error = std::fabs(got - ref);
      const double allowed = tolerance.atol + tolerance.rtol * std::fabs(ref);
      // Written so that NaN in either value fails: comparisons with NaN are false.
      const bool ok = error <= allowed;
      const double ratio = !ok && !(error == error) ? std::numeric_limits<double>::infinity()
                           : allowed > 0            ? error / allowed
                           : error > 0              ? std::numeric_limits<double>::infinity()
                                                    : 0.0;
      if (!ok) ++r.mismatches;
      if (ratio > r.worst_ratio || (!ok && r.mismatches == 1)) {
        r.worst_ratio = ratio;
        r.worst_abs_error = error;
        r.worst_batch = b;
        r.worst_row = i;
        r.worst_col = j;
        r.expected = ref;
        r.actual = got;
      }
    }
  });
  r.passed = r.mismatches == 0;
  return r;
}

std::string CheckResult::describe(std::int64_t compared) const {
  return fmt::format(
      "{} of {} elements outside tolerance; worst C[{},{}] (batch {}) = {:.6g}, expected {:.6g} "
      "(|error| {:.3g}, atol {:.3g}, rtol {:.3g})",
      mismatches, compared, worst_row, worst_col, worst_batch, actual, expected, worst_abs_error,
      tolerance.atol, tolerance.rtol);
}

}  // namespace gemmtune

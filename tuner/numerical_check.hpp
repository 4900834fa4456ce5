// Numerical check: does a candidate's C agree with Default's C?
//
// Compared on the host over the m×n elements of every batch that the GEMM writes (the padding
// between ldc and m, and between batches, is not compared). An element passes when
// |c − ref| ≤ atol + rtol·|ref|. NaN (including the poison of an unwritten element) never passes.
//
// Modes, like PyTorch TunableOp's PYTORCH_TUNABLEOP_NUMERICAL_CHECK: `Default` uses the
// dtype-aware tolerance below, `Off` skips the check, `Explicit` uses the given atol and rtol
// as they are.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tuner/problem.hpp"

namespace gemmtune {

enum class NumericalCheckMode { Default, Off, Explicit };

struct NumericalCheckOptions {
  NumericalCheckMode mode = NumericalCheckMode::Default;
  double atol = 0;  // Explicit mode only
  double rtol = 0;

  bool enabled() const { return mode != NumericalCheckMode::Off; }
};

// Parses "on" | "default" | "1" | "off" | "0" | "ATOL_RTOL" (e.g. "1e-5_1e-5", TunableOp's form);
// throws InputError on anything else.
NumericalCheckOptions parse_numerical_check(std::string_view text);
std::string to_string(const NumericalCheckOptions& options);

// The scalars of each candidate's second check run. The first runs under the tuned scalars (alpha
// = 1 and beta = 0 by default, with C poisoned, so that an element never written, or C read under
// beta = 0, shows); but a stored solution also meets other scalars in an application's calls
// (PyTorch's addmm passes beta = 1, baddbmm an alpha), and the results file does not say which.
// Neither 1 nor 0, beta negative, both exact in every floating-point format.
inline constexpr double kOtherCheckAlpha = 0.75;
inline constexpr double kOtherCheckBeta = -0.5;

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// The dtype-aware relative tolerance for a problem (see numerical_check.cpp for the reasoning).
double default_relative_tolerance(const Problem& problem);

// The tolerance for a reference whose finite elements have this root mean square.
Tolerance tolerance_for_rms(const Problem& problem, const NumericalCheckOptions& options,
                            double reference_rms);

// The tolerance a check uses: Explicit → as given; Default → rtol = default_relative_tolerance and
// atol = rtol × RMS(reference), because a dot product's rounding error scales with the size of
// its terms, not with its possibly cancelled result.
Tolerance tolerance_for(const Problem& problem, const NumericalCheckOptions& options,
                        std::span<const double> reference);

struct CheckResult {
  bool passed = true;
  std::int64_t mismatches = 0;  // elements outside the tolerance (NaN included)
  // The worst element: largest |c − ref| / (atol + rtol·|ref|) (infinite for NaN).
  double worst_ratio = 0;
  double worst_abs_error = 0;
  std::int64_t worst_batch = 0, worst_row = 0, worst_col = 0;
  double expected = 0, actual = 0;
  Tolerance tolerance;

  // "12 of 4096 elements differ; worst C[3,17] (batch 0) = nan, expected 0.25 (atol 1e-4, ...)".
  std::string describe(std::int64_t compared) const;
};

// `reference` and `candidate` hold problem.c_elements() values (twice that, re/im interleaved,
// for complex types), laid out as the Problem says.
CheckResult compare_outputs(const Problem& problem, std::span<const double> reference,
                            std::span<const double> candidate, const Tolerance& tolerance);

}  // namespace gemmtune

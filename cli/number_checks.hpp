// Range checks for numeric options that also refuse what is not a finite number.
//
// CLI11's NonNegativeNumber, PositiveNumber and Range compare the parsed value with their bounds,
// and every comparison with NaN is false, so `nan` passes them all: a warm-up cap of nan never
// ends, a timeout of nan never fires, a workspace of nan is cast to garbage. These checks read the
// text as a double first and refuse nan and inf before the bounds, so that the usage error
// (exit 2) names the option. Every numeric option of tune, bench and mamf uses them.
#pragma once

#include <CLI/CLI.hpp>

namespace gemmtune::cli {

// A finite number in [min, max]; `min_excluded` makes the lower bound strict (> min).
CLI::Validator finite_number(double min, double max, bool min_excluded = false);

// The common cases: >= 0, > 0, and [min, max].
CLI::Validator finite_non_negative();
CLI::Validator finite_positive();
CLI::Validator finite_range(double min, double max);

}  // namespace gemmtune::cli

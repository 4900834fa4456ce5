// What makes a gemm() call impossible before any solution is asked, so that it is refused with
// its reason (the C API's GEMMTUNE_ERROR_INVALID_ARGUMENT) instead of reaching a solution: a null
// A, B or C (a solution would dereference it), a GemmAndBias without its bias (Default would
// leave the bias out, a tuned solution refuse: two answers to one call), a ScaledGemm without its
// scales, and a problem no solution can run (Problem::invalid_reason), which must not be recorded
// or tuned either.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tuner/solution.hpp"

namespace gemmtune::api {

// The operand checks alone: a few comparisons, made on every call.
std::optional<std::string> missing_operand(const Problem& problem, const Operands& operands);

// missing_operand and Problem::invalid_reason: what the C API checks, and what a Context checks
// where a problem is met for the first time.
std::optional<std::string> invalid_call(const Problem& problem, const Operands& operands);

// A tuning limit (a duration or an iteration cap) must be a finite number ≥ 0: a NaN one made
// every problem met afterwards fail its tuning, and be marked as tried, for good.
std::optional<std::string> invalid_limit(std::string_view name, double value);

}  // namespace gemmtune::api

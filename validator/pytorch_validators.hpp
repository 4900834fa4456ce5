// Writing results for PyTorch TunableOp, which loads a file only if its set of validator keys
// equals its own exactly and every value matches; otherwise it silently drops the whole file.
// So a file for PyTorch carries exactly the validators of a reference (a results file PyTorch
// wrote, or KEY=VALUE pairs the user gives) and only solution names PyTorch understands.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tuner/environment.hpp"

namespace gemmtune {

// Parses "KEY=VALUE" options; throws InputError naming the bad option.
Environment environment_from_assignments(const std::vector<std::string>& assignments);

// True for `Default` and the cuBLASLt / hipBLASLt / rocBLAS names PyTorch's TunableOp parses.
bool pytorch_understands_solution(std::string_view solution);

}  // namespace gemmtune

// Default on the CPU: the straightforward reference every other CPU solution is checked against.
//
// For each batch it widens op(A) and op(B) to double (complex<double> for complex types), takes
// plain dot products in double, and writes alpha·acc·scales + beta·C + bias with one rounding to
// C's type. Every dtype PyTorch records, all transposes (C conjugates), leading dimensions above
// the minimum, strides, GemmAndBias (m-element bias added to every column) and ScaledGemm
// (tensor-wise or row-wise float scales). Slow on purpose: its numbers, not its speed, matter.
#pragma once

#include <memory>

#include "tuner/solution.hpp"

namespace gemmtune::cpu {

std::unique_ptr<Solution> make_default_solution();

// The reference computation itself, for tests: C (operands.c) ← the GEMM `problem` describes.
void reference_gemm(const Problem& problem, const Operands& operands);

}  // namespace gemmtune::cpu

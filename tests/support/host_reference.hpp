// Host-side pieces of the reference GEMM the test suites compute in double precision: values read
// back through Backend::read_as_double as complex numbers, and elements of op(X). Shared by the
// backend conformance suite and the GPU tests.
#pragma once

#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include "tuner/dtype.hpp"
#include "tuner/problem.hpp"

namespace gemmtune::test_support {

using Complex = std::complex<double>;

// Values as read_as_double returns them (complex types: interleaved real and imaginary parts) as
// complex numbers; real types get imaginary part 0.
std::vector<Complex> as_complex(std::span<const double> values, DType dtype);

// Element (row, col) of op(X), X column-major with leading dimension ld, starting at `offset`.
Complex op_element(const std::vector<Complex>& x, Transpose t, std::int64_t ld, std::int64_t offset,
                   std::int64_t row, std::int64_t col);

}  // namespace gemmtune::test_support

// Widening device element types to double on the host, for numerical checks: fp16, bf16, fp8
// e4m3fn and e5m2 decoded bit by bit (no CUDA headers, testable anywhere), fp32/fp64 copied.
// Complex types widen to two doubles per element (real, imaginary).
#pragma once

#include <cstdint>
#include <vector>

#include "tuner/dtype.hpp"

namespace gemmtune::cuda {

double decode_fp16(std::uint16_t bits);
double decode_bf16(std::uint16_t bits);
double decode_fp8_e4m3(std::uint8_t bits);  // e4m3fn: no infinities, 0x7f/0xff are NaN
double decode_fp8_e5m2(std::uint8_t bits);

// Doubles per element of `dtype`: 2 for complex types, 1 otherwise.
int scalars_per_element(DType dtype);

// `elements` values of `dtype` at `host_bytes`, widened.
std::vector<double> widen_to_double(const void* host_bytes, DType dtype, std::int64_t elements);

}  // namespace gemmtune::cuda

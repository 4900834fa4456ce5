// Element access by DType for the CPU backend and its reference solution: every storage type
// gemmtune knows read as double (or complex<double>) and written back with one correct rounding.
// Branching per element is fine for the fills, copies and the reference that use it; the fast
// kernels convert whole panels with the fast paths of float_conversion.hpp instead.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>

#include "solutions/cpu/float_conversion.hpp"
#include "tuner/dtype.hpp"

namespace gemmtune::cpu {

// The narrow format of a dtype stored in 1 or 2 bytes, or nullptr for float/double/complex.
inline const MiniFloatFormat* narrow_format(DType dtype) {
  switch (dtype) {
    case DType::Float16: return &kFloat16;
    case DType::BFloat16: return &kBFloat16;
    case DType::Float8E4M3: return &kFloat8E4M3;
    case DType::Float8E5M2: return &kFloat8E5M2;
    case DType::Float8E4M3Fnuz: return &kFloat8E4M3Fnuz;
    case DType::Float8E5M2Fnuz: return &kFloat8E5M2Fnuz;
    default: return nullptr;
  }
}

inline double load_real(DType dtype, const void* base, std::int64_t i) {
  switch (dtype) {
    case DType::Float32:
    case DType::TF32: return static_cast<const float*>(base)[i];
    case DType::Float64: return static_cast<const double*>(base)[i];
    case DType::Float16: return fp16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case DType::BFloat16: return bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case DType::ComplexFloat32: return static_cast<const float*>(base)[2 * i];
    case DType::ComplexFloat64: return static_cast<const double*>(base)[2 * i];
    default: return decode(*narrow_format(dtype), static_cast<const std::uint8_t*>(base)[i]);
  }
}

inline void store_real(DType dtype, void* base, std::int64_t i, double v) {
  switch (dtype) {
    case DType::Float32:
    case DType::TF32: static_cast<float*>(base)[i] = static_cast<float>(v); return;
    case DType::Float64: static_cast<double*>(base)[i] = v; return;
    case DType::Float16:
    case DType::BFloat16:
      static_cast<std::uint16_t*>(base)[i] = static_cast<std::uint16_t>(encode(*narrow_format(dtype), v));
      return;
    case DType::ComplexFloat32: static_cast<float*>(base)[2 * i] = static_cast<float>(v); return;
    case DType::ComplexFloat64: static_cast<double*>(base)[2 * i] = v; return;
    default:
      static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(encode(*narrow_format(dtype), v));
  }
}

inline std::complex<double> load_complex(DType dtype, const void* base, std::int64_t i) {
  if (dtype == DType::ComplexFloat32) {
    const float* p = static_cast<const float*>(base) + 2 * i;
    return {p[0], p[1]};
  }
  if (dtype == DType::ComplexFloat64) {
    const double* p = static_cast<const double*>(base) + 2 * i;
    return {p[0], p[1]};
  }
  return {load_real(dtype, base, i), 0.0};
}

inline void store_complex(DType dtype, void* base, std::int64_t i, std::complex<double> v) {
  if (dtype == DType::ComplexFloat32) {
    float* p = static_cast<float*>(base) + 2 * i;
    p[0] = static_cast<float>(v.real());
    p[1] = static_cast<float>(v.imag());
  } else if (dtype == DType::ComplexFloat64) {
    double* p = static_cast<double*>(base) + 2 * i;
    p[0] = v.real();
    p[1] = v.imag();
  } else {
    store_real(dtype, base, i, v.real());
  }
}

}  // namespace gemmtune::cpu

// Conversions between float and the narrow storage types gemmtune's CPU backend reads and writes:
// IEEE binary16 (fp16), bfloat16, and the four fp8 formats PyTorch records (e4m3fn, e5m2,
// e4m3fnuz, e5m2fnuz).
//
// float or double → narrow rounds to nearest, ties to even, like the hardware and c10 do; overflow gives
// infinity where the format has one (fp16, bf16, e5m2) and NaN where it has none (the fn/fnuz
// formats, as c10 does without saturation). NaN stays NaN. narrow → float is exact.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gemmtune::cpu {

// A binary floating-point format of 1 sign, `exponent_bits` and `mantissa_bits` bits.
enum class SpecialValues {
  Ieee,  // all-ones exponent: infinity (mantissa 0) or NaN
  Fn,    // no infinity; only all-ones exponent and mantissa is NaN (e4m3fn)
  Fnuz,  // no infinity, no negative zero; the pattern of negative zero is the one NaN
};

struct MiniFloatFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  SpecialValues special;
};

inline constexpr MiniFloatFormat kFloat16{5, 10, 15, SpecialValues::Ieee};
inline constexpr MiniFloatFormat kBFloat16{8, 7, 127, SpecialValues::Ieee};
inline constexpr MiniFloatFormat kFloat8E4M3{4, 3, 7, SpecialValues::Fn};
inline constexpr MiniFloatFormat kFloat8E5M2{5, 2, 15, SpecialValues::Ieee};
inline constexpr MiniFloatFormat kFloat8E4M3Fnuz{4, 3, 8, SpecialValues::Fnuz};
inline constexpr MiniFloatFormat kFloat8E5M2Fnuz{5, 2, 16, SpecialValues::Fnuz};

namespace detail {

constexpr std::uint32_t sign_bit(const MiniFloatFormat& f) {
  return 1u << (f.exponent_bits + f.mantissa_bits);
}
constexpr std::uint32_t exponent_mask(const MiniFloatFormat& f) {
  return (1u << f.exponent_bits) - 1;
}
constexpr std::uint32_t nan_bits(const MiniFloatFormat& f) {
  switch (f.special) {
    case SpecialValues::Fnuz: return sign_bit(f);
    case SpecialValues::Fn: return (1u << (f.exponent_bits + f.mantissa_bits)) - 1;  // S.1111.111
    case SpecialValues::Ieee: break;
  }
  return (exponent_mask(f) << f.mantissa_bits) | (1u << (f.mantissa_bits - 1));  // quiet NaN
}
// The largest finite magnitude.
inline double max_finite(const MiniFloatFormat& f) {
  const int top = static_cast<int>(exponent_mask(f)) - (f.special == SpecialValues::Ieee ? 1 : 0);
  const double mantissa_units =
      static_cast<double>((1u << (f.mantissa_bits + 1)) - 1 -
                          (f.special == SpecialValues::Fn ? 1u : 0u));
  return std::ldexp(mantissa_units, top - f.bias - f.mantissa_bits);
}

}  // namespace detail

inline float decode(const MiniFloatFormat& f, std::uint32_t bits) {
  const bool negative = (bits & detail::sign_bit(f)) != 0;
  const std::uint32_t exponent = (bits >> f.mantissa_bits) & detail::exponent_mask(f);
  const std::uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1);
  if (f.special == SpecialValues::Fnuz && bits == detail::sign_bit(f)) {
    return std::numeric_limits<float>::quiet_NaN();
  }
  if (exponent == detail::exponent_mask(f)) {
    if (f.special == SpecialValues::Ieee) {
      if (mantissa != 0) return std::numeric_limits<float>::quiet_NaN();
      return negative ? -std::numeric_limits<float>::infinity()
                      : std::numeric_limits<float>::infinity();
    }
    if (f.special == SpecialValues::Fn && mantissa == (1u << f.mantissa_bits) - 1) {
      return std::numeric_limits<float>::quiet_NaN();
    }
  }
  double magnitude;
  if (exponent == 0) {  // zero or subnormal
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (1u << f.mantissa_bits)),
                           static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  }
  return static_cast<float>(negative ? -magnitude : magnitude);
}

// From double, so that a double result is rounded once, not through float first.
inline std::uint32_t encode(const MiniFloatFormat& f, double value) {
  if (std::isnan(value)) return detail::nan_bits(f);
  const bool negative = std::signbit(value);
  const std::uint32_t sign = negative ? detail::sign_bit(f) : 0u;
  const double magnitude = std::fabs(value);
  auto overflow = [&]() -> std::uint32_t {
    if (f.special == SpecialValues::Ieee) return sign | (detail::exponent_mask(f) << f.mantissa_bits);
    return detail::nan_bits(f);
  };
  if (std::isinf(magnitude)) return overflow();
  const int min_exponent = 1 - f.bias;  // of the smallest normal
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = m·2^exponent, m in [0.5, 1)
  const int unbiased = std::max(exponent - 1, min_exponent);
  // One rounding, in double, where the quantum of the target binade is exact: nearbyint rounds
  // half to even in the default rounding mode.
  const double quantum = std::ldexp(1.0, unbiased - f.mantissa_bits);
  const double units = std::nearbyint(magnitude / quantum);
  const double rounded = units * quantum;
  if (rounded == 0) return f.special == SpecialValues::Fnuz ? 0u : sign;
  if (rounded > detail::max_finite(f)) return overflow();
  std::frexp(rounded, &exponent);
  const int e = exponent - 1;
  if (e < min_exponent) {  // subnormal
    const auto mantissa = static_cast<std::uint32_t>(std::ldexp(rounded, f.mantissa_bits - min_exponent));
    return sign | mantissa;
  }
  const auto significand = static_cast<std::uint32_t>(std::ldexp(rounded, f.mantissa_bits - e));
  return sign | (static_cast<std::uint32_t>(e + f.bias) << f.mantissa_bits) |
         (significand & ((1u << f.mantissa_bits) - 1));
}

// Fast paths for the 16-bit types the kernels convert in their inner loops.
inline float bf16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}
inline std::uint16_t float_to_bf16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // stay NaN
  // Round to nearest even on the 16 dropped bits; a carry into the exponent is correct rounding
  // (up to infinity at the top).
  const std::uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}
inline float fp16_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
  const std::uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa·2^-24, exact in float.
  const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
  return sign ? -magnitude : magnitude;
}
// Round to nearest even with integer arithmetic (F. Giesen's float_to_half_fast3_rtne): the
// kernels write whole C tiles through it, where the generic encode() would dominate.
inline std::uint16_t float_to_fp16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = bits & 0x80000000u;
  bits ^= sign;
  std::uint32_t out;
  if (bits >= (127u + 16u) << 23) {                 // |x| >= 65536: infinity, or NaN
    out = bits > 0x7F800000u ? 0x7E00u : 0x7C00u;
  } else if (bits < 113u << 23) {                   // below 2^-14: subnormal or zero
    // Adding 0.5 aligns the 10 kept bits at the bottom of the float; the FPU's own
    // round-to-nearest-even does the rounding.
    constexpr std::uint32_t magic_bits = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    const float sum = std::bit_cast<float>(bits) + std::bit_cast<float>(magic_bits);
    out = std::bit_cast<std::uint32_t>(sum) - magic_bits;
  } else {
    const std::uint32_t odd = (bits >> 13) & 1u;
    bits += ((15u - 127u) << 23) + 0xFFFu + odd;     // rebias; round half to even
    out = bits >> 13;                                 // a carry may give infinity: correct
  }
  return static_cast<std::uint16_t>(out | (sign >> 16));
}

}  // namespace gemmtune::cpu

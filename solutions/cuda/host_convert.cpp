#include "solutions/cuda/host_convert.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "tuner/error.hpp"

namespace gemmtune::cuda {
namespace {

// A binary float with `exponent_bits` and `mantissa_bits` and IEEE-style subnormals.
double decode_ieee(std::uint32_t bits, int exponent_bits, int mantissa_bits, bool has_infinity) {
  const std::uint32_t sign = bits >> (exponent_bits + mantissa_bits);
  const std::uint32_t exponent = (bits >> mantissa_bits) & ((1u << exponent_bits) - 1u);
  const std::uint32_t mantissa = bits & ((1u << mantissa_bits) - 1u);
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const std::uint32_t max_exponent = (1u << exponent_bits) - 1u;
  double value = 0.0;
  if (exponent == max_exponent && has_infinity) {
    value = mantissa == 0 ? std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    value = std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissa_bits);
  } else {
    value = std::ldexp(static_cast<double>(mantissa | (1u << mantissa_bits)),
                       static_cast<int>(exponent) - bias - mantissa_bits);
  }
  return sign != 0 ? -value : value;
}

template <typename T>
void widen(const void* bytes, std::int64_t count, std::vector<double>& out) {
  for (std::int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, static_cast<const unsigned char*>(bytes) + i * sizeof(T), sizeof(T));
    out.push_back(static_cast<double>(v));
  }
}

template <typename Bits, double (*Decode)(Bits)>
void decode(const void* bytes, std::int64_t count, std::vector<double>& out) {
  for (std::int64_t i = 0; i < count; ++i) {
    Bits v;
    std::memcpy(&v, static_cast<const unsigned char*>(bytes) + i * sizeof(Bits), sizeof(Bits));
    out.push_back(Decode(v));
  }
}

}  // namespace

double decode_fp16(std::uint16_t bits) {
  return decode_ieee(bits, 5, 10, true);
}

double decode_bf16(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

double decode_fp8_e4m3(std::uint8_t bits) {
  if ((bits & 0x7fu) == 0x7fu) return std::numeric_limits<double>::quiet_NaN();
  return decode_ieee(bits, 4, 3, false);
}

double decode_fp8_e5m2(std::uint8_t bits) {
  return decode_ieee(bits, 5, 2, true);
}

int scalars_per_element(DType dtype) {
  return info(dtype).is_complex ? 2 : 1;
}

std::vector<double> widen_to_double(const void* host_bytes, DType dtype, std::int64_t elements) {
  const std::int64_t count = elements * scalars_per_element(dtype);
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(count));
  switch (dtype) {
    case DType::Float32:
    case DType::TF32:
    case DType::ComplexFloat32:
      widen<float>(host_bytes, count, out);
      break;
    case DType::Float64:
    case DType::ComplexFloat64:
      widen<double>(host_bytes, count, out);
      break;
    case DType::Float16:
      decode<std::uint16_t, decode_fp16>(host_bytes, count, out);
      break;
    case DType::BFloat16:
      decode<std::uint16_t, decode_bf16>(host_bytes, count, out);
      break;
    case DType::Float8E4M3:
      decode<std::uint8_t, decode_fp8_e4m3>(host_bytes, count, out);
      break;
    case DType::Float8E5M2:
      decode<std::uint8_t, decode_fp8_e5m2>(host_bytes, count, out);
      break;
    case DType::Float8E4M3Fnuz:
    case DType::Float8E5M2Fnuz:
      GEMMTUNE_THROW("{} is not a CUDA type", info(dtype).cli_name);
  }
  return out;
}

}  // namespace gemmtune::cuda

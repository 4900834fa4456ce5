// Widening device types on the host: every fp8, fp16 and bf16 encoding that matters decodes to
// the exact value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "solutions/cuda/host_convert.hpp"

namespace gemmtune::cuda {
namespace {

TEST(HostConvert, Fp16) {
  EXPECT_EQ(decode_fp16(0x3c00), 1.0);
  EXPECT_EQ(decode_fp16(0xbc00), -1.0);
  EXPECT_EQ(decode_fp16(0x3800), 0.5);
  EXPECT_EQ(decode_fp16(0x7bff), 65504.0);
  EXPECT_EQ(decode_fp16(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(decode_fp16(0x0000), 0.0);
  EXPECT_TRUE(std::isinf(decode_fp16(0x7c00)));
  EXPECT_TRUE(std::isnan(decode_fp16(0xffff)));
}

TEST(HostConvert, Bf16) {
  EXPECT_EQ(decode_bf16(0x3f80), 1.0);
  EXPECT_EQ(decode_bf16(0xc000), -2.0);
  EXPECT_EQ(decode_bf16(0x3f40), 0.75);
  EXPECT_TRUE(std::isnan(decode_bf16(0xffff)));
}

TEST(HostConvert, Fp8E4m3fn) {
  EXPECT_EQ(decode_fp8_e4m3(0x38), 1.0);
  EXPECT_EQ(decode_fp8_e4m3(0xb8), -1.0);
  EXPECT_EQ(decode_fp8_e4m3(0x7e), 448.0);                // largest finite: no infinities in e4m3fn
  EXPECT_EQ(decode_fp8_e4m3(0x08), std::ldexp(1.0, -6));  // smallest normal
  EXPECT_EQ(decode_fp8_e4m3(0x01), std::ldexp(1.0, -9));  // smallest subnormal
  EXPECT_TRUE(std::isnan(decode_fp8_e4m3(0x7f)));
  EXPECT_TRUE(std::isnan(decode_fp8_e4m3(0xff)));
}

TEST(HostConvert, Fp8E5m2) {
  EXPECT_EQ(decode_fp8_e5m2(0x3c), 1.0);
  EXPECT_EQ(decode_fp8_e5m2(0x7b), 57344.0);
  EXPECT_EQ(decode_fp8_e5m2(0x01), std::ldexp(1.0, -16));
  EXPECT_TRUE(std::isinf(decode_fp8_e5m2(0x7c)));
  EXPECT_TRUE(std::isnan(decode_fp8_e5m2(0xff)));
}

TEST(HostConvert, WidensArraysAndComplexPairs) {
  const float f[] = {1.5f, -2.0f, 0.25f, 4.0f};
  EXPECT_EQ(widen_to_double(f, DType::Float32, 4), (std::vector<double>{1.5, -2.0, 0.25, 4.0}));
  EXPECT_EQ(widen_to_double(f, DType::TF32, 2), (std::vector<double>{1.5, -2.0}));
  EXPECT_EQ(widen_to_double(f, DType::ComplexFloat32, 2),
            (std::vector<double>{1.5, -2.0, 0.25, 4.0}));
  const std::uint16_t h[] = {0x3c00, 0xc000};
  EXPECT_EQ(widen_to_double(h, DType::Float16, 2), (std::vector<double>{1.0, -2.0}));
  const std::uint8_t e[] = {0x38, 0x3c};
  EXPECT_EQ(widen_to_double(e, DType::Float8E4M3, 1), (std::vector<double>{1.0}));
  EXPECT_EQ(widen_to_double(e + 1, DType::Float8E5M2, 1), (std::vector<double>{1.0}));
  EXPECT_EQ(scalars_per_element(DType::ComplexFloat64), 2);
  EXPECT_EQ(scalars_per_element(DType::BFloat16), 1);
}

}  // namespace
}  // namespace gemmtune::cuda

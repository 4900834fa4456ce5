#include "solutions/cpu/float_conversion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace gemmtune::cpu {
namespace {

const MiniFloatFormat* const kFp8Formats[] = {&kFloat8E4M3, &kFloat8E5M2, &kFloat8E4M3Fnuz,
                                               &kFloat8E5M2Fnuz};

// Every non-NaN pattern decodes to a value that encodes back to the same pattern.
void expect_round_trips(const MiniFloatFormat& f, std::uint32_t patterns) {
  for (std::uint32_t bits = 0; bits < patterns; ++bits) {
    const float v = decode(f, bits);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(decode(f, encode(f, v)))) << bits;
      continue;
    }
    ASSERT_EQ(encode(f, v), bits) << "pattern " << bits << " value " << v;
  }
}

// The nearest representable value, ties to the even pattern, by brute force over the table.
std::uint32_t brute_force_nearest(const MiniFloatFormat& f, double x) {
  std::uint32_t best = 0;
  double best_error = std::numeric_limits<double>::infinity();
  for (std::uint32_t bits = 0; bits < 256; ++bits) {
    const double v = decode(f, bits);
    if (std::isnan(v) || std::isinf(v)) continue;
    const double error = std::fabs(v - x);
    if (error < best_error || (error == best_error && (bits & 1) == 0 && v != 0)) {
      best_error = error;
      best = bits;
    }
  }
  return best;
}

TEST(FloatConversion, Fp16RoundTripsEveryPattern) { expect_round_trips(kFloat16, 1u << 16); }
TEST(FloatConversion, Bf16RoundTripsEveryPattern) { expect_round_trips(kBFloat16, 1u << 16); }
TEST(FloatConversion, Fp8RoundTripsEveryPattern) {
  for (const auto* f : kFp8Formats) expect_round_trips(*f, 256);
}

TEST(FloatConversion, FastPathsAgreeWithTheGenericOnes) {
  for (std::uint32_t bits = 0; bits < (1u << 16); ++bits) {
    const float a = fp16_to_float(static_cast<std::uint16_t>(bits));
    const float b = decode(kFloat16, bits);
    ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << bits;
    const float c = bf16_to_float(static_cast<std::uint16_t>(bits));
    const float d = decode(kBFloat16, bits);
    ASSERT_TRUE(c == d || (std::isnan(c) && std::isnan(d))) << bits;
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-70000.0f, 70000.0f);
  for (int i = 0; i < 100000; ++i) {
    const float x = i % 2 ? u(rng) : u(rng) * 1e-6f;
    ASSERT_EQ(float_to_bf16(x), encode(kBFloat16, x)) << x;
    const float y = i % 3 ? x : x * 1e-3f;  // reach fp16 subnormals too
    ASSERT_EQ(float_to_fp16(y), encode(kFloat16, y)) << y;
  }
  for (std::uint32_t bits = 0; bits < (1u << 16); ++bits) {  // every fp16 value and midpoint
    const float v = fp16_to_float(static_cast<std::uint16_t>(bits));
    if (std::isnan(v)) continue;
    ASSERT_EQ(float_to_fp16(v), encode(kFloat16, v)) << v;
    const float next = fp16_to_float(static_cast<std::uint16_t>(bits + 1));
    if (bits == 0x7FFF || bits == 0xFFFF || std::isnan(next)) continue;
    const auto mid = static_cast<float>((static_cast<double>(v) + next) / 2);  // exact: a tie
    ASSERT_EQ(float_to_fp16(mid), encode(kFloat16, mid)) << mid;
    const float above = std::nextafter(mid, std::numeric_limits<float>::infinity());
    ASSERT_EQ(float_to_fp16(above), encode(kFloat16, above)) << above;
  }
}

#if defined(__FLT16_MAX__)
TEST(FloatConversion, Fp16MatchesTheCompiler) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    const float x = std::bit_cast<float>(bits(rng) & 0xC7FFFFFFu);  // exponents up to ~2^16
    if (std::isnan(x)) continue;
    const _Float16 h = static_cast<_Float16>(x);
    ASSERT_EQ(float_to_fp16(x), std::bit_cast<std::uint16_t>(h)) << x;
  }
}
#endif

TEST(FloatConversion, TiesRoundToEven) {
  EXPECT_EQ(float_to_fp16(1.0f + 0x1p-11f), float_to_fp16(1.0f));              // to even (down)
  EXPECT_EQ(float_to_fp16(1.0f + 3 * 0x1p-11f), float_to_fp16(1.0f + 0x1p-9f));  // to even (up)
  EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f), 0x3F80);
  EXPECT_EQ(float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);
  EXPECT_EQ(encode(kFloat8E4M3, 1.0 + 1.0 / 16), encode(kFloat8E4M3, 1.0));
  EXPECT_EQ(encode(kFloat8E4M3, 1.0 + 3.0 / 16), encode(kFloat8E4M3, 1.25));
}

TEST(FloatConversion, Fp8MatchesBruteForceNearest) {
  std::mt19937 rng(11);
  for (const auto* f : kFp8Formats) {
    const double max = f == &kFloat8E4M3 ? 448 : f == &kFloat8E4M3Fnuz ? 240 : 57344;
    std::uniform_real_distribution<double> u(-max, max);
    for (int i = 0; i < 20000; ++i) {
      const double x = i % 3 == 0 ? u(rng) : u(rng) / (1 << (i % 20));
      const float xf = static_cast<float>(x);
      const std::uint32_t got = encode(*f, xf);
      const std::uint32_t want = brute_force_nearest(*f, xf);
      ASSERT_EQ(decode(*f, got), decode(*f, want)) << "x=" << xf;
    }
  }
}

TEST(FloatConversion, SpecialValues) {
  // Largest finite values.
  EXPECT_EQ(decode(kFloat8E4M3, 0x7E), 448.0f);
  EXPECT_EQ(decode(kFloat8E5M2, 0x7B), 57344.0f);
  EXPECT_EQ(decode(kFloat8E4M3Fnuz, 0x7F), 240.0f);
  EXPECT_EQ(decode(kFloat8E5M2Fnuz, 0x7F), 57344.0f);
  EXPECT_EQ(fp16_to_float(0x7BFF), 65504.0f);
  // NaN encodings.
  EXPECT_TRUE(std::isnan(decode(kFloat8E4M3, 0x7F)));
  EXPECT_TRUE(std::isnan(decode(kFloat8E4M3, 0xFF)));
  EXPECT_TRUE(std::isnan(decode(kFloat8E4M3Fnuz, 0x80)));
  EXPECT_TRUE(std::isnan(decode(kFloat8E5M2Fnuz, 0x80)));
  EXPECT_TRUE(std::isnan(fp16_to_float(0xFFFF)));
  EXPECT_TRUE(std::isnan(bf16_to_float(0xFFFF)));
  EXPECT_EQ(encode(kFloat8E4M3Fnuz, std::nanf("")), 0x80u);
  // Overflow: infinity where the format has one, NaN where not (c10 without saturation).
  EXPECT_EQ(float_to_fp16(70000.0f), 0x7C00);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_TRUE(std::isinf(decode(kFloat8E5M2, encode(kFloat8E5M2, 1e6))));
  EXPECT_TRUE(std::isnan(decode(kFloat8E4M3, encode(kFloat8E4M3, 500.0))));
  EXPECT_TRUE(std::isnan(decode(kFloat8E4M3Fnuz, encode(kFloat8E4M3Fnuz, 250.0))));
  // Zeros: fnuz has no negative zero.
  EXPECT_EQ(encode(kFloat8E4M3Fnuz, -0.0), 0x00u);
  EXPECT_EQ(encode(kFloat8E4M3, -0.0), 0x80u);
  EXPECT_EQ(float_to_fp16(-0.0f), 0x8000);
  // Subnormals.
  EXPECT_EQ(fp16_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(decode(kFloat8E4M3, 0x01), 0x1p-9f);
  EXPECT_EQ(encode(kFloat8E4M3, 0x1p-10), 0x00u);  // a tie with zero rounds to even (zero)
  EXPECT_EQ(encode(kFloat8E4M3, 0x1.8p-10), 0x01u);
}

}  // namespace
}  // namespace gemmtune::cpu

#include "tuner/numerical_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

Problem small(DType t = DType::Float32) {
  return Problem::make(OpKind::Gemm, t, Transpose::N, Transpose::N, 3, 2, 4);
}

TEST(NumericalCheck, ParsesModes) {
  EXPECT_EQ(parse_numerical_check("on").mode, NumericalCheckMode::Default);
  EXPECT_EQ(parse_numerical_check("1").mode, NumericalCheckMode::Default);
  EXPECT_EQ(parse_numerical_check("off").mode, NumericalCheckMode::Off);
  EXPECT_EQ(parse_numerical_check("0").mode, NumericalCheckMode::Off);
  const auto explicit_ = parse_numerical_check("1e-3_2e-2");
  EXPECT_EQ(explicit_.mode, NumericalCheckMode::Explicit);
  EXPECT_DOUBLE_EQ(explicit_.atol, 1e-3);
  EXPECT_DOUBLE_EQ(explicit_.rtol, 2e-2);
  EXPECT_THROW(parse_numerical_check("maybe"), InputError);
  EXPECT_THROW(parse_numerical_check("1e-3_"), InputError);
  EXPECT_EQ(to_string(parse_numerical_check("off")), "off");
}

TEST(NumericalCheck, TolerancesFollowTheDtype) {
  EXPECT_LT(default_relative_tolerance(small(DType::Float64)), 1e-9);
  EXPECT_LT(default_relative_tolerance(small(DType::Float64)),
            default_relative_tolerance(small(DType::Float32)));
  EXPECT_LT(default_relative_tolerance(small(DType::Float32)),
            default_relative_tolerance(small(DType::TF32)));
  EXPECT_LT(default_relative_tolerance(small(DType::TF32)),
            default_relative_tolerance(small(DType::Float16)));
  EXPECT_LE(default_relative_tolerance(small(DType::Float16)),
            default_relative_tolerance(small(DType::BFloat16)));
  Problem scaled = small(DType::Float8E4M3);
  scaled.op = OpKind::ScaledGemm;
  scaled.c_type = DType::BFloat16;
  EXPECT_GE(default_relative_tolerance(scaled), 5e-2);
}

TEST(NumericalCheck, PassesWithinToleranceFailsBeyond) {
  const Problem p = small();
  std::vector<double> ref{1, 2, 3, 4, 5, 6};
  std::vector<double> got = ref;
  got[4] += 1e-6;
  const Tolerance tol = tolerance_for(p, {}, ref);
  EXPECT_TRUE(compare_outputs(p, ref, got, tol).passed);
  got[4] += 0.1;
  const CheckResult r = compare_outputs(p, ref, got, tol);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.worst_row, 1);
  EXPECT_EQ(r.worst_col, 1);
  EXPECT_NE(r.describe(6).find("C[1,1]"), std::string::npos);
}

TEST(NumericalCheck, NaNNeverPasses) {
  const Problem p = small();
  std::vector<double> ref{1, 2, 3, 4, 5, 6};
  std::vector<double> got = ref;
  got[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(compare_outputs(p, ref, got, {1e9, 1e9}).passed);
  EXPECT_FALSE(compare_outputs(p, got, got, {1e9, 1e9}).passed);  // not even against itself
}

TEST(NumericalCheck, CancelledElementsUseTheScaleOfC) {
  // An element that cancels to ~0 carries the rounding error of its large terms.
  const Problem p = small();
  std::vector<double> ref{100, -100, 1e-9, 100, -100, 100};
  std::vector<double> got = ref;
  got[2] = 1e-3;  // 1e-5 of the RMS: fine for fp32
  EXPECT_TRUE(compare_outputs(p, ref, got, tolerance_for(p, {}, ref)).passed);
}

TEST(NumericalCheck, OnlyValidElementsOfEveryBatchAreCompared) {
  Problem p = small();
  p.op = OpKind::GemmStridedBatched;
  p.ldc = 5;  // rows 3..4 of every column are padding
  p.batch = 2;
  p.stride_c = 12;  // 2 elements of padding between batches
  const auto n = static_cast<std::size_t>(p.c_elements());
  ASSERT_EQ(n, 12u + 10u);
  std::vector<double> ref(n, 1.0), got(n, 1.0);
  for (std::size_t i : {3u, 4u, 8u, 9u, 10u, 11u}) got[i] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(compare_outputs(p, ref, got, {0, 1e-6}).passed);
  got[12 + 5 + 2] = 7;  // batch 1, column 1, row 2
  const CheckResult r = compare_outputs(p, ref, got, {0, 1e-6});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.worst_batch, 1);
  EXPECT_EQ(r.worst_row, 2);
  EXPECT_EQ(r.worst_col, 1);
}

TEST(NumericalCheck, ExplicitToleranceIsUsedAsIs) {
  const Problem p = small();
  std::vector<double> ref{1, 1, 1, 1, 1, 1}, got{1, 1, 1, 1, 1, 1.5};
  const auto tol = tolerance_for(p, parse_numerical_check("0.6_0"), ref);
  EXPECT_TRUE(compare_outputs(p, ref, got, tol).passed);
  EXPECT_FALSE(compare_outputs(p, ref, got, tolerance_for(p, parse_numerical_check("0.4_0"), ref)).passed);
}

TEST(NumericalCheck, ComplexComparesBothParts) {
  const Problem p = small(DType::ComplexFloat32);
  std::vector<double> ref(12, 1.0), got(12, 1.0);
  got[7] = 2.0;  // imaginary part of element 3
  EXPECT_FALSE(compare_outputs(p, ref, got, {0, 1e-6}).passed);
}

}  // namespace
}  // namespace gemmtune

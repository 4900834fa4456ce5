// The skinny kernel's names parse back to their configuration, and nothing else parses.
#include <gtest/gtest.h>

#include "solutions/cuda/skinny_gemm.hpp"

namespace gemmtune::cuda {
namespace {

TEST(SkinnyName, RoundTripsEveryCompiledConfiguration) {
  for (const SkinnyConfig& c : kSkinnyConfigs) {
    const std::string name = skinny_solution_name(c);
    const auto parsed = parse_skinny_solution_name(name);
    ASSERT_TRUE(parsed) << name;
    EXPECT_EQ(parsed->rows, c.rows);
    EXPECT_EQ(parsed->threads, c.threads);
  }
  EXPECT_EQ(skinny_solution_name({2, 128}), "Gemmtune_Skinny_rows_2_threads_128");
}

TEST(SkinnyName, RejectsOtherNames) {
  for (const char* name : {"Default", "Gemmtune_Skinny_rows_2", "Gemmtune_Skinny_rows_x_threads_1",
                           "Gemmtune_Skinny_rows_2_threads_128x", "Gemm_Cublaslt_id_1"}) {
    EXPECT_FALSE(parse_skinny_solution_name(name)) << name;
  }
}

TEST(SkinnyName, SupportsOnlyWhatTheKernelRuns) {
  const auto p = [](OpKind op, DType d, Transpose ta, Transpose tb, std::int64_t n) {
    return Problem::make(op, d, ta, tb, 512, n, 256);
  };
  using T = Transpose;
  EXPECT_FALSE(skinny_unsupported_reason(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 16)));
  EXPECT_FALSE(skinny_unsupported_reason(p(OpKind::Gemm, DType::Float32, T::T, T::N, 1)));
  EXPECT_TRUE(skinny_unsupported_reason(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 17)));
  EXPECT_TRUE(skinny_unsupported_reason(p(OpKind::Gemm, DType::BFloat16, T::N, T::N, 8)));
  EXPECT_TRUE(skinny_unsupported_reason(p(OpKind::Gemm, DType::TF32, T::T, T::N, 8)));
  EXPECT_TRUE(skinny_unsupported_reason(p(OpKind::GemmAndBias, DType::BFloat16, T::T, T::N, 8)));
  EXPECT_TRUE(skinny_unsupported_reason(p(OpKind::Gemm, DType::Float64, T::T, T::N, 8)));
}

}  // namespace
}  // namespace gemmtune::cuda

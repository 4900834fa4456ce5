// The skinny kernel's names parse back to their configuration, and nothing else parses.
#include <gtest/gtest.h>

#include <variant>

#include "solutions/cuda/skinny_gemm.hpp"

namespace gemmtune::cuda {
namespace {

TEST(SkinnyName, RoundTripsEveryCompiledConfiguration) {
  for (const SkinnyConfig& c : kSkinnyConfigs) {
    const std::string name = skinny_solution_name(c);
    const auto parsed = parse_skinny_solution_name(name);
    ASSERT_TRUE(parsed && std::holds_alternative<SkinnyConfig>(*parsed)) << name;
    EXPECT_EQ(std::get<SkinnyConfig>(*parsed).rows, c.rows);
    EXPECT_EQ(std::get<SkinnyConfig>(*parsed).threads, c.threads);
  }
  for (const SkinnyTcConfig& c : kSkinnyTcConfigs) {
    const std::string name = skinny_solution_name(c);
    const auto parsed = parse_skinny_solution_name(name);
    ASSERT_TRUE(parsed && std::holds_alternative<SkinnyTcConfig>(*parsed)) << name;
    EXPECT_EQ(std::get<SkinnyTcConfig>(*parsed).m_tiles, c.m_tiles);
    EXPECT_EQ(std::get<SkinnyTcConfig>(*parsed).warps, c.warps);
  }
  for (const SkinnyPrefetch prefetch : {SkinnyPrefetch::early, SkinnyPrefetch::late}) {
    for (SkinnyBulkConfig c : kSkinnyBulkConfigs) {
      c.prefetch = prefetch;
      const std::string name = skinny_solution_name(c);
      const auto parsed = parse_skinny_solution_name(name);
      ASSERT_TRUE(parsed && std::holds_alternative<SkinnyBulkConfig>(*parsed)) << name;
      EXPECT_TRUE(std::get<SkinnyBulkConfig>(*parsed) == c) << name;
      EXPECT_FALSE(skinny_unsupported_reason(
          Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 512, 8, 256),
          *parsed))
          << name;
    }
    for (SkinnyWgmmaConfig c : kSkinnyWgmmaConfigs) {
      c.prefetch = prefetch;
      const std::string name = skinny_solution_name(c);
      const auto parsed = parse_skinny_solution_name(name);
      ASSERT_TRUE(parsed && std::holds_alternative<SkinnyWgmmaConfig>(*parsed)) << name;
      EXPECT_TRUE(std::get<SkinnyWgmmaConfig>(*parsed) == c) << name;
    }
  }
  EXPECT_EQ(skinny_solution_name(SkinnyConfig{2, 128}), "Gemmtune_Skinny_rows_2_threads_128");
  EXPECT_EQ(skinny_solution_name(SkinnyWgmmaConfig{8, 1, 2, 4}),
            "Gemmtune_SkinnyWgmma_mtiles_8_groups_1_kboxes_2_stages_4");
  EXPECT_EQ(skinny_solution_name(SkinnyBulkConfig{2, 4, 1, 16}),
            "Gemmtune_SkinnyBulk_mtiles_2_warps_4_kboxes_1_stages_16");
  // The early prefetch keeps the name it had before the late one existed.
  EXPECT_EQ(skinny_solution_name(SkinnyBulkConfig{2, 4, 1, 16, SkinnyPrefetch::late}),
            "Gemmtune_SkinnyBulk_mtiles_2_warps_4_kboxes_1_stages_16_prefetch_late");
  EXPECT_EQ(skinny_solution_name(SkinnyTcConfig{1, 8}), "Gemmtune_SkinnyTc_mtiles_1_warps_8");
}

TEST(SkinnyName, RejectsOtherNames) {
  for (const char* name :
       {"Default", "Gemmtune_Skinny_rows_2", "Gemmtune_Skinny_rows_x_threads_1",
        "Gemmtune_Skinny_rows_2_threads_128x", "Gemm_Cublaslt_id_1", "Gemmtune_SkinnyTc_mtiles_1",
        "Gemmtune_SkinnyTc_mtiles_1_threads_8", "Gemmtune_SkinnyBulk_mtiles_1_warps_4_kboxes_4",
        "Gemmtune_SkinnyBulk_mtiles_1_warps_4_kboxes_4_stages_8_",
        "Gemmtune_SkinnyBulk_mtiles_1_warps_4_stages_8_kboxes_4",
        "Gemmtune_SkinnyWgmma_mtiles_2_warps_2_kboxes_2_stages_8",
        "Gemmtune_SkinnyWgmma_mtiles_2_groups_2_kboxes_2",
        "Gemmtune_SkinnyTc_mtiles_1_warps_8_prefetch_late",
        "Gemmtune_Skinny_rows_2_threads_128_prefetch_late",
        "Gemmtune_SkinnyBulk_mtiles_1_warps_4_kboxes_4_stages_8_prefetch_early",
        "Gemmtune_SkinnyBulk_mtiles_1_warps_4_kboxes_4_stages_8_prefetch_late_"}) {
    EXPECT_FALSE(parse_skinny_solution_name(name)) << name;
  }
}

TEST(SkinnyName, SupportsOnlyWhatTheKernelsRun) {
  const auto p = [](OpKind op, DType d, Transpose ta, Transpose tb, std::int64_t n) {
    return Problem::make(op, d, ta, tb, 512, n, 256);
  };
  using T = Transpose;
  const SkinnyKernelConfig core = SkinnyConfig{1, 256};
  const SkinnyKernelConfig tc = SkinnyTcConfig{1, 8};
  const auto why = [](const Problem& problem, const SkinnyKernelConfig& c) {
    return skinny_unsupported_reason(problem, c).has_value();
  };
  EXPECT_FALSE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 16), core));
  EXPECT_FALSE(why(p(OpKind::Gemm, DType::Float32, T::T, T::N, 1), core));
  EXPECT_TRUE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 17), core));
  EXPECT_FALSE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 64), tc));
  EXPECT_FALSE(why(p(OpKind::GemmStridedBatched, DType::Float16, T::T, T::N, 33), tc));
  EXPECT_TRUE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 65), tc));
  EXPECT_TRUE(why(p(OpKind::Gemm, DType::Float32, T::T, T::N, 8), tc));
  // The bulk-copy kernel's ring must fit in shared memory at the problem's n.
  const SkinnyKernelConfig small_ring = SkinnyBulkConfig{1, 4, 4, 8};
  const SkinnyKernelConfig wide_ring = SkinnyBulkConfig{2, 4, 1, 16};
  EXPECT_FALSE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 32), small_ring));
  EXPECT_TRUE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 33), small_ring));
  EXPECT_FALSE(why(p(OpKind::Gemm, DType::Float16, T::T, T::N, 64), wide_ring));
  EXPECT_TRUE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 65), wide_ring));
  EXPECT_TRUE(why(p(OpKind::Gemm, DType::Float32, T::T, T::N, 8), wide_ring));
  // The warpgroup kernel: B's box grows with n (16, 32 or 64 rows), so some rings fit at n ≤ 32
  // only.
  const SkinnyKernelConfig warpgroup = SkinnyWgmmaConfig{8, 1, 1, 8};
  const SkinnyKernelConfig long_warpgroup_ring = SkinnyWgmmaConfig{2, 2, 2, 12};
  EXPECT_FALSE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 1), warpgroup));
  EXPECT_FALSE(why(p(OpKind::GemmStridedBatched, DType::Float16, T::T, T::N, 64), warpgroup));
  EXPECT_TRUE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 65), warpgroup));
  EXPECT_FALSE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 32), long_warpgroup_ring));
  EXPECT_TRUE(why(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 33), long_warpgroup_ring));
  EXPECT_EQ(skinny_wgmma_b_rows(1), 16);
  EXPECT_EQ(skinny_wgmma_b_rows(17), 32);
  EXPECT_EQ(skinny_wgmma_b_rows(33), 64);
  // A name from a file may carry any numbers: one that is not compiled in says so (its sizes,
  // which such numbers would overflow, are never computed).
  const auto huge = parse_skinny_solution_name(
      "Gemmtune_SkinnyBulk_mtiles_100000_warps_4_kboxes_100000_stages_100000");
  ASSERT_TRUE(huge.has_value());
  const auto huge_why =
      skinny_unsupported_reason(p(OpKind::Gemm, DType::BFloat16, T::T, T::N, 8), *huge);
  ASSERT_TRUE(huge_why.has_value());
  EXPECT_NE(huge_why->find("not a compiled configuration"), std::string::npos) << *huge_why;
  // k (and m) past 2^30 would overflow the kernels' 32-bit counters near the end.
  EXPECT_TRUE(why(
      Problem::make(OpKind::Gemm, DType::BFloat16, T::T, T::N, 16, 1, (std::int64_t{1} << 30) + 64),
      core));
  for (const auto& c : {core, tc, small_ring, warpgroup}) {
    EXPECT_TRUE(why(p(OpKind::Gemm, DType::BFloat16, T::N, T::N, 8), c));
    EXPECT_TRUE(why(p(OpKind::Gemm, DType::TF32, T::T, T::N, 8), c));
    EXPECT_TRUE(why(p(OpKind::GemmAndBias, DType::BFloat16, T::T, T::N, 8), c));
    EXPECT_TRUE(why(p(OpKind::Gemm, DType::Float64, T::T, T::N, 8), c));
  }
}

}  // namespace
}  // namespace gemmtune::cuda

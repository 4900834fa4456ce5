// cuBLASLt names: PyTorch's format byte for byte, and parsing that accepts exactly that format.
#include <gtest/gtest.h>

#include <limits>

#include "solutions/cuda/cublaslt_algo_name.hpp"

namespace gemmtune::cuda {
namespace {

TEST(CublasltAlgoName, FormatsLikePyTorch) {
  AlgoConfig c;
  c.id = 66;
  c.tile = 21;
  c.stages = 35;
  c.splitk = 4;
  c.reduction = 2;
  c.swizzle = 1;
  c.custom = 3;
  c.inner = 4;
  c.cluster = 6;
  EXPECT_EQ(algo_name(c),
            "Gemm_Cublaslt_id_66_tile_21_stages_35_splitk_4_red_2_swizzle_1_custom_3_inner_4_"
            "cluster_6");
}

TEST(CublasltAlgoName, RoundTripsEveryField) {
  AlgoConfig c;
  c.id = -7;  // %d fields may be negative
  c.tile = std::numeric_limits<std::uint32_t>::max();
  c.stages = 0;
  c.splitk = -1;
  c.reduction = 4;
  c.swizzle = 0;
  c.custom = 12345;
  c.inner = std::numeric_limits<std::uint16_t>::max();
  c.cluster = 51;
  const auto parsed = parse_algo_name(algo_name(c));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, c);
}

TEST(CublasltAlgoName, ParsesANameRecordedByPyTorch) {
  const auto c = parse_algo_name(
      "Gemm_Cublaslt_id_66_tile_20_stages_8_splitk_1_red_0_swizzle_0_custom_0_"
      "inner_0_cluster_0");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, 66);
  EXPECT_EQ(c->tile, 20u);
  EXPECT_EQ(c->stages, 8u);
  EXPECT_EQ(c->splitk, 1);
}

TEST(CublasltAlgoName, RejectsEverythingElse) {
  const std::string good =
      "Gemm_Cublaslt_id_1_tile_2_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_0_cluster_0";
  ASSERT_TRUE(parse_algo_name(good));
  for (
      const char* bad : {
          "Default",
          "",
          "Gemm_Cublaslt_",
          "Gemm_Hipblaslt_1234",
          "Gemm_Cublaslt_id_1_tile_2_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_0",
          "Gemm_Cublaslt_id_1_tile_2_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_0_cluster_",
          "Gemm_Cublaslt_id_1_tile_2_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_0_cluster_0_",
          "Gemm_Cublaslt_id_1_tile_2_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_0_cluster_0x",
          "Gemm_Cublaslt_id_1_tile_-2_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_0_cluster_0",
          "Gemm_Cublaslt_id_1_tile_2_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_70000_"
          "cluster_0",
          "Gemm_Cublaslt_id_+1_tile_2_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_0_cluster_0",
          "Gemm_Cublaslt_tile_2_id_1_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_0_cluster_0",
          "Gemm_Cublaslt_id_99999999999_tile_2_stages_3_splitk_4_red_1_swizzle_0_custom_0_inner_0_"
          "cluster_0",
      }) {
    EXPECT_FALSE(parse_algo_name(bad)) << bad;
  }
}

TEST(CublasltAlgoName, DistinctConfigsHaveDistinctNames) {
  AlgoConfig a, b;
  b.splitk = 2;
  EXPECT_NE(algo_name(a), algo_name(b));
  EXPECT_LT(a, b);
}

}  // namespace
}  // namespace gemmtune::cuda

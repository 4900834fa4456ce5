// Signatures: every line PyTorch wrote parses and prints back byte for byte, and every way a
// signature can be wrong is explained.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tuner/error.hpp"
#include "tuner/problem.hpp"

namespace gemmtune {
namespace {

TEST(Signature, EveryFixtureLineRoundTrips) {
  int lines = 0;
  // The files PyTorch 2.11 wrote (see tests/fixtures/README.md); the others are made-up bad input.
  for (const char* name :
       {"gpt2_fp16_untuned.csv", "gpt2_fp32_untuned.csv", "gpt2_tf32_untuned.csv",
        "mistral_bf16_untuned.csv", "mistral_bf16_results.csv"}) {
    const std::filesystem::path file = std::filesystem::path(GEMMTUNE_TEST_FIXTURES) / name;
    std::ifstream in(file);
    ASSERT_TRUE(in) << file;
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("Validator,", 0) == 0 || line.empty()) continue;
      const auto c1 = line.find(',');
      const auto c2 = line.find(',', c1 + 1);
      const std::string op = line.substr(0, c1);
      const std::string params = line.substr(c1 + 1, c2 == std::string::npos ? c2 : c2 - c1 - 1);
      const Problem p = parse_problem(op, params);
      EXPECT_EQ(p.op_signature(), op) << file << ": " << line;
      EXPECT_EQ(p.params_signature(), params) << file << ": " << line;
      ++lines;
    }
  }
  EXPECT_GT(lines, 150);
}

TEST(Signature, ParsesStridedBatched) {
  const Problem p =
      parse_problem("GemmStridedBatchedTunableOp_Half_TN", "tn_128_128_64_B_12_ld_64_2304_128");
  EXPECT_EQ(p.op, OpKind::GemmStridedBatched);
  EXPECT_EQ(p.a_type, DType::Float16);
  EXPECT_EQ(p.transa, Transpose::T);
  EXPECT_EQ(p.transb, Transpose::N);
  EXPECT_EQ(p.m, 128);
  EXPECT_EQ(p.k, 64);
  EXPECT_EQ(p.batch, 12);
  EXPECT_EQ(p.ldb, 2304);
  EXPECT_EQ(p.batch_stride_b(), 2304 * 128);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 128 * 128 * 64 * 12);
}

TEST(Signature, ScaledGemmRoundTrips) {
  for (const auto& [op, params] : std::vector<std::pair<std::string, std::string>>{
           {"ScaledGemmTunableOp_Float8_e4m3fn_Float8_e4m3fn_BFloat16_TN",
            "tn_4096_128_4096_ld_4096_4096_4096_rw_0_bias_None"},
           {"ScaledGemmTunableOp_Float8_e4m3fn_Float8_e5m2_Half_TN",
            "tn_64_32_128_ld_128_128_64_rw_1_bias_BFloat16"}}) {
    const Problem p = parse_problem(op, params);
    EXPECT_EQ(p.op, OpKind::ScaledGemm);
    EXPECT_EQ(p.op_signature(), op);
    EXPECT_EQ(p.params_signature(), params);
  }
  const Problem p = parse_problem("ScaledGemmTunableOp_Float8_e4m3fn_Float8_e5m2_Half_TN",
                                  "tn_64_32_128_ld_128_128_64_rw_1_bias_BFloat16");
  EXPECT_EQ(p.b_type, DType::Float8E5M2);
  EXPECT_EQ(p.c_type, DType::Float16);
  EXPECT_TRUE(p.rowwise);
  EXPECT_EQ(p.bias_type, DType::BFloat16);
}

TEST(Signature, AcceptsSingleColumnWithSmallLeadingDimension) {
  // PyTorch records ldc=1 for a matrix-vector product (seen in mistral_bf16_untuned.csv).
  const Problem p = parse_problem("GemmTunableOp_float_TN", "tn_32_1_1_ld_1_1_1");
  EXPECT_EQ(p.ldc, 1);
  // The buffer still holds all 32 rows, and BLAS libraries are given a valid ldc.
  EXPECT_EQ(p.blas_ldc(), 32);
  EXPECT_EQ(p.c_elements(), 32);
  const Problem batched =
      parse_problem("GemmStridedBatchedTunableOp_Half_NN", "nn_64_1_1_B_16_ld_64_1_64");
  EXPECT_EQ(batched.batch_stride_b(), 1);
  EXPECT_EQ(batched.batch_stride_c(), 64);
}

struct BadCase {
  const char* op;
  const char* params;
  const char* expect;  // a fragment the explanation must contain
};

class BadSignature : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadSignature, IsExplained) {
  const auto& c = GetParam();
  try {
    parse_problem(c.op, c.params);
    FAIL() << "accepted " << c.op << "," << c.params;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << "message: " << e.what();
  }
}

// Strides come from the API, not from signatures; the batch's C matrices must not overlap.
TEST(ProblemValidity, BatchedOutputsMustNotOverlap) {
  Problem p = Problem::make(OpKind::GemmStridedBatched, DType::Float32, Transpose::N, Transpose::N,
                            64, 8, 16);
  p.batch = 2;
  p.ldc = 70;
  p.stride_c = 70 * 7 + 64;  // each C right after the previous one's last element
  EXPECT_FALSE(p.invalid_reason()) << *p.invalid_reason();
  p.stride_c -= 1;
  ASSERT_TRUE(p.invalid_reason());
  EXPECT_NE(p.invalid_reason()->find("stride_c=553 makes the batch's C matrices overlap"),
            std::string::npos)
      << *p.invalid_reason();
  p.batch = 1;  // one matrix cannot overlap itself
  EXPECT_FALSE(p.invalid_reason());
}

TEST(ProblemValidity, SizesBuiltInCodeThatOverflowAreRefused) {
  // Built without a parser: the leading dimensions times the columns overflow 64 bits.
  constexpr std::int64_t big = std::int64_t{1} << 32;
  const Problem p =
      Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, big, big, big);
  EXPECT_NE(p.invalid_reason().value_or("").find("overflow 64-bit"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    All, BadSignature,
    ::testing::Values(
        BadCase{"GemvTunableOp_Half_NN", "nn_1_1_1_ld_1_1_1", "unknown op 'Gemv'"},
        BadCase{"GemmTunableOp_Quarter_NN", "nn_1_1_1_ld_1_1_1", "unknown dtype 'Quarter'"},
        BadCase{"GemmTunableOp_Half_NT", "nn_8_8_8_ld_8_8_8", "transposes disagree"},
        BadCase{"GemmTunableOp_Half_NX", "nx_8_8_8_ld_8_8_8", "letters of N, T, C"},
        BadCase{"GemmTunableOp_Half_NN", "nn_8_8_ld_8_8_8", "k is not a number"},
        BadCase{"GemmTunableOp_Half_NN", "nn_8_x8_8_ld_8_8_8", "n is not a number: 'x8'"},
        BadCase{"GemmTunableOp_Half_NN", "nn_8_-8_8_ld_8_8_8", "n is negative"},
        BadCase{"GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8", "ends before ldc"},
        BadCase{"GemmTunableOp_Half_NN", "nn_99999999999999999999_8_8_ld_8_8_8", "overflows"},
        // 2^60 complex doubles each: the elements fit 64 bits, their 2^64 bytes would wrap.
        BadCase{"GemmTunableOp_c10::complex<double>_NN",
                "nn_1073741824_1073741824_1073741824_ld_1073741824_1073741824_1073741824",
                "A spans 1152921504606846976 elements of 16 bytes: more than 2^60 bytes"},
        BadCase{"GemmTunableOp_Half_NN", "nn_0_8_8_ld_8_8_8", "at least 1"},
        BadCase{"GemmTunableOp_Half_NN", "nn_64_8_8_ld_32_8_64", "lda=32 is smaller than the 64"},
        BadCase{"GemmTunableOp_Half_TN", "tn_64_8_16_ld_8_16_64", "lda=8 is smaller than the 16"},
        BadCase{"GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_4", "ldc=4"},
        BadCase{"GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8_extra", "unexpected trailing"},
        BadCase{"GemmTunableOp_Half_NN", "nn_8_8_8_B_2_ld_8_8_8", "expected 'ld'"},
        BadCase{"GemmStridedBatchedTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8", "expected 'B'"},
        BadCase{"GemmTunableOp_Half", "nn_8_8_8_ld_8_8_8", "lacks the _<TA><TB>"},
        BadCase{"Gemm_Half_NN", "nn_8_8_8_ld_8_8_8", "does not have the form"},
        BadCase{"ScaledGemmTunableOp_Float8_e4m3fn_Float8_e4m3fn_BFloat16_TN",
                "tn_8_8_8_ld_8_8_8_rw_2_bias_None", "rw must be 0 or 1"},
        BadCase{"ScaledGemmTunableOp_Float8_e4m3fn_Float8_e4m3fn_BFloat16_TN",
                "tn_8_8_8_ld_8_8_8_rw_0_bias_Nope", "unknown bias dtype"}),
    [](const ::testing::TestParamInfo<BadCase>& param) { return std::to_string(param.index); });

}  // namespace
}  // namespace gemmtune

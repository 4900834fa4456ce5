// micro_perf's dtype names, and the column-major problem of a row-major micro_perf gemm.
#include "drivers/bench/bench_case.hpp"

#include <gtest/gtest.h>

namespace gemmtune::bench {
namespace {

std::optional<DType> dtype_of(std::string_view name) {
  const auto n = dtype_from_workload_name(name);
  return n ? n->dtype : std::nullopt;
}

TEST(BenchCase, MicroPerfDtypeNames) {
  EXPECT_EQ(dtype_of("float32"), DType::Float32);
  EXPECT_EQ(dtype_of("float"), DType::Float32);
  EXPECT_EQ(dtype_of("tfloat32"), DType::TF32);
  EXPECT_EQ(dtype_of("tf32"), DType::TF32);
  EXPECT_EQ(dtype_of("float16"), DType::Float16);
  EXPECT_EQ(dtype_of("half"), DType::Float16);
  EXPECT_EQ(dtype_of("bfloat16"), DType::BFloat16);
  EXPECT_EQ(dtype_of("float8"), DType::Float8E4M3);
  EXPECT_EQ(dtype_of("float8_e5m2"), DType::Float8E5M2);
  EXPECT_EQ(dtype_of("bf16"), DType::BFloat16);  // gemmtune's aliases too
  // Known to micro_perf, without a GEMM here: kept, with the reason.
  const auto int8 = dtype_from_workload_name("int8");
  ASSERT_TRUE(int8);
  EXPECT_FALSE(int8->dtype);
  EXPECT_EQ(int8->unsupported_reason,
            "gemmtune has no int8 GEMM (integer types are not supported)");
  // Unknown.
  EXPECT_FALSE(dtype_from_workload_name("quarter"));
  EXPECT_FALSE(dtype_from_workload_name("complex64"));
  EXPECT_FALSE(dtype_from_workload_name("Half"));  // names are case-sensitive, as in micro_perf
}

// x [128, 768] · W [768, 2304] in half is how PyTorch records GPT-2's Conv1D (without its bias):
// tests/fixtures/gpt2_fp16_untuned.csv has
// GemmAndBiasTunableOp_Half_NN,nn_2304_128_768_ld_2304_768_2304.
TEST(BenchCase, RowMajorGemmIsTheColumnMajorNnCall) {
  BenchCase c;
  c.m = 128;
  c.k = 768;
  c.n = 2304;
  c.dtype = "half";
  c.gemm_dtype = DType::Float16;
  const Problem p = problem_for_case(c);
  EXPECT_EQ(p.op_signature(), "GemmTunableOp_Half_NN");
  EXPECT_EQ(p.params_signature(), "nn_2304_128_768_ld_2304_768_2304");
  EXPECT_EQ(c.shape_text(), "128x768x2304");
  c.gemm_dtype = DType::TF32;
  EXPECT_EQ(problem_for_case(c).op_signature(), "GemmTunableOp_tf32_NN");
}

TEST(BenchCase, Float8RunsAsScaledGemmTn) {
  BenchCase c;
  c.m = 16;
  c.k = 64;
  c.n = 32;
  c.gemm_dtype = DType::Float8E4M3;
  const Problem p = problem_for_case(c);
  EXPECT_EQ(p.op, OpKind::ScaledGemm);
  EXPECT_EQ(p.transa, Transpose::T);
  EXPECT_EQ(p.transb, Transpose::N);
  EXPECT_EQ(p.m, 32);
  EXPECT_EQ(p.n, 16);
  EXPECT_EQ(p.k, 64);
  EXPECT_EQ(p.lda, 64);
  EXPECT_EQ(p.ldb, 64);
  EXPECT_EQ(p.ldc, 32);
  EXPECT_FALSE(p.invalid_reason());
}

}  // namespace
}  // namespace gemmtune::bench

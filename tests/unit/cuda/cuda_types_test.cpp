// How problems map onto CUDA types, and which ones CUDA refuses with a reason.
#include <gtest/gtest.h>

#include "solutions/cuda/cuda_types.hpp"

namespace gemmtune::cuda {
namespace {

Problem scaled(Transpose ta, Transpose tb, DType out) {
  Problem p = Problem::make(OpKind::ScaledGemm, DType::Float8E4M3, ta, tb, 64, 32, 128);
  p.c_type = out;
  return p;
}

TEST(CudaTypes, ComputeTypesFollowTheDtype) {
  auto types = [](DType d) {
    return gemm_types(Problem::make(OpKind::Gemm, d, Transpose::N, Transpose::N, 8, 8, 8));
  };
  EXPECT_EQ(types(DType::Float32).compute, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(types(DType::TF32).compute, CUBLAS_COMPUTE_32F_FAST_TF32);
  EXPECT_EQ(types(DType::TF32).a, CUDA_R_32F);
  EXPECT_EQ(types(DType::Float16).compute, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(types(DType::Float16).scale, CUDA_R_32F);
  EXPECT_EQ(types(DType::BFloat16).d, CUDA_R_16BF);
  EXPECT_EQ(types(DType::Float64).compute, CUBLAS_COMPUTE_64F);
  EXPECT_EQ(types(DType::ComplexFloat32).scale, CUDA_C_32F);
  EXPECT_FALSE(types(DType::Float32).bias.has_value());
}

TEST(CudaTypes, BiasAndFp8Output) {
  const Problem bias =
      Problem::make(OpKind::GemmAndBias, DType::BFloat16, Transpose::N, Transpose::N, 8, 8, 8);
  EXPECT_EQ(gemm_types(bias).bias, CUDA_R_16BF);
  Problem p = scaled(Transpose::T, Transpose::N, DType::Float8E4M3);
  EXPECT_EQ(gemm_types(p).d, CUDA_R_8F_E4M3);
  EXPECT_EQ(gemm_types(p).c, CUDA_R_16F);  // unread C described as fp16, as PyTorch does
  p.bias_type = DType::BFloat16;
  EXPECT_EQ(gemm_types(p).c, CUDA_R_16BF);
  EXPECT_EQ(gemm_types(scaled(Transpose::T, Transpose::N, DType::BFloat16)).c, CUDA_R_16BF);
}

TEST(CudaTypes, RefusesWithReasons) {
  EXPECT_FALSE(cuda_unsupported_reason(scaled(Transpose::T, Transpose::N, DType::BFloat16)));
  const auto nn = cuda_unsupported_reason(scaled(Transpose::N, Transpose::N, DType::BFloat16));
  ASSERT_TRUE(nn);
  EXPECT_NE(nn->find("tn"), std::string::npos) << *nn;
  Problem fnuz = scaled(Transpose::T, Transpose::N, DType::BFloat16);
  fnuz.a_type = fnuz.b_type = DType::Float8E4M3Fnuz;
  EXPECT_NE(cuda_unsupported_reason(fnuz).value_or("").find("fnuz"), std::string::npos);
  const Problem fp8_gemm =
      Problem::make(OpKind::Gemm, DType::Float8E4M3, Transpose::T, Transpose::N, 16, 16, 16);
  EXPECT_NE(cuda_unsupported_reason(fp8_gemm).value_or("").find("ScaledGemm"), std::string::npos);
  Problem bad = Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 0, 1, 1);
  EXPECT_TRUE(cuda_unsupported_reason(bad));
}

TEST(CudaTypes, ScalarsInTheScaleType) {
  const Scalars f = make_scalars(CUDA_R_32F, 2.0, 0.5);
  float a = 0, b = 0;
  std::memcpy(&a, f.alpha, sizeof a);
  std::memcpy(&b, f.beta, sizeof b);
  EXPECT_EQ(a, 2.0f);
  EXPECT_EQ(b, 0.5f);
  const Scalars d = make_scalars(CUDA_C_64F, 3.0, 0.0);
  double parts[2];
  std::memcpy(parts, d.alpha, sizeof parts);
  EXPECT_EQ(parts[0], 3.0);
  EXPECT_EQ(parts[1], 0.0);
}

}  // namespace
}  // namespace gemmtune::cuda

// How a Problem maps onto CUDA's types: storage types of A, B, C and D, the compute and scale
// types, the bias type, and the reasons a problem cannot run on CUDA at all.
//
// fp32 computes in fp32, tf32 in fp32 with TF32 tensor cores, fp16 and bf16 accumulate in fp32,
// fp64 in fp64, complex types in their real counterparts. ScaledGemm takes fp8 A and B, computes
// in fp32 and writes its C type; when that is fp8, the C operand (unread, beta = 0) is described
// as the bias type or fp16, as PyTorch does.
#pragma once

#include <cublas_api.h>
#include <library_types.h>

#include <optional>
#include <string>

#include "tuner/problem.hpp"

namespace gemmtune::cuda {

struct GemmTypes {
  cudaDataType_t a = CUDA_R_32F;
  cudaDataType_t b = CUDA_R_32F;
  cudaDataType_t c = CUDA_R_32F;  // the C input's layout type
  cudaDataType_t d = CUDA_R_32F;  // the output's type
  cudaDataType_t scale = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  std::optional<cudaDataType_t> bias;
};

std::optional<cudaDataType_t> to_cuda_type(DType dtype);

// Why no CUDA library can run the problem, or nothing when one may (the libraries still decide).
std::optional<std::string> cuda_unsupported_reason(const Problem& problem);

// Requires cuda_unsupported_reason(problem) to be empty.
GemmTypes gemm_types(const Problem& problem);

// alpha and beta in the scale type's representation, for host pointer mode.
struct Scalars {
  alignas(16) unsigned char alpha[16] = {};
  alignas(16) unsigned char beta[16] = {};
};
Scalars make_scalars(cudaDataType_t scale, double alpha, double beta);

cublasOperation_t to_cublas(Transpose t);

}  // namespace gemmtune::cuda

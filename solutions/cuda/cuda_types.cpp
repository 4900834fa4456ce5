#include "solutions/cuda/cuda_types.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>

#include "tuner/error.hpp"

namespace gemmtune::cuda {
namespace {

constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

template <typename T>
void store(unsigned char* out, const T& value) {
  static_assert(sizeof(T) <= 16);
  std::memcpy(out, &value, sizeof(T));
}

}  // namespace

std::optional<cudaDataType_t> to_cuda_type(DType dtype) {
  switch (dtype) {
    case DType::Float32:
    case DType::TF32:
      return CUDA_R_32F;
    case DType::Float64:
      return CUDA_R_64F;
    case DType::BFloat16:
      return CUDA_R_16BF;
    case DType::Float16:
      return CUDA_R_16F;
    case DType::Float8E4M3:
      return CUDA_R_8F_E4M3;
    case DType::Float8E5M2:
      return CUDA_R_8F_E5M2;
    case DType::ComplexFloat32:
      return CUDA_C_32F;
    case DType::ComplexFloat64:
      return CUDA_C_64F;
    case DType::Float8E4M3Fnuz:
    case DType::Float8E5M2Fnuz:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> cuda_unsupported_reason(const Problem& p) {
  if (auto why = p.invalid_reason()) return why;
  for (DType t : {p.a_type, p.b_type, p.c_type}) {
    if (!to_cuda_type(t)) {
      return fmt::format("{} is an AMD (fnuz) fp8 format; CUDA has no kernels for it",
                         info(t).cli_name);
    }
  }
  if (p.bias_type && !to_cuda_type(*p.bias_type)) {
    return fmt::format("bias type {} has no CUDA equivalent", info(*p.bias_type).cli_name);
  }
  const bool fp8_ab = info(p.a_type).is_float8 || info(p.b_type).is_float8;
  if (p.op == OpKind::ScaledGemm) {
    if (!info(p.a_type).is_float8 || !info(p.b_type).is_float8) {
      return std::string("ScaledGemm on CUDA needs fp8 A and B");
    }
    if (p.transa != Transpose::T || p.transb != Transpose::N) {
      return fmt::format("fp8 GEMMs on CUDA need A transposed and B not (tn); this problem is {}{}",
                         to_char(p.transa), to_char(p.transb));
    }
    if (info(p.c_type).is_complex) return std::string("ScaledGemm cannot write complex output");
  } else if (fp8_ab || info(p.c_type).is_float8) {
    return fmt::format("fp8 operands need ScaledGemm (scales), not {}", to_string(p.op));
  }
  if (p.m > kIntMax || p.n > kIntMax || p.k > kIntMax || p.lda > kIntMax || p.ldb > kIntMax ||
      p.ldc > kIntMax || p.batch > kIntMax) {
    return fmt::format("sizes above {} are not supported by the 32-bit cuBLAS API", kIntMax);
  }
  return std::nullopt;
}

GemmTypes gemm_types(const Problem& p) {
  GemmTypes t;
  t.a = *to_cuda_type(p.a_type);
  t.b = *to_cuda_type(p.b_type);
  t.d = *to_cuda_type(p.c_type);
  t.c = t.d;
  switch (p.a_type) {
    case DType::TF32:
      t.compute = CUBLAS_COMPUTE_32F_FAST_TF32;
      t.scale = CUDA_R_32F;
      break;
    case DType::Float64:
      t.compute = CUBLAS_COMPUTE_64F;
      t.scale = CUDA_R_64F;
      break;
    case DType::ComplexFloat32:
      t.compute = CUBLAS_COMPUTE_32F;
      t.scale = CUDA_C_32F;
      break;
    case DType::ComplexFloat64:
      t.compute = CUBLAS_COMPUTE_64F;
      t.scale = CUDA_C_64F;
      break;
    default:  // fp32, fp16, bf16 (fp32 accumulate), fp8 (ScaledGemm)
      t.compute = CUBLAS_COMPUTE_32F;
      t.scale = CUDA_R_32F;
      break;
  }
  if (p.op == OpKind::GemmAndBias) t.bias = t.d;
  if (p.op == OpKind::ScaledGemm) {
    if (p.bias_type) t.bias = *to_cuda_type(*p.bias_type);
    if (info(p.c_type).is_float8) t.c = t.bias.value_or(CUDA_R_16F);
  }
  return t;
}

Scalars make_scalars(cudaDataType_t scale, double alpha, double beta) {
  Scalars s;
  switch (scale) {
    case CUDA_R_64F:
      store(s.alpha, alpha);
      store(s.beta, beta);
      break;
    case CUDA_C_32F:
      store(s.alpha, std::complex<float>(static_cast<float>(alpha), 0.0f));
      store(s.beta, std::complex<float>(static_cast<float>(beta), 0.0f));
      break;
    case CUDA_C_64F:
      store(s.alpha, std::complex<double>(alpha, 0.0));
      store(s.beta, std::complex<double>(beta, 0.0));
      break;
    case CUDA_R_32F:
      store(s.alpha, static_cast<float>(alpha));
      store(s.beta, static_cast<float>(beta));
      break;
    default:
      GEMMTUNE_THROW("unexpected scale type {}", static_cast<int>(scale));
  }
  return s;
}

cublasOperation_t to_cublas(Transpose t) {
  switch (t) {
    case Transpose::N:
      return CUBLAS_OP_N;
    case Transpose::T:
      return CUBLAS_OP_T;
    case Transpose::C:
      return CUBLAS_OP_C;
  }
  return CUBLAS_OP_N;
}

}  // namespace gemmtune::cuda

// Device helpers the two skinny kernels share: element conversions to and from float, and whether
// a call's pointers, leading dimensions, k and strides allow 16-byte loads. For .cu files only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "solutions/cuda/skinny_gemm_kernel.hpp"

namespace gemmtune::cuda::skinny {

__device__ __forceinline__ float to_float(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ __forceinline__ float to_float(__half x) {
  return __half2float(x);
}
__device__ __forceinline__ float to_float(float x) {
  return x;
}

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half(x);
}
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}

// Elements of T in 16 bytes.
template <typename T>
constexpr int kVectorElements = 16 / static_cast<int>(sizeof(T));

template <typename T>
inline bool vector_loads_allowed(const SkinnyArgs& args) {
  constexpr std::int64_t V = kVectorElements<T>;
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool batched = args.batch > 1;
  return aligned(args.a) && aligned(args.b) && args.k % V == 0 && args.lda % V == 0 &&
         args.ldb % V == 0 && (!batched || (args.stride_a % V == 0 && args.stride_b % V == 0));
}

}  // namespace gemmtune::cuda::skinny

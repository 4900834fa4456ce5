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

// alpha·acc, where alpha = 0 reads no product, as in BLAS: an Inf or NaN in A or B (which a caller
// need not set then) does not reach C; 0·NaN would.
__device__ __forceinline__ float scaled_product(float alpha, float acc) {
  return alpha == 0.f ? 0.f : alpha * acc;
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

// f(accumulator, its index in a per-lane slot of MTiles·NTiles·4·32 floats) for each of a lane's
// m16n8k16 accumulators: the layout in which the kernels hand partial sums through shared memory.
template <int MTiles, int NTiles, typename F>
__device__ __forceinline__ void for_each_accumulator(float (&acc)[MTiles][NTiles][4], int lane,
                                                     F&& f) {
#pragma unroll
  for (int mt = 0; mt < MTiles; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
#pragma unroll
      for (int i = 0; i < 4; ++i) f(acc[mt][nt][i], ((mt * NTiles + nt) * 4 + i) * 32 + lane);
    }
  }
}

// Writes the m16n8k16 accumulators of a tile of 16·MTiles rows × 8·NTiles columns to C
// (column-major, ldc) in their fragment layout (mma_16816.cuh): lane (g, t) holds rows g and
// g + 8 of each 16, columns 2t and 2t + 1 of each 8. Rows past m and columns past n are skipped;
// C = alpha·acc + beta·C.
template <typename T, int MTiles, int NTiles>
__device__ __forceinline__ void store_tile(const SkinnyArgs& args, T* c, int row0, int lane,
                                           const float (&acc)[MTiles][NTiles][4]) {
  const int g = lane >> 2;
  const int t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < MTiles; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int row = row0 + mt * 16 + g + 8 * (i >> 1);
        const int col = nt * 8 + 2 * t + (i & 1);
        if (row >= args.m || col >= args.n) continue;
        T* out = c + row + static_cast<std::int64_t>(col) * args.ldc;
        float value = scaled_product(args.alpha, acc[mt][nt][i]);
        // beta = 0 must not read C: it may hold NaN (BLAS semantics).
        if (args.beta != 0.f) value = fmaf(args.beta, to_float(*out), value);
        *out = from_float<T>(value);
      }
    }
  }
}

}  // namespace gemmtune::cuda::skinny

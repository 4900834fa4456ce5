#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "solutions/cuda/scaled_gemm_kernel.hpp"

namespace gemmtune::cuda {
namespace {

constexpr int kTile = 16;   // outputs per block side
constexpr int kChunk = 32;  // k per shared-memory step

// Element `at` of an array of `type`, widened. The type is the same for every thread of the
// launch, so the switch costs no divergence; one kernel serves every combination of types.
__device__ float load(const void* p, ScaledKernelType type, std::int64_t at) {
  switch (type) {
    case ScaledKernelType::F32:
      return static_cast<const float*>(p)[at];
    case ScaledKernelType::F16:
      return __half2float(static_cast<const __half*>(p)[at]);
    case ScaledKernelType::BF16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[at]);
    case ScaledKernelType::E4M3:
      return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(p)[at]);
    case ScaledKernelType::E5M2:
      return static_cast<float>(static_cast<const __nv_fp8_e5m2*>(p)[at]);
  }
  return 0.0f;
}

// Rounds once, to nearest even; fp8 saturates to its largest finite value.
__device__ void store(void* p, ScaledKernelType type, std::int64_t at, float v) {
  switch (type) {
    case ScaledKernelType::F32:
      static_cast<float*>(p)[at] = v;
      break;
    case ScaledKernelType::F16:
      static_cast<__half*>(p)[at] = __float2half_rn(v);
      break;
    case ScaledKernelType::BF16:
      static_cast<__nv_bfloat16*>(p)[at] = __float2bfloat16_rn(v);
      break;
    case ScaledKernelType::E4M3:
      static_cast<__nv_fp8_storage_t*>(p)[at] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
      break;
    case ScaledKernelType::E5M2:
      static_cast<__nv_fp8_storage_t*>(p)[at] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E5M2);
      break;
  }
}

__device__ bool is_fp8(ScaledKernelType type) {
  return type == ScaledKernelType::E4M3 || type == ScaledKernelType::E5M2;
}

// One block of kTile × kTile threads per output tile, tiles taken in turn (a grid of any size
// covers any m × n). A and B are both contiguous along k (tn), so a chunk of kChunk k of kTile
// columns is read by consecutive threads at consecutive bytes.
__global__ void __launch_bounds__(kTile* kTile)
    gemmtune_scaled_gemm_kernel(ScaledGemmKernelArgs g) {
  __shared__ float a_chunk[kTile][kChunk + 1];  // [i][k]; the +1 keeps reads by i off one bank
  __shared__ float b_chunk[kTile][kChunk + 1];  // [j][k]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int thread = ty * kTile + tx;
  const std::int64_t tiles_m = (g.m + kTile - 1) / kTile;
  const std::int64_t tiles = tiles_m * ((g.n + kTile - 1) / kTile);
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::int64_t i0 = (tile % tiles_m) * kTile, j0 = (tile / tiles_m) * kTile;
    float sum = 0.0f;
    for (std::int64_t k0 = 0; k0 < g.k; k0 += kChunk) {
      for (int e = thread; e < kTile * kChunk; e += kTile * kTile) {
        const int col = e / kChunk, kk = e % kChunk;
        const bool k_in = k0 + kk < g.k;
        a_chunk[col][kk] =
            k_in && i0 + col < g.m ? load(g.a, g.a_type, (k0 + kk) + (i0 + col) * g.lda) : 0.0f;
        b_chunk[col][kk] =
            k_in && j0 + col < g.n ? load(g.b, g.b_type, (k0 + kk) + (j0 + col) * g.ldb) : 0.0f;
      }
      __syncthreads();
      for (int kk = 0; kk < kChunk; ++kk) sum += a_chunk[tx][kk] * b_chunk[ty][kk];
      __syncthreads();
    }
    const std::int64_t i = i0 + tx, j = j0 + ty;
    if (i < g.m && j < g.n) {
      const float sa = g.scale_a[g.rowwise ? i : 0];
      const float sb = g.scale_b[g.rowwise ? j : 0];
      // alpha = 0 reads no product, as in BLAS: an Inf or NaN in A or B does not reach D.
      float v = g.alpha == 0.0f ? 0.0f : g.alpha * sa * sb * sum;
      if (g.bias != nullptr) v += load(g.bias, g.bias_type, i);
      const std::int64_t at = i + j * g.ldd;
      if (g.beta != 0.0f && !is_fp8(g.d_type)) v += g.beta * load(g.d, g.d_type, at);
      store(g.d, g.d_type, at, v);
    }
  }
}

}  // namespace

cudaError_t launch_scaled_gemm_kernel(const ScaledGemmKernelArgs& args, cudaStream_t stream) {
  if (args.m <= 0 || args.n <= 0) return cudaSuccess;
  if (args.k < 0 || args.lda < args.k || args.ldb < args.k || args.ldd < args.m ||
      args.a == nullptr || args.b == nullptr || args.d == nullptr || args.scale_a == nullptr ||
      args.scale_b == nullptr) {
    return cudaErrorInvalidValue;
  }
  const std::int64_t tiles = ((args.m + kTile - 1) / kTile) * ((args.n + kTile - 1) / kTile);
  // Enough blocks to fill a large GPU several times over; each takes further tiles in turn.
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>(tiles, 65536)));
  ScaledGemmKernelArgs copy = args;
  void* params[] = {&copy};
  // cudaLaunchKernel returns this launch's error; `<<<>>>` and cudaPeekAtLastError would report
  // one the application left pending as ours.
  return cudaLaunchKernel(reinterpret_cast<const void*>(&gemmtune_scaled_gemm_kernel), grid,
                          dim3(kTile, kTile), params, 0, stream);
}

}  // namespace gemmtune::cuda

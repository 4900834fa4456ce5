#include "solutions/cuda/skinny_tc_kernel.hpp"

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/dependent_launch.cuh"
#include "solutions/cuda/mma_16816.cuh"
#include "solutions/cuda/skinny_common.cuh"

namespace gemmtune::cuda {
namespace {

using namespace skinny;
using tc::mma_16816;

// With m16n8k16's fragment layout (mma_16816.cuh), thread (g, t) loads k 8t..8t+7 of
// a 32-k chunk, i.e. physical k 8t+{0,1}, 8t+{2,3} feed logical pairs 2t, 2t+8 of the first
// k-step and 8t+{4,5}, 8t+{6,7} those of the second.
template <typename T, int MTiles, int NTiles, int Warps>
__global__ void __launch_bounds__(Warps * 32) skinny_tc_kernel(SkinnyArgs args) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int g = lane >> 2;
  const int t = lane & 3;
  const auto batch = static_cast<std::int64_t>(blockIdx.y);
  const T* a = static_cast<const T*>(args.a) + batch * args.stride_a;
  const T* b = static_cast<const T*>(args.b) + batch * args.stride_b;
  T* c = static_cast<T*>(args.c) + batch * args.stride_c;
  const int row0 = static_cast<int>(blockIdx.x) * 16 * MTiles;

  const T* a_rows[MTiles][2];
#pragma unroll
  for (int mt = 0; mt < MTiles; ++mt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = min(row0 + mt * 16 + g + 8 * h, args.m - 1);
      a_rows[mt][h] = a + static_cast<std::int64_t>(row) * args.lda;
    }
  }
  const T* b_cols[NTiles];
  bool b_live[NTiles];
#pragma unroll
  for (int nt = 0; nt < NTiles; ++nt) {
    const int col = nt * 8 + g;
    b_live[nt] = col < args.n;
    b_cols[nt] = b + static_cast<std::int64_t>(min(col, args.n - 1)) * args.ldb;
  }
  float acc[MTiles][NTiles][4];
#pragma unroll
  for (int mt = 0; mt < MTiles; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[mt][nt][i] = 0.f;
    }
  }
  wait_for_previous_kernel();
  allow_next_kernel();

  // The main loop keeps Depth chunks of loads in flight per warp: a ring of register buffers in
  // which chunk i is multiplied while chunk i + Depth is already on its way. Loading and then
  // multiplying in one step left each warp waiting a full memory latency per step. (Chunks of two
  // consecutive 32-k steps, so that a warp reads whole 128-byte lines, measured no faster on an
  // H200.)
  constexpr int kLoadsPerChunk = 2 * MTiles + NTiles;
  constexpr int Depth = kLoadsPerChunk <= 3   ? 4
                        : kLoadsPerChunk <= 4 ? 3
                        : kLoadsPerChunk <= 6 ? 2
                                              : 1;
  struct Chunk {
    uint4 a[MTiles][2];
    uint4 b[NTiles];
  };
  const int chunks = (args.k + 31) / 32;
  // Chunks past the end load zeros (their products add nothing); no address past k is read.
  auto load = [&](Chunk& ch, int chunk) {
    const uint4 zero = make_uint4(0, 0, 0, 0);
    const int kk = chunk * 32 + 8 * t;
    const bool in_k = chunk < chunks && kk < args.k;  // k is a multiple of 8: all 8 in or out
#pragma unroll
    for (int mt = 0; mt < MTiles; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        ch.a[mt][h] = in_k ? __ldcs(reinterpret_cast<const uint4*>(a_rows[mt][h] + kk)) : zero;
      }
    }
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
      ch.b[nt] = in_k && b_live[nt] ? __ldg(reinterpret_cast<const uint4*>(b_cols[nt] + kk)) : zero;
    }
  };
  auto multiply = [&](const Chunk& ch) {
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
#pragma unroll
      for (int mt = 0; mt < MTiles; ++mt) {
        const uint4& a0 = ch.a[mt][0];
        const uint4& a1 = ch.a[mt][1];
        const uint4& b = ch.b[nt];
        mma_16816<T>(acc[mt][nt], a0.x, a1.x, a0.y, a1.y, b.x, b.y);
        mma_16816<T>(acc[mt][nt], a0.z, a1.z, a0.w, a1.w, b.z, b.w);
      }
    }
  };
  Chunk ring[Depth];
#pragma unroll
  for (int d = 0; d < Depth; ++d) load(ring[d], warp + d * Warps);
  for (int base = warp; base < chunks; base += Depth * Warps) {
#pragma unroll
    for (int d = 0; d < Depth; ++d) {
      multiply(ring[d]);
      load(ring[d], base + (d + Depth) * Warps);
    }
  }

  // The warps' partial sums, added pairwise in a fixed tree (deterministic results): log2(Warps)
  // steps instead of one step per warp.
  static_assert((Warps & (Warps - 1)) == 0, "Warps must be a power of two");
  constexpr int kPerLane = MTiles * NTiles * 4;
  __shared__ float sums[(Warps > 1 ? Warps / 2 : 1) * kPerLane * 32];
#pragma unroll 1
  for (int step = 1; step < Warps; step *= 2) {
    float* slot = sums + (warp / (2 * step)) * kPerLane * 32;
    if (warp % (2 * step) == step)
      for_each_accumulator(acc, lane, [&](float& a, int at) { slot[at] = a; });
    __syncthreads();
    if (warp % (2 * step) == 0)
      for_each_accumulator(acc, lane, [&](float& a, int at) { a += slot[at]; });
    __syncthreads();
  }
  if (warp != 0) return;
  store_tile<T>(args, c, row0, lane, acc);
}

template <typename T, int MTiles, int Warps>
cudaError_t launch_tiles(const SkinnyArgs& args, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((args.m + 16 * MTiles - 1) / (16 * MTiles)),
                  static_cast<unsigned>(args.batch));
  const auto launch = [&](auto kernel) {
    return launch_dependent(kernel, grid, dim3(Warps * 32), 0, stream, args);
  };
  if (args.n <= 8) return launch(skinny_tc_kernel<T, MTiles, 1, Warps>);
  if (args.n <= 16) return launch(skinny_tc_kernel<T, MTiles, 2, Warps>);
  if (args.n <= 32) return launch(skinny_tc_kernel<T, MTiles, 4, Warps>);
  if (args.n <= kSkinnyTcMaxN) return launch(skinny_tc_kernel<T, MTiles, 8, Warps>);
  return cudaErrorInvalidValue;
}

// Element loads on slices of at most kSkinnyMaxN columns (see the header).
cudaError_t launch_sliced_fallback(SkinnyType type, SkinnyArgs args, cudaStream_t stream) {
  const int n = args.n;
  const void* b = args.b;
  void* c = args.c;
  const std::size_t element = 2;  // bf16 and fp16
  for (int j = 0; j < n; j += kSkinnyMaxN) {
    args.n = n - j < kSkinnyMaxN ? n - j : kSkinnyMaxN;
    args.b = static_cast<const char*>(b) + static_cast<std::size_t>(j) * args.ldb * element;
    args.c = static_cast<char*>(c) + static_cast<std::size_t>(j) * args.ldc * element;
    const cudaError_t e = launch_skinny_tn(type, SkinnyConfig{1, 256}, args, stream);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <typename T>
cudaError_t launch_typed(SkinnyTcConfig config, const SkinnyArgs& args, cudaStream_t stream) {
  switch (config.m_tiles * 100 + config.warps) {
    case 104:
      return launch_tiles<T, 1, 4>(args, stream);
    case 108:
      return launch_tiles<T, 1, 8>(args, stream);
    case 116:
      return launch_tiles<T, 1, 16>(args, stream);
    case 208:
      return launch_tiles<T, 2, 8>(args, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_skinny_tc_tn(SkinnyType type, SkinnyTcConfig config, const SkinnyArgs& args,
                                cudaStream_t stream) {
  if (args.m <= 0 || args.n <= 0 || args.n > kSkinnyTcMaxN || args.batch <= 0 ||
      args.batch > kSkinnyMaxBatch) {
    return cudaErrorInvalidValue;
  }
  switch (type) {
    case SkinnyType::BFloat16:
      return vector_loads_allowed<__nv_bfloat16>(args)
                 ? launch_typed<__nv_bfloat16>(config, args, stream)
                 : launch_sliced_fallback(type, args, stream);
    case SkinnyType::Float16:
      return vector_loads_allowed<__half>(args) ? launch_typed<__half>(config, args, stream)
                                                : launch_sliced_fallback(type, args, stream);
    case SkinnyType::Float32:
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace gemmtune::cuda

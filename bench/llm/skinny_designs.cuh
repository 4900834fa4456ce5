// Alternative designs of the tensor-core skinny kernel (solutions/cuda/skinny_tc_kernel.cu), bf16
// only, measured against it by gemmtune_skinny_designs. None of them is a solution: they exist to
// answer why the production kernel streams A at ~3.4–3.7 TB/s on an H200 at n = 8 where a
// row-contiguous read reaches ~4.2–4.5 TB/s (bench/results/2026-11-21-h200-skinny-designs.md).
//
// All share the production kernel's fragment trick: thread (g, t) of a warp feeds 8 consecutive k
// of rows g and g + 8 (and of B's column g) to two m16n8k16 steps. For .cu files only.
#pragma once

#include <cooperative_groups.h>
#include <cuda_bf16.h>

#include <cstdint>

#include "solutions/cuda/skinny_gemm_kernel.hpp"

namespace gemmtune::bench::designs {

using cuda::SkinnyArgs;
using Bf16 = __nv_bfloat16;

__device__ __forceinline__ void mma_bf16(float (&d)[4], uint4 a_lo, uint4 a_hi, uint4 b) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a_lo.x), "r"(a_hi.x), "r"(a_lo.y), "r"(a_hi.y), "r"(b.x), "r"(b.y));
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a_lo.z), "r"(a_hi.z), "r"(a_lo.w), "r"(a_hi.w), "r"(b.z), "r"(b.w));
}

__device__ __forceinline__ uint4 load_shared16(const void* p) {
  uint4 v;
  const auto at = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(at));
  return v;
}

// B's fragment columns for this lane (clamped to n − 1; `live` false past n).
template <int NTiles>
struct BColumns {
  const Bf16* at[NTiles];
  bool live[NTiles];
  __device__ BColumns(const SkinnyArgs& args, int g) {
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
      const int col = nt * 8 + g;
      live[nt] = col < args.n;
      at[nt] = static_cast<const Bf16*>(args.b) +
               static_cast<std::int64_t>(min(col, args.n - 1)) * args.ldb;
    }
  }
  __device__ uint4 load(int nt, int kk, int k) const {
    return kk < k && live[nt] ? __ldg(reinterpret_cast<const uint4*>(at[nt] + kk))
                              : make_uint4(0, 0, 0, 0);
  }
};

// The block's warps add their accumulators in a tree through `scratch` (Warps / 2 · NTiles · 128
// floats); warp 0 then holds the sums.
template <int NTiles, int Warps>
__device__ void reduce_warps(float (&acc)[NTiles][4], float* scratch, int warp, int lane) {
  constexpr int kPerLane = NTiles * 4;
#pragma unroll 1
  for (int step = 1; step < Warps; step *= 2) {
    float* slot = scratch + (warp / (2 * step)) * kPerLane * 32;
    if (warp % (2 * step) == step) {
#pragma unroll
      for (int nt = 0; nt < NTiles; ++nt)
#pragma unroll
        for (int i = 0; i < 4; ++i) slot[(nt * 4 + i) * 32 + lane] = acc[nt][i];
    }
    __syncthreads();
    if (warp % (2 * step) == 0) {
#pragma unroll
      for (int nt = 0; nt < NTiles; ++nt)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[nt][i] += slot[(nt * 4 + i) * 32 + lane];
    }
    __syncthreads();
  }
}

template <int NTiles>
__device__ void store_tile(const SkinnyArgs& args, const float (&acc)[NTiles][4], int row0,
                           int g, int t) {
  auto* c = static_cast<Bf16*>(args.c);
#pragma unroll
  for (int nt = 0; nt < NTiles; ++nt)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = row0 + g + 8 * (i >> 1);
      const int col = nt * 8 + 2 * t + (i & 1);
      if (row < args.m && col < args.n) {
        c[row + static_cast<std::int64_t>(col) * args.ldc] = __float2bfloat16(args.alpha * acc[nt][i]);
      }
    }
}

// 1. The production kernel's loop (16 rows per block, warps interleaving 32-k chunks, a ring of
// Depth chunks in registers), with two switches that take parts out — LoadB (else B is a
// constant), Multiply (else the data is folded with xor, no mma) — and Split, which spreads one
// 16-row tile's k over a cluster of Split blocks that add their sums through distributed shared
// memory. The "loads only" form is what shows that the A-load pattern itself is the limit.
template <int NTiles, int Warps, int Split, bool LoadB, bool Multiply>
__global__ void __launch_bounds__(Warps * 32) register_ring(SkinnyArgs args) {
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int rank = static_cast<int>(blockIdx.x) % Split;
  const int row0 = static_cast<int>(blockIdx.x) / Split * 16;
  const Bf16* a = static_cast<const Bf16*>(args.a);
  const Bf16* row_lo = a + static_cast<std::int64_t>(min(row0 + g, args.m - 1)) * args.lda;
  const Bf16* row_hi = a + static_cast<std::int64_t>(min(row0 + g + 8, args.m - 1)) * args.lda;
  const BColumns<NTiles> b(args, g);
  constexpr int Depth = 2 + NTiles <= 3 ? 4 : 2 + NTiles <= 4 ? 3 : 2 + NTiles <= 6 ? 2 : 1;
  constexpr int kStride = Warps * Split;
  struct Chunk {
    uint4 lo, hi, b[NTiles];
  };
  const int chunks = (args.k + 31) / 32;
  auto load = [&](Chunk& ch, int chunk) {
    const int kk = chunk * 32 + 8 * t;
    const bool in_k = chunk < chunks && kk < args.k;
    const uint4 zero = make_uint4(0, 0, 0, 0);
    ch.lo = in_k ? __ldcs(reinterpret_cast<const uint4*>(row_lo + kk)) : zero;
    ch.hi = in_k ? __ldcs(reinterpret_cast<const uint4*>(row_hi + kk)) : zero;
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
      ch.b[nt] = LoadB ? b.load(nt, in_k ? kk : args.k, args.k) : make_uint4(0x3f803f80u, 0, 0, 0);
    }
  };
  float acc[NTiles][4] = {};
  auto multiply = [&](const Chunk& ch) {
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
      if constexpr (Multiply) {
        mma_bf16(acc[nt], ch.lo, ch.hi, ch.b[nt]);
      } else {
        const uint4 x = make_uint4(ch.lo.x ^ ch.hi.x ^ ch.b[nt].x, ch.lo.y ^ ch.hi.y ^ ch.b[nt].y,
                                   ch.lo.z ^ ch.hi.z ^ ch.b[nt].z, ch.lo.w ^ ch.hi.w ^ ch.b[nt].w);
        acc[nt][0] += __uint_as_float((x.x ^ x.y ^ x.z ^ x.w) & 0x3fffffffu);
      }
    }
  };
  Chunk ring[Depth];
  const int first = rank * Warps + warp;
#pragma unroll
  for (int d = 0; d < Depth; ++d) load(ring[d], first + d * kStride);
  for (int base = first; base < chunks; base += Depth * kStride) {
#pragma unroll
    for (int d = 0; d < Depth; ++d) {
      multiply(ring[d]);
      load(ring[d], base + (d + Depth) * kStride);
    }
  }
  __shared__ float scratch[(Warps > 1 ? Warps / 2 : 1) * NTiles * 4 * 32];
  reduce_warps<NTiles, Warps>(acc, scratch, warp, lane);
  if constexpr (Split > 1) {
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    // Ranks 1.. park warp 0's sums in their scratch; rank 0 adds them in rank order.
    if (warp == 0 && rank != 0) {
#pragma unroll
      for (int nt = 0; nt < NTiles; ++nt)
#pragma unroll
        for (int i = 0; i < 4; ++i) scratch[(nt * 4 + i) * 32 + lane] = acc[nt][i];
    }
    cluster.sync();
    if (warp == 0 && rank == 0) {
      for (int r = 1; r < Split; ++r) {
        const float* remote = cluster.map_shared_rank(scratch, r);
#pragma unroll
        for (int nt = 0; nt < NTiles; ++nt)
#pragma unroll
          for (int i = 0; i < 4; ++i) acc[nt][i] += remote[(nt * 4 + i) * 32 + lane];
      }
    }
    cluster.sync();  // keeps every rank's scratch alive until rank 0 has read it
  }
  if (warp == 0 && rank == 0) store_tile<NTiles>(args, acc, row0, g, t);
}

// 2. A staged through shared memory, read like the fast pure reads: Threads / 16 threads per row,
// U 16-byte loads each per stage (KC = Threads / 16 · 8 · U k of 16 rows), Depth stages in
// flight in a register ring, one shared buffer (a __syncthreads on each side of the store);
// each warp then multiplies KC / warps k of the stage from shared memory.
template <int NTiles, int Threads, int U, int Depth>
__global__ void __launch_bounds__(Threads) staged_ring(SkinnyArgs args) {
  constexpr int kWarps = Threads / 32, kPerRow = Threads / 16, KC = kPerRow * 8 * U;
  constexpr int kRowBytes = KC * 2 + 64;  // rows g and g + 1 fall on opposite halves of the banks
  constexpr int kWarpK = KC / kWarps, kSubs = kWarpK / 32;
  static_assert(kWarpK % 32 == 0, "each warp takes whole 32-k steps of a stage");
  extern __shared__ __align__(16) unsigned char tile[];
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int load_row = tid / kPerRow, load_slot = tid % kPerRow;
  const int row0 = static_cast<int>(blockIdx.x) * 16;
  const Bf16* my_row = static_cast<const Bf16*>(args.a) +
                       static_cast<std::int64_t>(min(row0 + load_row, args.m - 1)) * args.lda;
  const BColumns<NTiles> b(args, g);
  const int stages = (args.k + KC - 1) / KC;
  struct Stage {
    uint4 a[U];
    uint4 b[kSubs][NTiles];
  };
  auto load = [&](Stage& st, int s) {
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const int kk = s * KC + (j * kPerRow + load_slot) * 8;
      st.a[j] = s < stages && kk < args.k ? __ldcs(reinterpret_cast<const uint4*>(my_row + kk))
                                          : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int q = 0; q < kSubs; ++q)
#pragma unroll
      for (int nt = 0; nt < NTiles; ++nt) {
        st.b[q][nt] = b.load(nt, s < stages ? s * KC + warp * kWarpK + q * 32 + 8 * t : args.k, args.k);
      }
  };
  float acc[NTiles][4] = {};
  Stage ring[Depth];
#pragma unroll
  for (int d = 0; d < Depth; ++d) load(ring[d], d);
  for (int base = 0; base < stages; base += Depth) {
#pragma unroll
    for (int d = 0; d < Depth; ++d) {
      __syncthreads();
#pragma unroll
      for (int j = 0; j < U; ++j) {
        *reinterpret_cast<uint4*>(tile + load_row * kRowBytes + (j * kPerRow + load_slot) * 16) =
            ring[d].a[j];
      }
      uint4 b_now[kSubs][NTiles];
#pragma unroll
      for (int q = 0; q < kSubs; ++q)
#pragma unroll
        for (int nt = 0; nt < NTiles; ++nt) b_now[q][nt] = ring[d].b[q][nt];
      __syncthreads();
      load(ring[d], base + d + Depth);
#pragma unroll
      for (int q = 0; q < kSubs; ++q) {
        const int kl = warp * kWarpK + q * 32 + 8 * t;
        const uint4 lo = load_shared16(tile + g * kRowBytes + kl * 2);
        const uint4 hi = load_shared16(tile + (g + 8) * kRowBytes + kl * 2);
#pragma unroll
        for (int nt = 0; nt < NTiles; ++nt) mma_bf16(acc[nt], lo, hi, b_now[q][nt]);
      }
    }
  }
  __syncthreads();
  reduce_warps<NTiles, kWarps>(acc, reinterpret_cast<float*>(tile), warp, lane);
  if (warp == 0) store_tile<NTiles>(args, acc, row0, g, t);
}

template <int NTiles, int Threads, int U>
constexpr int staged_ring_smem_bytes() {
  constexpr int stage = 16 * (Threads / 16 * 8 * U * 2 + 64);
  constexpr int reduction = Threads / 64 * NTiles * 4 * 32 * 4;
  return stage > reduction ? stage : reduction;
}

// 3. A copied to shared memory with cp.async (no registers): Stages buffers of 16 rows × KC k,
// KC / 8 threads per row reading it contiguously, the classic wait_group pipeline.
__device__ __forceinline__ void copy_async16(void* dst, const void* src, bool valid) {
  const auto at = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(at), "l"(src),
               "r"(valid ? 16 : 0));
}

template <int NTiles, int Warps, int KC, int Stages>
__global__ void __launch_bounds__(Warps * 32) async_copy(SkinnyArgs args) {
  constexpr int kThreads = Warps * 32, kRowBytes = KC * 2 + 64, kStageBytes = 16 * kRowBytes;
  constexpr int kPieces = 16 * KC / 8, kWarpK = KC / Warps;
  static_assert(kPieces % kThreads == 0 && kWarpK % 32 == 0, "whole pieces and 32-k steps");
  extern __shared__ __align__(16) unsigned char buffers[];
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int row0 = static_cast<int>(blockIdx.x) * 16;
  const Bf16* a = static_cast<const Bf16*>(args.a);
  const BColumns<NTiles> b(args, g);
  const int stages = (args.k + KC - 1) / KC;
  auto issue = [&](int s) {
    if (s < stages) {
      unsigned char* dst = buffers + (s % Stages) * kStageBytes;
#pragma unroll
      for (int i = 0; i < kPieces / kThreads; ++i) {
        const int piece = tid + i * kThreads;
        const int r = piece / (KC / 8), col = piece % (KC / 8);
        const int kk = s * KC + col * 8;
        const Bf16* row = a + static_cast<std::int64_t>(min(row0 + r, args.m - 1)) * args.lda;
        copy_async16(dst + r * kRowBytes + col * 16, row + (kk < args.k ? kk : 0), kk < args.k);
      }
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  float acc[NTiles][4] = {};
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) issue(s);
  for (int s = 0; s < stages; ++s) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Stages - 2));
    __syncthreads();
    issue(s + Stages - 1);
    const unsigned char* stage = buffers + (s % Stages) * kStageBytes;
#pragma unroll
    for (int q = 0; q < kWarpK / 32; ++q) {
      const int kl = warp * kWarpK + q * 32 + 8 * t;
      const uint4 lo = load_shared16(stage + g * kRowBytes + kl * 2);
      const uint4 hi = load_shared16(stage + (g + 8) * kRowBytes + kl * 2);
#pragma unroll
      for (int nt = 0; nt < NTiles; ++nt) mma_bf16(acc[nt], lo, hi, b.load(nt, s * KC + kl, args.k));
    }
  }
  asm volatile("cp.async.wait_group 0;\n" ::);
  __syncthreads();
  reduce_warps<NTiles, Warps>(acc, reinterpret_cast<float*>(buffers), warp, lane);
  if (warp == 0) store_tile<NTiles>(args, acc, row0, g, t);
}

// 4. Reads only: Rows rows of A per block, Threads / Rows threads per row reading 16 bytes each,
// unrolled U times; the xor of everything goes nowhere unless it hits a magic value (so the loads
// are not removed). Rows = 1 is the CUDA-core n = 1 kernel's pattern.
template <int Rows, int Threads, int U>
__global__ void __launch_bounds__(Threads) read_rows(SkinnyArgs args) {
  constexpr int kPerRow = Threads / Rows;
  const int r = static_cast<int>(threadIdx.x) / kPerRow, slot = static_cast<int>(threadIdx.x) % kPerRow;
  const char* row = static_cast<const char*>(args.a) +
                    static_cast<std::int64_t>(min(static_cast<int>(blockIdx.x) * Rows + r, args.m - 1)) *
                        args.lda * 2;
  unsigned x = 0;
#pragma unroll U
  for (int offset = slot * 16; offset < args.k * 2; offset += kPerRow * 16) {
    const uint4 v = __ldcs(reinterpret_cast<const uint4*>(row + offset));
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x9e3779b9u) *static_cast<unsigned*>(args.c) = x;
}

}  // namespace gemmtune::bench::designs

// The warpgroup skinny kernel: the bulk-copy kernel's TMA pipeline (skinny_bulk_kernel.cuh) with
// its multiplies done by wgmma, straight from the stages, instead of ldmatrix + mma.sync. For .cu
// files only; needs sm_90a.
//
// wgmma's tile is 64 rows of its first operand, and our n is at most 64: so the kernel computes
// Cᵀ = Bᵀ·A, with B's box (BRows ≥ n columns of B, zero past n) as the first operand and A's box
// (16·MTiles rows of Aᵀ) as the second, N = 16·MTiles. Both boxes are k-contiguous rows of 128
// bytes with the 128-byte swizzle, which is the operand layout wgmma reads. Where BRows < 64,
// wgmma's rows past BRows are whatever follows the box in shared memory: they only make rows of
// Cᵀ past n, which are never stored (a row of the product depends on that row of the operand
// alone), and the layout keeps them inside the block's shared memory. That is faster than a
// 64-row box: the TMA unit's zero fill past n took longer than copying the same rows (n = 32 ran
// slower than n = 64 with 64-row boxes on an H200).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <cstring>

#include "solutions/cuda/bulk_copy.cuh"
#include "solutions/cuda/dependent_launch.cuh"
#include "solutions/cuda/named_barrier.cuh"
#include "solutions/cuda/skinny_bulk_kernel.cuh"
#include "solutions/cuda/skinny_common.cuh"
#include "solutions/cuda/wgmma.cuh"

namespace gemmtune::cuda::skinny {

// One stage: KBoxes boxes of BRows rows of B's columns (zero past n), then KBoxes boxes of
// 16·MTiles rows of Aᵀ; every box 64 k of 128 bytes per row.
template <int MTiles, int KBoxes, int BRows>
struct WgStage : TmaStage<16 * MTiles, BRows, KBoxes, true> {
  using Base = TmaStage<16 * MTiles, BRows, KBoxes, true>;
  // What wgmma reads past the last stage's last B box, besides its A boxes.
  static constexpr int kOverreadBytes = (64 - BRows) * kBoxBytesPerRow > KBoxes* Base::kBoxBytesA
                                            ? (64 - BRows) * kBoxBytesPerRow
                                                  - KBoxes* Base::kBoxBytesA
                                            : 0;
};

// Per-thread slots of the warpgroups' tree of partial sums (none with one warpgroup).
template <int MTiles, int Groups>
__host__ __device__ constexpr int wg_sums_bytes() {
  return Groups / 2 * (8 * MTiles) * 128 * 4;
}

// Elements between the columns of the tile end's staging area: a column of the tile (16·MTiles
// rows) and 8 more, so that the accumulators' pairs written by a warp spread over the banks.
template <int MTiles>
inline constexpr int kWgStagingPitch = 16 * MTiles + 8;

// Dynamic shared memory: 1024 bytes to align the stages, the stages, room for wgmma's reads past
// the last one, the sums, and where StagedTiles the staging area for a tile of C (64 columns).
template <int MTiles, int Groups, int KBoxes, int Stages, int BRows, bool StagedTiles>
constexpr int wg_kernel_shared_bytes() {
  using Stage = WgStage<MTiles, KBoxes, BRows>;
  return 1024 + Stages * Stage::kBytes + Stage::kOverreadBytes + wg_sums_bytes<MTiles, Groups>() +
         (StagedTiles ? 64 * kWgStagingPitch<MTiles> * 2 : 0);
}

// Whether the tile end may stage C and store it 16 bytes at a time: beta = 0 (nothing of C is
// read) and every column of every matrix of C starts on 16 bytes.
template <typename T>
__device__ __forceinline__ bool wg_can_store_staged(const SkinnyArgs& args) {
  constexpr std::int64_t kVector = 16 / sizeof(T);
  return args.beta == 0.f && reinterpret_cast<std::uintptr_t>(args.c) % 16 == 0 &&
         args.ldc % kVector == 0 && (args.batch == 1 || args.stride_c % kVector == 0);
}

// Warpgroup 0's tile end where wg_can_store_staged: the tile (alpha·acc) goes to the staging area
// column by column, then each thread stores 16 contiguous bytes of a column of C at a time. Each
// accumulator stored on its own (2 bytes, 8 columns per warp instruction) cost 2.7 µs more on an
// H200 on 14336 × 4096 at n = 64, where each block writes its one tile at the kernel's end.
template <typename T, int N>
__device__ __forceinline__ void wg_store_staged(const SkinnyArgs& args, T* c, int row0, T* staging,
                                                int warp, int lane, const float (&acc)[N / 2]) {
  constexpr int kPitch = N + 8;
  const int t = warp * 32 + lane;
  // acc[4j + i] is C's column 16·warp + lane / 4 + 8·(i / 2), row 8j + 2·(lane % 4) + i % 2:
  // i = 0, 1 (and 2, 3) are neighbouring rows of one column, written as one pair.
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = 16 * warp + (lane >> 2) + 8 * h;
      if (col >= args.n) continue;
      const T pair[2] = {from_float<T>(scaled_product(args.alpha, acc[4 * j + 2 * h])),
                         from_float<T>(scaled_product(args.alpha, acc[4 * j + 2 * h + 1]))};
      std::uint32_t bits;
      memcpy(&bits, pair, sizeof(bits));
      *reinterpret_cast<std::uint32_t*>(staging + col * kPitch + 8 * j + 2 * (lane & 3)) = bits;
    }
  }
  named_barrier_sync<2, 128>();  // warpgroup 0 only
  constexpr int kVector = 16 / sizeof(T);
  constexpr int kVectors = N / kVector;  // per column
  for (int v = t; v < kVectors * args.n; v += 128) {
    const int col = v / kVectors;
    const int row = (v - col * kVectors) * kVector;
    const T* from = staging + col * kPitch + row;
    T* out = c + row0 + row + static_cast<std::int64_t>(col) * args.ldc;
    if (row0 + row + kVector <= args.m) {
      *reinterpret_cast<uint4*>(out) = *reinterpret_cast<const uint4*>(from);
    } else {
      for (int e = 0; row0 + row + e < args.m; ++e) out[e] = from[e];
    }
  }
  named_barrier_sync<2, 128>();  // read before the next tile overwrites it
}

// A persistent kernel, scheduled as skinny_bulk_kernel: Groups consumer warpgroups, then one
// producer warp; tiles of 16·MTiles rows of Aᵀ × all n ≤ 64 columns (× batch); chunk g of the
// block (KBoxes boxes of 64 k) lands in stage g % Stages and is multiplied by warpgroup
// g % Groups; at the tile's end the warpgroups add their sums in a fixed tree and warpgroup 0
// writes the tile (through the staging area where StagedTiles and wg_can_store_staged).
template <typename T, int MTiles, int Groups, int KBoxes, int Stages, int BRows, bool StagedTiles,
          SkinnyPrefetch Prefetch = SkinnyPrefetch::early>
__global__ void __launch_bounds__(Groups * 128 + 32)
    skinny_wgmma_kernel(SkinnyArgs args, const __grid_constant__ CUtensorMap map_a,
                        const __grid_constant__ CUtensorMap map_b) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ != 900 || !defined(__CUDA_ARCH_FEAT_SM90_ALL))
  __trap();  // wgmma needs sm_90a; the host side never launches it elsewhere
#else
  using Stage = WgStage<MTiles, KBoxes, BRows>;
  static_assert(BRows % 8 == 0 && BRows <= 64, "B's box is whole 8-row swizzle atoms, ≤ 64");
  constexpr int N = 16 * MTiles;  // wgmma's N: rows of Aᵀ
  constexpr int KChunk = KBoxes * kBoxK;
  constexpr int kConsumers = Groups * 128;
  static_assert((Groups & (Groups - 1)) == 0, "Groups must be a power of two");
  static_assert(Stages % Groups == 0, "Stages must be a multiple of Groups");
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  __shared__ std::uint64_t full[Stages], empty[Stages];

  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const std::uint32_t base = (bulk::shared_address(dynamic_shared) + 1023u) & ~1023u;
  float* const sums =
      reinterpret_cast<float*>(dynamic_shared + (base - bulk::shared_address(dynamic_shared)) +
                               Stages * Stage::kBytes + Stage::kOverreadBytes);
  T* const staging = reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(sums) +
                                          wg_sums_bytes<MTiles, Groups>());
  const int chunks = (args.k + KChunk - 1) / KChunk;
  const int row_tiles = (args.m + Stage::kRowsA - 1) / Stage::kRowsA;
  const int tiles = row_tiles * args.batch;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      bulk::barrier_init(&full[s], 1);
      bulk::barrier_init(&empty[s], 4);  // one arrival per warp of the warpgroup
    }
    bulk::fence_barrier_init();
  }
  __syncthreads();
  // Set up while the stream's previous kernel may still run; nothing global is read before, but
  // the producer may warm L2 with A's first stages.
  if constexpr (Prefetch == SkinnyPrefetch::early) {
    if (warp == Groups * 4 && lane == 0) {
      prefetch_first_stages<Stage, Stages>(map_a, tiles, row_tiles, chunks);
    }
  }
  wait_for_previous_kernel();
  allow_next_kernel();

  if (warp == Groups * 4) {
    if (lane != 0) return;
    produce_stages<Stage, Stages, Prefetch>(map_a, map_b, tiles, row_tiles, chunks, base, full,
                                            empty);
    return;
  }

  const int group = warp / 4;
  const int t = static_cast<int>(threadIdx.x) & 127;
  int g = 0;
  for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += gridDim.x, g += chunks) {
    float acc[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc[i] = 0.f;
    int in_flight = -1;  // the stage whose multiplies may still be running
    for (int i = (group - g % Groups + Groups) % Groups; i < chunks; i += Groups) {
      const int slot = (g + i) % Stages;
      bulk::wait(&full[slot], ((g + i) / Stages) & 1);
      const std::uint32_t stage = base + slot * Stage::kBytes;
      wgmma::fence();
#pragma unroll
      for (int box = 0; box < KBoxes; ++box) {
        const std::uint32_t box_b = stage + Stage::box_b(box);
        const std::uint32_t box_a = stage + Stage::box_a(box);
#pragma unroll
        for (int s = 0; s < kBoxK / 16; ++s) {
          wgmma::mma_64xN<T, N>(acc, wgmma::descriptor(box_b + 32 * s),
                                wgmma::descriptor(box_a + 32 * s));
        }
      }
      wgmma::commit();
      // Keep this stage's multiplies running while the next stage is awaited; the one before is
      // done with its stage, which goes back to the producer.
      wgmma::wait<1>();
      if (in_flight >= 0 && lane == 0) bulk::arrive(&empty[in_flight]);
      in_flight = slot;
    }
    wgmma::wait<0>();
    if (in_flight >= 0 && lane == 0) bulk::arrive(&empty[in_flight]);

      // The partial sums, added pairwise in a fixed tree over the warpgroups.
#pragma unroll 1
    for (int step = 1; step < Groups; step *= 2) {
      float* slot = sums + (group / (2 * step)) * (N / 2) * 128;
      if (group % (2 * step) == step) {
#pragma unroll
        for (int i = 0; i < N / 2; ++i) slot[i * 128 + t] = acc[i];
      }
      named_barrier_sync<1, kConsumers>();
      if (group % (2 * step) == 0) {
#pragma unroll
        for (int i = 0; i < N / 2; ++i) acc[i] += slot[i * 128 + t];
      }
      named_barrier_sync<1, kConsumers>();
    }
    if (group != 0) continue;
    const int row0 = (tile % row_tiles) * Stage::kRowsA;
    T* c = static_cast<T*>(args.c) + static_cast<std::int64_t>(tile / row_tiles) * args.stride_c;
    if constexpr (StagedTiles) {
      if (wg_can_store_staged<T>(args)) {
        wg_store_staged<T, N>(args, c, row0, staging, warp, lane, acc);
        continue;
      }
    }
    // acc[4j + i] is Cᵀ's row (= C's column) 16·warp + lane / 4 + 8·(i / 2) and its column (= C's
    // row) 8j + 2·(lane % 4) + i % 2.
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int col = 16 * warp + (lane >> 2) + 8 * (i >> 1);
        const int row = row0 + 8 * j + 2 * (lane & 3) + (i & 1);
        if (row >= args.m || col >= args.n) continue;
        T* out = c + row + static_cast<std::int64_t>(col) * args.ldc;
        float value = scaled_product(args.alpha, acc[4 * j + i]);
        // beta = 0 must not read C: it may hold NaN (BLAS semantics).
        if (args.beta != 0.f) value = fmaf(args.beta, to_float(*out), value);
        *out = from_float<T>(value);
      }
    }
  }
#endif
}

}  // namespace gemmtune::cuda::skinny

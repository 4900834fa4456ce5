// The bulk-copy tensor-core skinny kernel (see skinny_bulk_kernel.hpp), as a template so that a
// timing harness can instantiate configurations the solution does not compile in (as the one
// behind bench/results/2026-11-21-h200-skinny-bulk.md did). For .cu files only.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "solutions/cuda/bulk_copy.cuh"
#include "solutions/cuda/dependent_launch.cuh"
#include "solutions/cuda/mma_16816.cuh"
#include "solutions/cuda/named_barrier.cuh"
#include "solutions/cuda/skinny_bulk_kernel.hpp"
#include "solutions/cuda/skinny_common.cuh"

namespace gemmtune::cuda::skinny {

// k arrives in boxes of 64 elements (128 bytes, the widest box the 128-byte swizzle allows).
inline constexpr int kBoxK = 64;
inline constexpr int kBoxBytesPerRow = 128;

// Shared-memory layout of one stage of the TMA kernels: KBoxes boxes of RowsA rows of Aᵀ and
// KBoxes boxes of RowsB rows of B (B's columns, zero past n), A's boxes first unless BFirst; each
// row 128 bytes with its 16-byte chunks swizzled (chunk c of row r at c ^ (r mod 8)), so that the
// 8 row addresses of an ldmatrix fall in different banks, which is also the layout wgmma reads.
template <int RowsA, int RowsB, int KBoxes, bool BFirst>
struct TmaStage {
  static constexpr int kRowsA = RowsA;
  static constexpr int kBoxes = KBoxes;
  static constexpr bool kBFirst = BFirst;
  static constexpr int kBoxBytesA = RowsA * kBoxBytesPerRow;
  static constexpr int kBoxBytesB = RowsB * kBoxBytesPerRow;
  static constexpr int kBytes = KBoxes * (kBoxBytesA + kBoxBytesB);  // a multiple of 1024
  __host__ __device__ static constexpr std::uint32_t box_a(int box) {
    return (BFirst ? KBoxes * kBoxBytesB : 0) + box * kBoxBytesA;
  }
  __host__ __device__ static constexpr std::uint32_t box_b(int box) {
    return (BFirst ? 0 : KBoxes * kBoxBytesA) + box * kBoxBytesB;
  }
};

// The bulk-copy kernel's stage: tiles of 16·MTiles rows, B's 8·NTiles columns after them.
template <int MTiles, int NTiles, int KBoxes>
using BulkStage = TmaStage<16 * MTiles, 8 * NTiles, KBoxes, false>;

// SkinnyPrefetch::late: once the ring's first copies are issued, the A boxes of the tile's next
// Stages chunks (from `first`, up to the tile's end) are brought into L2. Issued before the ring's
// copies (early), the prefetches queue ahead of them in the TMA unit, which on a short tile costs
// more than it gains: the warpgroup kernel took 9.7 µs on 2048 × 64 × 2048 with them, 8.7
// with no prefetch at all (H100, bench/results/2026-11-27-h100-prefetch-policy.md).
template <typename Stage, int Stages>
__device__ __forceinline__ void prefetch_next_chunks(const CUtensorMap& map_a, int row0, int z,
                                                     int first, int chunks) {
  const int end = min(first + Stages, chunks);
  for (int box = first * Stage::kBoxes; box < end * Stage::kBoxes; ++box) {
    bulk::prefetch_box(&map_a, box * kBoxK, row0, z);
  }
}

// The producer of a TMA skinny kernel, one thread: it streams the k chunks of the block's tiles
// (blockIdx.x, + gridDim.x, …; Stage::kBoxes boxes of 64 k each) back to back through the ring of
// Stages, A once (evicted first from L2), B as every block rereads it (evicted last). A stage is
// refilled once its consumers have released it (`empty`), and `full` counts the bytes in. With
// SkinnyPrefetch::late it prefetches the next chunks once the ring's first copies are issued.
template <typename Stage, int Stages, SkinnyPrefetch Prefetch>
__device__ __forceinline__ void produce_stages(const CUtensorMap& map_a, const CUtensorMap& map_b,
                                               int tiles, int row_tiles, int chunks,
                                               std::uint32_t base, std::uint64_t* full,
                                               std::uint64_t* empty) {
  const std::uint64_t stream_once = bulk::evict_first_policy();
  const std::uint64_t reread = bulk::evict_last_policy();
  int g = 0;
  for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += gridDim.x) {
    const int row0 = (tile % row_tiles) * Stage::kRowsA;
    const int z = tile / row_tiles;
    for (int i = 0; i < chunks; ++i, ++g) {
      const int slot = g % Stages;
      bulk::wait(&empty[slot], ((g / Stages) & 1) ^ 1);
      bulk::arrive_expect_bytes(&full[slot], Stage::kBytes);
      const std::uint32_t stage = base + slot * Stage::kBytes;
#pragma unroll
      for (int box = 0; box < Stage::kBoxes; ++box) {
        const int k0 = (i * Stage::kBoxes + box) * kBoxK;
        const auto copy_a = [&] {
          bulk::copy_box(stage + Stage::box_a(box), &map_a, k0, row0, z, &full[slot], stream_once);
        };
        const auto copy_b = [&] {
          bulk::copy_box(stage + Stage::box_b(box), &map_b, k0, 0, z, &full[slot], reread);
        };
        // In the order the boxes lie in the stage.
        if constexpr (Stage::kBFirst) {
          copy_b();
          copy_a();
        } else {
          copy_a();
          copy_b();
        }
      }
      if constexpr (Prefetch == SkinnyPrefetch::late) {
        if (g == Stages - 1) prefetch_next_chunks<Stage, Stages>(map_a, row0, z, i + 1, chunks);
      }
    }
  }
}

// SkinnyPrefetch::early: before the wait for the previous kernel, the producer thread asks the TMA
// unit to bring the A boxes of the block's first 2 × Stages chunks into L2. The ring holds Stages
// chunks, and the producer issues no copy before a stage is free: the prefetch puts a ring's worth
// more of reads in flight from the start, before the ring could. On an H100 the LLM benchmark's
// decode geomean went from 1.085x to 1.105x (the first Stages chunks) and 1.113x (2 x Stages) per
// iteration: timed with an event between iterations, where nothing overlaps (without dependent
// launch, GEMMTUNE_DEPENDENT_LAUNCH=0, it measured the same); prefetching the CUDA-core kernel's
// rows gained nothing (bench/results/2026-11-27-h100-prefetch.md). Back to back, the previous
// kernel's tail also overlaps these reads. B is not prefetched: it may be the previous kernel's
// output, and every block rereads it from L2 anyway.
template <typename Stage, int Stages>
__device__ __forceinline__ void prefetch_first_stages(const CUtensorMap& map_a, int tiles,
                                                      int row_tiles, int chunks) {
  const int tile = static_cast<int>(blockIdx.x);
  if (tile >= tiles) return;
  const int row0 = (tile % row_tiles) * Stage::kRowsA;
  const int z = tile / row_tiles;
  const int boxes = min(2 * Stages, chunks) * Stage::kBoxes;
  for (int box = 0; box < boxes; ++box) bulk::prefetch_box(&map_a, box * kBoxK, row0, z);
}

// Per-lane slots of every consumer warp's partial sums, which the epilogue warp adds.
template <int MTiles, int NTiles, int Warps>
constexpr int bulk_sums_bytes() {
  return Warps * MTiles * NTiles * 4 * 32 * 4;
}

// Threads of a block: the consumer warps, the producer warp, the epilogue warp.
template <int Warps>
inline constexpr int kBulkThreads = (Warps + 2) * 32;

// Dynamic shared memory: 1024 bytes to align the stages, the stages, the sums.
template <int MTiles, int NTiles, int Warps, int KBoxes, int Stages>
constexpr int bulk_kernel_shared_bytes() {
  return 1024 + Stages * BulkStage<MTiles, NTiles, KBoxes>::kBytes +
         bulk_sums_bytes<MTiles, NTiles, Warps>();
}

// Byte offset of 16-byte chunk `chunk` of row `row` in a 128-byte-swizzled box.
__device__ __forceinline__ std::uint32_t swizzled(int row, int chunk) {
  return static_cast<std::uint32_t>(row * kBoxBytesPerRow + ((chunk ^ (row & 7)) << 4));
}

// A persistent kernel. Block: Warps consumer warps, a producer warp, an epilogue warp. The output
// is cut into tiles of 16·MTiles rows of Aᵀ × all n ≤ 8·NTiles columns (× batch); each block takes
// tiles blockIdx.x, + gridDim.x, … and the producer streams their k chunks (KBoxes boxes of 64)
// back to back through a ring of Stages, so that the next tile's first chunks are in flight while
// the consumers finish the current one. Chunk g of the block (counted across its tiles) lands in
// stage g % Stages and is multiplied by consumer warp g % Warps, which accumulates its share of the
// tile's k in registers. At the tile's end each consumer stores its partial sums in a slot of its
// own and goes on to the next tile; the epilogue warp adds the slots in warp order (deterministic)
// and writes the tile. When a consumer warp did the adding and the writing, the stages it was to
// multiply next waited, and with them the producer: on an H200 that tile end cost about 3% of the
// kernel's time at n = 8, the stores alone 1–3%
// (bench/results/2026-11-21-h200-skinny-n8-limits.md).
template <typename T, int MTiles, int NTiles, int Warps, int KBoxes, int Stages,
          SkinnyPrefetch Prefetch = SkinnyPrefetch::early>
__global__ void __launch_bounds__(kBulkThreads<Warps>)
    skinny_bulk_kernel(SkinnyArgs args, const __grid_constant__ CUtensorMap map_a,
                       const __grid_constant__ CUtensorMap map_b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // TMA and mbarrier transactions need sm_90; the host side never launches it there
#else
  using Stage = BulkStage<MTiles, NTiles, KBoxes>;
  constexpr int KChunk = KBoxes * kBoxK;
  static_assert((Warps & (Warps - 1)) == 0, "Warps must be a power of two");
  // Each stage is then always multiplied by the same warp, in order: a warp that waits on a
  // stage another warp last used could see that warp's older phase of the barrier as complete.
  static_assert(Stages % Warps == 0, "Stages must be a multiple of Warps");
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  __shared__ std::uint64_t full[Stages], empty[Stages];
  // The tile end's hand-offs between the consumer warps and the epilogue warp are named barriers,
  // each with one side arriving (bar.arrive) and the other waiting (bar.sync):
  // - kSumsFull: the consumers arrive once their sums are in their slots, the epilogue waits;
  // - kSumsFree: the epilogue arrives once it has read the slots, the consumers wait before they
  //   write the next tile's sums.
  // They were mbarriers (one lane arriving after a __syncwarp, the other side polling): on an
  // H100 the named barriers made the kernel 1.7% faster
  // (bench/results/2026-11-26-h100-sanitizer.md). compute-sanitizer cannot vouch for this hand-off:
  // racecheck followed neither mbarrier waits nor an arrival after reads (it reports the next
  // tile's writes as racing with them), and synccheck rejects a bar.sync on both sides of kSumsFree
  // (the two roles wait at different instructions), so the racecheck test leaves this kernel out
  // (tests/gpu/sanitize.sh).
  constexpr int kSumsFull = 1, kSumsFree = 2;
  constexpr int kHandOffThreads = (Warps + 1) * 32;

  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  // The swizzle's pattern repeats every 1024 bytes, from a 1024-byte aligned address.
  const std::uint32_t base = (bulk::shared_address(dynamic_shared) + 1023u) & ~1023u;
  float* const sums = reinterpret_cast<float*>(
      dynamic_shared + (base - bulk::shared_address(dynamic_shared)) + Stages * Stage::kBytes);
  const int chunks = (args.k + KChunk - 1) / KChunk;
  const int row_tiles = (args.m + Stage::kRowsA - 1) / Stage::kRowsA;
  const int tiles = row_tiles * args.batch;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      bulk::barrier_init(&full[s], 1);
      bulk::barrier_init(&empty[s], 1);
    }
    bulk::fence_barrier_init();
  }
  __syncthreads();
  // Set up while the stream's previous kernel may still run; nothing global is read before, but
  // the producer may warm L2 with A's first stages.
  if constexpr (Prefetch == SkinnyPrefetch::early) {
    if (warp == Warps && lane == 0) {
      prefetch_first_stages<Stage, Stages>(map_a, tiles, row_tiles, chunks);
    }
  }
  wait_for_previous_kernel();
  allow_next_kernel();

  if (warp == Warps) {
    // Producer: one thread issues the stages' boxes.
    if (lane != 0) return;
    produce_stages<Stage, Stages, Prefetch>(map_a, map_b, tiles, row_tiles, chunks, base, full,
                                            empty);
    return;
  }

  constexpr int kPerLane = MTiles * NTiles * 4;
  if (warp == Warps + 1) {
    // Epilogue: for each tile of the block, the consumers' slots added in warp order, then C.
    for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += gridDim.x) {
      float acc[MTiles][NTiles][4];
      named_barrier_sync<kSumsFull, kHandOffThreads>();
      for_each_accumulator(acc, lane, [&](float& v, int at) {
        float sum = 0.f;
#pragma unroll
        for (int w = 0; w < Warps; ++w) sum += sums[w * kPerLane * 32 + at];
        v = sum;
      });
      named_barrier_arrive<kSumsFree, kHandOffThreads>();
      T* c = static_cast<T*>(args.c) + static_cast<std::int64_t>(tile / row_tiles) * args.stride_c;
      store_tile<T>(args, c, (tile % row_tiles) * Stage::kRowsA, lane, acc);
    }
    return;
  }

  // ldmatrix rows of this lane: for A, matrices (rows 0–7, k 0–7), (8–15, 0–7), (0–7, 8–15),
  // (8–15, 8–15) = a0..a3; for B, (columns 0–7, k 0–7), (0–7, 8–15), then the next 8 columns =
  // b0, b1 of two n-tiles. Past k, m and n the boxes hold zeros, so no step needs a mask.
  const int a_row = lane & 15;
  const int a_half = lane >> 4;
  const int b_row = (lane >> 4) * 8 + (lane & 7);
  const int b_half = (lane >> 3) & 1;
  int g = 0;      // chunks of the block before this tile's
  int local = 0;  // tiles of the block before this one
  for (int tile = static_cast<int>(blockIdx.x); tile < tiles;
       tile += gridDim.x, g += chunks, ++local) {
    float acc[MTiles][NTiles][4];
#pragma unroll
    for (int mt = 0; mt < MTiles; ++mt) {
#pragma unroll
      for (int nt = 0; nt < NTiles; ++nt) {
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[mt][nt][i] = 0.f;
      }
    }
    // This warp's chunks of the tile: g + i with (g + i) % Warps == warp.
    for (int i = (warp - g % Warps + Warps) % Warps; i < chunks; i += Warps) {
      const int slot = (g + i) % Stages;
      bulk::wait(&full[slot], ((g + i) / Stages) & 1);
      const std::uint32_t stage = base + slot * Stage::kBytes;
#pragma unroll
      for (int box = 0; box < KBoxes; ++box) {
        const std::uint32_t box_a = stage + Stage::box_a(box);
        const std::uint32_t box_b = stage + Stage::box_b(box);
#pragma unroll
        for (int s = 0; s < kBoxK / 16; ++s) {
          unsigned af[MTiles][4];
          unsigned bf[NTiles][2];
#pragma unroll
          for (int mt = 0; mt < MTiles; ++mt) {
            tc::ldmatrix_x4(af[mt], box_a + swizzled(mt * 16 + a_row, 2 * s + a_half));
          }
          if constexpr (NTiles == 1) {
            tc::ldmatrix_x2(bf[0], box_b + swizzled(b_row, 2 * s + b_half));
          } else {
#pragma unroll
            for (int np = 0; np < NTiles / 2; ++np) {
              unsigned r[4];
              tc::ldmatrix_x4(r, box_b + swizzled(np * 16 + b_row, 2 * s + b_half));
              bf[2 * np][0] = r[0];
              bf[2 * np][1] = r[1];
              bf[2 * np + 1][0] = r[2];
              bf[2 * np + 1][1] = r[3];
            }
          }
#pragma unroll
          for (int mt = 0; mt < MTiles; ++mt) {
#pragma unroll
            for (int nt = 0; nt < NTiles; ++nt) {
              tc::mma_16816<T>(acc[mt][nt], af[mt][0], af[mt][1], af[mt][2], af[mt][3], bf[nt][0],
                               bf[nt][1]);
            }
          }
        }
      }
      __syncwarp();
      if (lane == 0) bulk::arrive(&empty[slot]);
    }

    // Hand the partial sums to the epilogue warp, once it has read the previous tile's. A warp
    // cannot run two tiles ahead: the epilogue arrives on kSumsFree only with every warp's sums.
    if (local > 0) named_barrier_sync<kSumsFree, kHandOffThreads>();
    float* const own = sums + warp * kPerLane * 32;
    for_each_accumulator(acc, lane, [&](float& v, int at) { own[at] = v; });
    named_barrier_arrive<kSumsFull, kHandOffThreads>();  // releases the warp's slot to the epilogue
  }
#endif
}

}  // namespace gemmtune::cuda::skinny

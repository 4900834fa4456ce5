// The cluster k-split skinny kernel (see skinny_split_kernel.hpp). For .cu files only; needs
// sm_90a.
//
// A block: one consumer warpgroup, then one producer warp. Shared memory, from a 1024-byte
// aligned base: the block's share of B (its boxes of 64 k × BRows rows of B's columns, zero past
// n and k), the ring of Stages boxes of 16·MTiles rows of Aᵀ, the partial sums received from the
// cluster's other blocks. wgmma reads 64 rows of its first operand; where BRows < 64 the rows
// past BRows are whatever follows the box (the next box, or the ring), which only makes rows of
// Cᵀ past n that are never stored (as in skinny_wgmma_kernel.cuh).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "solutions/cuda/bulk_copy.cuh"
#include "solutions/cuda/cluster.cuh"
#include "solutions/cuda/dependent_launch.cuh"
#include "solutions/cuda/skinny_bulk_kernel.cuh"
#include "solutions/cuda/skinny_common.cuh"
#include "solutions/cuda/skinny_split_kernel.hpp"
#include "solutions/cuda/wgmma.cuh"

namespace gemmtune::cuda::skinny {

template <int MTiles, int Slices, int Stages, int BRows>
struct SplitLayout {
  static constexpr SkinnySplitConfig kConfig{MTiles, Slices, Stages};
  static constexpr int kRowsA = 16 * MTiles;  // wgmma's N
  static constexpr int kStageBytes = kRowsA * kBoxBytesPerRow;
  static constexpr int kBoxBytesB = BRows * kBoxBytesPerRow;
  static constexpr int kBoxesB = skinny_split_b_boxes(kConfig, BRows);
  // A thread's accumulators come in Slices parts of kPartFloats, one per block of the cluster:
  // part p is the 8·MTiles / Slices column groups of 8 rows of Aᵀ that block p adds and stores.
  static constexpr int kPartFloats = 8 * MTiles / Slices;
  static constexpr int kOffsetRing = kBoxesB * kBoxBytesB;
  static constexpr int kOffsetSums = kOffsetRing + Stages * kStageBytes;
  static_assert(8 * MTiles % Slices == 0 && kPartFloats % 4 == 0, "parts of whole 16-byte stores");
  static_assert(kOffsetSums + skinny_split_reduce_bytes(kConfig) + 1024 <= kSkinnySplitSharedBytes,
                "the layout overflows shared memory");
};

// Byte offset, in a block's received sums, of floats 4q..4q+3 of thread t's part from the
// sender in slot s (the senders in rank order, skipping the receiver): 16 bytes per thread in a
// row of 128, so that neither the stores nor the loads conflict on banks.
template <int PartFloats>
__device__ __forceinline__ std::uint32_t sums_offset(int slot, int q, int t) {
  return static_cast<std::uint32_t>(((slot * (PartFloats / 4) + q) * 128 + t) * 16);
}

template <typename T, int MTiles, int Slices, int Stages, int BRows>
__global__ void __launch_bounds__(128 + 32)
    skinny_split_kernel(SkinnyArgs args, const __grid_constant__ CUtensorMap map_a,
                        const __grid_constant__ CUtensorMap map_b) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ != 900 || !defined(__CUDA_ARCH_FEAT_SM90_ALL))
  __trap();  // wgmma needs sm_90a; the host side never launches it elsewhere
#else
  using L = SplitLayout<MTiles, Slices, Stages, BRows>;
  constexpr int N = L::kRowsA;
  constexpr int kParts = Slices;
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  __shared__ std::uint64_t full[Stages], empty[Stages];
  __shared__ std::uint64_t b_full;      // the block's share of B has arrived
  __shared__ std::uint64_t sums_full;   // the other blocks' parts of a tile have arrived
  __shared__ std::uint64_t sums_read;   // every other block has read this block's parts

  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int rank = Slices > 1 ? cluster::rank() : 0;
  const int cluster_index = static_cast<int>(blockIdx.x) / Slices;
  const int clusters = static_cast<int>(gridDim.x) / Slices;
  const std::uint32_t base = (bulk::shared_address(dynamic_shared) + 1023u) & ~1023u;
  const std::uint32_t ring = base + L::kOffsetRing;
  const std::uint32_t sums = base + L::kOffsetSums;
  const int k_boxes = (args.k + kBoxK - 1) / kBoxK;
  const int box0 = rank * k_boxes / Slices;  // the block's share of k: boxes box0 … box0 + boxes
  const int boxes = (rank + 1) * k_boxes / Slices - box0;
  const int tiles = (args.m + N - 1) / N;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      bulk::barrier_init(&full[s], 1);
      bulk::barrier_init(&empty[s], 4);  // one arrival per consumer warp
    }
    bulk::barrier_init(&b_full, 1);
    bulk::barrier_init(&sums_full, 1);           // the receiver's own arrival, with the bytes
    bulk::barrier_init(&sums_read, Slices - 1);  // one arrival per other block
    bulk::fence_barrier_init();
  }
  // The other blocks' barriers are initialized before any block arrives on them.
  if constexpr (Slices > 1) {
    cluster::sync();
  } else {
    __syncthreads();
  }
  // Set up while the stream's previous kernel may still run; nothing global is touched before.
  wait_for_previous_kernel();
  allow_next_kernel();

  if (warp == 4) {
    // Producer: one thread copies the block's share of B once, then streams the share of A of
    // each of the cluster's tiles through the ring.
    if (lane == 0) {
      const std::uint64_t stream_once = bulk::evict_first_policy();
      const std::uint64_t reread = bulk::evict_last_policy();
      if (boxes > 0) {
        bulk::arrive_expect_bytes(&b_full, boxes * L::kBoxBytesB);
        for (int j = 0; j < boxes; ++j) {
          bulk::copy_box(base + j * L::kBoxBytesB, &map_b, (box0 + j) * kBoxK, 0, 0, &b_full,
                         reread);
        }
      } else {
        bulk::arrive(&b_full);
      }
      int g = 0;
      for (int tile = cluster_index; tile < tiles; tile += clusters) {
        for (int j = 0; j < boxes; ++j, ++g) {
          const int slot = g % Stages;
          bulk::wait(&empty[slot], ((g / Stages) & 1) ^ 1);
          bulk::arrive_expect_bytes(&full[slot], L::kStageBytes);
          bulk::copy_box(ring + slot * L::kStageBytes, &map_a, (box0 + j) * kBoxK, tile * N, 0,
                         &full[slot], stream_once);
        }
      }
    }
  } else {
    const int t = static_cast<int>(threadIdx.x);
    bulk::wait(&b_full, 0);
    int g = 0;
    int local = 0;  // tiles of the cluster before this one
    for (int tile = cluster_index; tile < tiles; tile += clusters, ++local) {
      float acc[N / 2];
#pragma unroll
      for (int i = 0; i < N / 2; ++i) acc[i] = 0.f;
      int in_flight = -1;  // the stage whose multiplies may still be running
      for (int j = 0; j < boxes; ++j, ++g) {
        const int slot = g % Stages;
        bulk::wait(&full[slot], (g / Stages) & 1);
        const std::uint32_t box_a = ring + slot * L::kStageBytes;
        const std::uint32_t box_b = base + j * L::kBoxBytesB;
        wgmma::fence();
#pragma unroll
        for (int s = 0; s < kBoxK / 16; ++s) {
          wgmma::mma_64xN<T, N>(acc, wgmma::descriptor(box_b + 32 * s),
                                wgmma::descriptor(box_a + 32 * s));
        }
        wgmma::commit();
        // Keep this stage's multiplies running while the next stage is awaited; the one before
        // is done with its stage, which goes back to the producer.
        wgmma::wait<1>();
        if (in_flight >= 0 && lane == 0) bulk::arrive(&empty[in_flight]);
        in_flight = slot;
      }
      wgmma::wait<0>();
      if (in_flight >= 0 && lane == 0) bulk::arrive(&empty[in_flight]);

      if constexpr (Slices > 1) {
        // Send part p of the sums to block p, once every block has read this block's previous
        // parts; then wait for the others' parts of this block's own part.
        if (local > 0) cluster::wait_acquire(&sums_read, (local - 1) & 1);
#pragma unroll
        for (int p = 0; p < kParts; ++p) {
          if (p == rank) continue;
          const int slot = rank < p ? rank : rank - 1;
          const std::uint32_t to = cluster::address_in(sums, p);
          const std::uint32_t to_barrier = cluster::address_in(bulk::shared_address(&sums_full), p);
#pragma unroll
          for (int q = 0; q < L::kPartFloats / 4; ++q) {
            const float* v = acc + p * L::kPartFloats + 4 * q;
            cluster::store_counted(to + sums_offset<L::kPartFloats>(slot, q, t), v[0], v[1], v[2],
                                   v[3], to_barrier);
          }
        }
        if (t == 0) bulk::arrive_expect_bytes(&sums_full, (Slices - 1) * L::kPartFloats * 128 * 4);
        cluster::wait_acquire(&sums_full, local & 1);
        // The block's own part: the blocks' sums added in rank order, whichever arrived first.
#pragma unroll
        for (int p = 0; p < kParts; ++p) {
          if (p != rank) continue;
#pragma unroll
          for (int q = 0; q < L::kPartFloats / 4; ++q) {
            float* v = acc + p * L::kPartFloats + 4 * q;
            float total[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
            for (int from = 0; from < kParts; ++from) {
              if (from == p) {
#pragma unroll
                for (int e = 0; e < 4; ++e) total[e] += v[e];
              } else {
                const int slot = from < p ? from : from - 1;
                float x, y, z, w;
                asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                             : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                             : "r"(sums + sums_offset<L::kPartFloats>(slot, q, t)));
                total[0] += x;
                total[1] += y;
                total[2] += z;
                total[3] += w;
              }
            }
#pragma unroll
            for (int e = 0; e < 4; ++e) v[e] = total[e];
          }
        }
        // The parts are read: the other blocks may send the next tile's.
        asm volatile("bar.sync 1, 128;\n" ::: "memory");
        if (t == 0) {
          for (int p = 0; p < Slices; ++p) {
            if (p != rank) {
              cluster::arrive_remote(cluster::address_in(bulk::shared_address(&sums_read), p));
            }
          }
        }
      }

      // acc[4j + i] is Cᵀ's row (= C's column) 16·warp + lane / 4 + 8·(i / 2) and its column
      // (= C's row) 8j + 2·(lane % 4) + i % 2; this block stores the column groups j of its part.
      const int row0 = tile * N;
      T* c = static_cast<T*>(args.c);
#pragma unroll
      for (int p = 0; p < kParts; ++p) {
        if (p != rank) continue;
#pragma unroll
        for (int jj = 0; jj < L::kPartFloats / 4; ++jj) {
          const int j = p * (L::kPartFloats / 4) + jj;
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int col = 16 * warp + (lane >> 2) + 8 * (i >> 1);
            const int row = row0 + 8 * j + 2 * (lane & 3) + (i & 1);
            if (row >= args.m || col >= args.n) continue;
            T* out = c + row + static_cast<std::int64_t>(col) * args.ldc;
            float value = args.alpha * acc[4 * j + i];
            // beta = 0 must not read C: it may hold NaN (BLAS semantics).
            if (args.beta != 0.f) value = fmaf(args.beta, to_float(*out), value);
            *out = from_float<T>(value);
          }
        }
      }
    }
  }
  // No block leaves while another may still write to its shared memory or arrive on its barriers.
  if constexpr (Slices > 1) cluster::sync();
#endif
}

}  // namespace gemmtune::cuda::skinny

// The cluster k-split skinny kernel (see skinny_split_kernel.hpp). For .cu files only; needs
// sm_90a.
//
// Shared memory of a block, from a 1024-byte aligned base: the block's share of B (its boxes of
// 64 k × BRows rows of B's columns, zero past n and k), the ring of Stages stages of KBoxes
// boxes of 64 k × 16·MTiles rows of Aᵀ, two buffers of the partial sums received from the
// cluster's blocks. wgmma reads 64 rows of its first operand; where BRows < 64 the rows
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

template <int MTiles, int Slices, int KBoxes, int Stages, int BRows>
struct SplitLayout {
  static constexpr SkinnySplitConfig kConfig{MTiles, Slices, KBoxes, Stages};
  static constexpr int kRowsA = 16 * MTiles;  // wgmma's N
  static constexpr int kBoxBytesA = kRowsA * kBoxBytesPerRow;
  static constexpr int kStageBytes = KBoxes * kBoxBytesA;
  static constexpr int kBoxBytesB = BRows * kBoxBytesPerRow;
  static constexpr int kBoxesB = skinny_split_b_boxes(kConfig, BRows);
  // A thread's accumulators come in Slices parts of kPartFloats, one per block of the cluster:
  // part p is the 8·MTiles / Slices column groups of 8 rows of Aᵀ that block p adds and stores.
  static constexpr int kPartFloats = 8 * MTiles / Slices;
  // The bytes of one tile's parts a block receives: one part from every block, itself included.
  static constexpr int kPartsBytes = Slices * kPartFloats * 128 * 4;
  static constexpr int kOffsetRing = kBoxesB * kBoxBytesB;
  static constexpr int kOffsetSums = kOffsetRing + Stages * kStageBytes;
  static_assert(8 * MTiles % Slices == 0 && kPartFloats % 4 == 0, "parts of whole 16-byte stores");
  static_assert(2 * kPartsBytes == skinny_split_sums_bytes(kConfig), "the header's sizes differ");
  static_assert(kOffsetSums + 2 * kPartsBytes + 1024 <= kSkinnySplitSharedBytes,
                "the layout overflows shared memory");
};

// Byte offset, in one of a block's two buffers of received parts, of floats 4q..4q+3 of thread
// t's part from block `from`: 16 bytes per thread in a row of 128, so that neither the stores
// nor the loads conflict on banks.
template <int PartFloats>
__device__ __forceinline__ std::uint32_t parts_offset(int from, int q, int t) {
  return static_cast<std::uint32_t>(((from * (PartFloats / 4) + q) * 128 + t) * 16);
}

// Threads of a block: the consumer warpgroup, the epilogue warpgroup, the producer warp.
inline constexpr int kSplitThreads = 128 + 128 + 32;

// The blocks of a cluster take its row tiles in turn; in each block the producer streams the
// block's share of k of each tile through the ring (loading the block's boxes of B beside the
// first tile's boxes of A, into shared memory they then stay in), the consumer warpgroup
// multiplies and sends part p of its sums to block p (st.async, counted on block p's barrier),
// and goes straight on to the next tile; the epilogue warpgroup waits for the tile's parts from
// every block, adds them in rank order and stores its rows of C. The parts go to one of two
// buffers by the tile's parity, which a sender reuses once every block's epilogue has read it.
// A first version had the consumers receive and add too: each tile then waited for the
// cluster's slowest block, and 8 blocks per cluster ran 1.7× slower than 2 on the same shape.
template <typename T, int MTiles, int Slices, int KBoxes, int Stages, int BRows>
__global__ void __launch_bounds__(kSplitThreads)
    skinny_split_kernel(SkinnyArgs args, const __grid_constant__ CUtensorMap map_a,
                        const __grid_constant__ CUtensorMap map_b) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ != 900 || !defined(__CUDA_ARCH_FEAT_SM90_ALL))
  __trap();  // wgmma needs sm_90a; the host side never launches it elsewhere
#else
  using L = SplitLayout<MTiles, Slices, KBoxes, Stages, BRows>;
  constexpr int N = L::kRowsA;
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  __shared__ std::uint64_t full[Stages], empty[Stages];
  __shared__ std::uint64_t parts_full[2];  // a tile's parts from every block have arrived
  __shared__ std::uint64_t parts_read[2];  // every block has read this block's parts of a tile

  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int t = static_cast<int>(threadIdx.x) & 127;
  const int rank = Slices > 1 ? cluster::rank() : 0;
  const int cluster_index = static_cast<int>(blockIdx.x) / Slices;
  const int clusters = static_cast<int>(gridDim.x) / Slices;
  const std::uint32_t base = (bulk::shared_address(dynamic_shared) + 1023u) & ~1023u;
  const std::uint32_t ring = base + L::kOffsetRing;
  const std::uint32_t parts = base + L::kOffsetSums;
  // The block's share of k: chunks (of KBoxes boxes of 64 k) chunk0 … chunk0 + chunks. Boxes
  // past k arrive as zeros.
  const int all_chunks = (args.k + KBoxes * kBoxK - 1) / (KBoxes * kBoxK);
  const int chunk0 = rank * all_chunks / Slices;
  const int chunks = (rank + 1) * all_chunks / Slices - chunk0;
  const int tiles = (args.m + N - 1) / N;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      bulk::barrier_init(&full[s], 1);
      bulk::barrier_init(&empty[s], 4);  // one arrival per consumer warp
    }
    for (int b = 0; b < 2; ++b) {
      bulk::barrier_init(&parts_full[b], 1);       // the epilogue's own arrival, with the bytes
      bulk::barrier_init(&parts_read[b], Slices);  // one arrival per block's epilogue
    }
    bulk::fence_barrier_init();
  }
  // Every block's barriers are initialized before any block arrives on them: each thread waits
  // for the cluster before its first access to another block, so that the first tile's loads
  // are under way meanwhile.
  __syncthreads();
  cluster::arrive();
  bool joined = false;
  const auto join = [&joined] {
    if (!joined) cluster::wait();
    joined = true;
  };
  // Set up while the stream's previous kernel may still run; nothing global is touched before.
  wait_for_previous_kernel();
  allow_next_kernel();

  if (warp == 8) {
    // Producer: one thread streams the block's share of A of each tile through the ring, and
    // with the first tile's boxes the matching boxes of B, which stay.
    if (lane == 0) {
      const std::uint64_t stream_once = bulk::evict_first_policy();
      const std::uint64_t reread = bulk::evict_last_policy();
      int g = 0;
      for (int tile = cluster_index; tile < tiles; tile += clusters) {
        const bool first = tile == cluster_index;
        for (int j = 0; j < chunks; ++j, ++g) {
          const int slot = g % Stages;
          bulk::wait(&empty[slot], ((g / Stages) & 1) ^ 1);
          bulk::arrive_expect_bytes(&full[slot],
                                    L::kStageBytes + (first ? KBoxes * L::kBoxBytesB : 0));
#pragma unroll
          for (int box = 0; box < KBoxes; ++box) {
            const int k0 = ((chunk0 + j) * KBoxes + box) * kBoxK;
            if (first) {
              bulk::copy_box(base + (j * KBoxes + box) * L::kBoxBytesB, &map_b, k0, 0, 0,
                             &full[slot], reread);
            }
            bulk::copy_box(ring + slot * L::kStageBytes + box * L::kBoxBytesA, &map_a, k0,
                           tile * N, 0, &full[slot], stream_once);
          }
        }
      }
    }
  } else if (warp < 4) {
    // Consumers.
    int g = 0;
    int local = 0;  // tiles of the cluster before this one
    for (int tile = cluster_index; tile < tiles; tile += clusters, ++local) {
      float acc[N / 2];
#pragma unroll
      for (int i = 0; i < N / 2; ++i) acc[i] = 0.f;
      int in_flight = -1;  // the stage whose multiplies may still be running
      for (int j = 0; j < chunks; ++j, ++g) {
        const int slot = g % Stages;
        bulk::wait(&full[slot], (g / Stages) & 1);
        wgmma::fence();
#pragma unroll
        for (int box = 0; box < KBoxes; ++box) {
          const std::uint32_t box_a = ring + slot * L::kStageBytes + box * L::kBoxBytesA;
          const std::uint32_t box_b = base + (j * KBoxes + box) * L::kBoxBytesB;
#pragma unroll
          for (int s = 0; s < kBoxK / 16; ++s) {
            wgmma::mma_64xN<T, N>(acc, wgmma::descriptor(box_b + 32 * s),
                                  wgmma::descriptor(box_a + 32 * s));
          }
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

      // Part p of the sums to block p (this block included), into the buffer of the tile's
      // parity once every block has read what it held two tiles ago.
      const int buffer = local & 1;
      join();
      if (local >= 2) cluster::wait_acquire(&parts_read[buffer], ((local >> 1) - 1) & 1);
      const std::uint32_t into = parts + buffer * L::kPartsBytes;
#pragma unroll
      for (int p = 0; p < Slices; ++p) {
        const std::uint32_t to = cluster::address_in(into, p);
        const std::uint32_t to_barrier =
            cluster::address_in(bulk::shared_address(&parts_full[buffer]), p);
#pragma unroll
        for (int q = 0; q < L::kPartFloats / 4; ++q) {
          const float* v = acc + p * L::kPartFloats + 4 * q;
          cluster::store_counted(to + parts_offset<L::kPartFloats>(rank, q, t), v[0], v[1], v[2],
                                 v[3], to_barrier);
        }
      }
    }
  } else {
    // Epilogue: thread t adds what consumer thread t of every block sent for this block's part.
    int local = 0;
    for (int tile = cluster_index; tile < tiles; tile += clusters, ++local) {
      const int buffer = local & 1;
      if (t == 0) bulk::arrive_expect_bytes(&parts_full[buffer], L::kPartsBytes);
      cluster::wait_acquire(&parts_full[buffer], (local >> 1) & 1);
      const std::uint32_t from_parts = parts + buffer * L::kPartsBytes;
      float sum[L::kPartFloats];
#pragma unroll
      for (int q = 0; q < L::kPartFloats / 4; ++q) {
        float total[4] = {0.f, 0.f, 0.f, 0.f};
        for (int from = 0; from < Slices; ++from) {  // in rank order, whichever arrived first
          float x, y, z, w;
          asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                       : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                       : "r"(from_parts + parts_offset<L::kPartFloats>(from, q, t)));
          total[0] += x;
          total[1] += y;
          total[2] += z;
          total[3] += w;
        }
#pragma unroll
        for (int e = 0; e < 4; ++e) sum[4 * q + e] = total[e];
      }
      // The parts are read: every block may send its parts of the tile after next. Thread p
      // tells block p: a release at cluster scope takes long enough that one thread telling
      // every block in turn held the consumers back (16 blocks per cluster ran 1.9× slower
      // than 4 on the same shape).
      asm volatile("bar.sync 1, 128;\n" ::: "memory");
      join();
      if (t < Slices) {
        cluster::arrive_remote(cluster::address_in(bulk::shared_address(&parts_read[buffer]), t));
      }
      // sum[4jj + i] is Cᵀ's row (= C's column) 16·w + lane / 4 + 8·(i / 2), w the thread's warp
      // in its warpgroup, and its column (= C's row) 8j + 2·(lane % 4) + i % 2, j the block's
      // rank·kPartFloats / 4 + jj: wgmma's fragment layout (wgmma.cuh).
      const int w = t >> 5;
      T* c = static_cast<T*>(args.c);
#pragma unroll
      for (int jj = 0; jj < L::kPartFloats / 4; ++jj) {
        const int j = rank * (L::kPartFloats / 4) + jj;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int col = 16 * w + (lane >> 2) + 8 * (i >> 1);
          const int row = tile * N + 8 * j + 2 * (lane & 3) + (i & 1);
          if (row >= args.m || col >= args.n) continue;
          T* out = c + row + static_cast<std::int64_t>(col) * args.ldc;
          float value = args.alpha * sum[4 * jj + i];
          // beta = 0 must not read C: it may hold NaN (BLAS semantics).
          if (args.beta != 0.f) value = fmaf(args.beta, to_float(*out), value);
          *out = from_float<T>(value);
        }
      }
    }
  }
  // No block leaves while another may still write to its shared memory or arrive on its barriers.
  join();
  cluster::sync();
#endif
}

}  // namespace gemmtune::cuda::skinny

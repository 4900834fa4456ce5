// gemmtune's cluster k-split kernel for skinny "tn" GEMMs (LLM decoding with up to 64 tokens),
// bf16 and fp16 with fp32 accumulation, Hopper (compute capability 9.0) only:
//
//   C[m×n] = alpha · Aᵀ·B + beta · C      A stored k×m (lda ≥ k), B stored k×n, n ≤ 64, batch 1
//
// Why: at n = 32 and 64 the warpgroup kernel (skinny_wgmma_kernel.hpp) streams A 14–22% slower
// than a plain read of A, because every tile of A rereads all of B from L2 into its ring of
// stages (at n = 64 as many bytes as the tile's A), which takes half the ring and as much L2
// bandwidth as A (bench/results/2026-11-21-h200-skinny-designs.md, -n32-n64-probes.md). Here the
// blocks of a thread-block cluster of `slices` blocks split k: each keeps its share of B in
// shared memory for the whole kernel, read from L2 once, and streams only A through its ring.
// A cluster takes row tiles of 16·m_tiles rows of Aᵀ in turn; each block multiplies its k share
// of the tile with wgmma (Cᵀ = Bᵀ·A, as the warpgroup kernel), then the blocks add their partial
// sums through distributed shared memory, each block the same fraction of the tile's rows and
// the shares always in rank order (deterministic), and write C. The code is sm_90a.
//
// Kept free of gemmtune's other headers so that the .cu file compiles with nvcc alone.
#pragma once

#include "solutions/cuda/skinny_gemm_kernel.hpp"

namespace gemmtune::cuda {

inline constexpr int kSkinnySplitMaxN = 64;

struct SkinnySplitConfig {
  int m_tiles = 4;  // 16-row tiles of Aᵀ per cluster tile (wgmma's N = 16·m_tiles)
  int slices = 4;   // blocks per cluster, each with its share of k
  int k_boxes = 2;  // boxes of 64 k of the tile per stage
  int stages = 4;   // stages in a block's ring
};

constexpr bool operator==(SkinnySplitConfig x, SkinnySplitConfig y) {
  return x.m_tiles == y.m_tiles && x.slices == y.slices && x.k_boxes == y.k_boxes &&
         x.stages == y.stages;
}

// The configurations the kernel is compiled for. A block's share of B must fit beside its ring,
// so a configuration takes k up to slices × (its B boxes) × 64. Measured on an H100 at n = 32
// and 64 (bench/results/2026-11-25-h100-skinny-split.md): clusters of 8 came out fastest on
// most shapes (an H100 runs 15 of them with this shared memory: 120 of its 132 SMs), 2 and 4
// where k is too short to give 8 blocks a useful share; clusters of 16 (7 resident, 112 SMs)
// were slower everywhere.
inline constexpr SkinnySplitConfig kSkinnySplitConfigs[] = {
    {4, 2, 2, 4}, {4, 4, 2, 4}, {4, 8, 2, 4}, {4, 8, 2, 6}, {4, 8, 1, 8}};

// Dynamic shared memory every configuration takes: Hopper's 227 KiB less 1 KiB for the kernel's
// static barriers.
inline constexpr int kSkinnySplitSharedBytes = 232448 - 1024;

// Rows of B's box at n columns: n rounded up to 16, 32 or 64.
constexpr int skinny_split_b_rows(int n) {
  return n <= 16 ? 16 : n <= 32 ? 32 : 64;
}

// Bytes of the two buffers of partial sums a block receives: per tile, each of the slices
// blocks (itself included) sends 1/slices of its 128 consumer threads' 8·m_tiles accumulators.
constexpr int skinny_split_sums_bytes(SkinnySplitConfig config) {
  return 2 * 8 * config.m_tiles * 128 * 4;
}

// Boxes of 64 k × b_rows rows of B that fit in a block's shared memory beside 1 KiB of
// alignment, the ring and the partial sums.
constexpr int skinny_split_b_boxes(SkinnySplitConfig config, int b_rows) {
  const int ring = config.stages * config.k_boxes * 16 * config.m_tiles * 128;
  return (kSkinnySplitSharedBytes - 1024 - ring - skinny_split_sums_bytes(config)) /
         (b_rows * 128);
}

// Whether a block's share of k (⌈⌈k / (64·k_boxes)⌉ / slices⌉ stages of k_boxes boxes) of B
// fits at n columns.
constexpr bool skinny_split_fits(SkinnySplitConfig config, long long n, long long k) {
  const long long chunks = (k + 64LL * config.k_boxes - 1) / (64LL * config.k_boxes);
  const long long per_block = (chunks + config.slices - 1) / config.slices * config.k_boxes;
  return n >= 1 && n <= kSkinnySplitMaxN &&
         per_block <= skinny_split_b_boxes(config, skinny_split_b_rows(static_cast<int>(n)));
}

// Enqueues the GEMM (type BFloat16 or Float16, batch 1) on a device of compute capability 9.0.
// Where a pointer or leading dimension does not meet the TMA unit's 16-byte alignment, it runs
// the register-load tensor-core kernel instead (skinny_tc_kernel.hpp). cudaErrorInvalidValue for
// a configuration that is not compiled in or a problem that does not fit;
// cudaErrorClusterOutOfResources where the device cannot run one such cluster.
cudaError_t launch_skinny_split_tn(SkinnyType type, SkinnySplitConfig config,
                                   const SkinnyArgs& args, cudaStream_t stream);

}  // namespace gemmtune::cuda

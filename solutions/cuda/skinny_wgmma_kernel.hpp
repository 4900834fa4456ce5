// gemmtune's warpgroup tensor-core kernel for skinny "tn" GEMMs (LLM decoding with up to 64
// tokens), bf16 and fp16 with fp32 accumulation, Hopper (compute capability 9.0) only:
//
//   C[m×n] = alpha · Aᵀ·B + beta · C      A stored k×m (lda ≥ k), B stored k×n, n ≤ 64
//
// The bulk-copy kernel's pipeline (skinny_bulk_kernel.hpp: one producer thread has the TMA unit
// copy boxes of A and B into a ring of shared-memory stages), with the multiplies done by
// wgmma.mma_async straight from the stages instead of ldmatrix + mma.sync. wgmma's tile is 64 rows
// of its first operand, so the kernel computes Cᵀ = Bᵀ·A: B's box (n rounded up to 16, 32 or 64
// rows) is that operand and a tile of 16·m_tiles rows of Aᵀ (up to 224) the second. Taller tiles
// reread B less often per row of A and cost few registers (m_tiles·8 accumulators per thread).
// Measured on an H200 (bench/results/2026-11-21-h200-skinny-wgmma.md): at n = 32 up to 1.15×
// faster than Default (4096 × 4096), at n = 64 up to 1.09× (4096 × 14336), at n = 8 within a few
// percent of the bulk-copy kernel; shapes whose tall tiles divide unevenly among the SMs stay
// behind Default. The code is sm_90a (arch-specific), which runs on compute capability 9.0 only.
//
// Kept free of gemmtune's other headers so that the .cu file compiles with nvcc alone.
#pragma once

#include "solutions/cuda/skinny_bulk_kernel.hpp"
#include "solutions/cuda/skinny_gemm_kernel.hpp"

namespace gemmtune::cuda {

inline constexpr int kSkinnyWgmmaMaxN = 64;

struct SkinnyWgmmaConfig {
  int m_tiles = 2;  // 16-row tiles of Aᵀ per block tile (wgmma's N = 16·m_tiles)
  int groups = 2;   // consumer warpgroups, splitting k
  int k_boxes = 2;  // boxes of 64 k per stage
  int stages = 8;   // stages in the shared-memory ring (a multiple of groups)
  SkinnyPrefetch prefetch = SkinnyPrefetch::early;  // see skinny_bulk_kernel.hpp
};

constexpr bool operator==(SkinnyWgmmaConfig x, SkinnyWgmmaConfig y) {
  return x.m_tiles == y.m_tiles && x.groups == y.groups && x.k_boxes == y.k_boxes &&
         x.stages == y.stages && x.prefetch == y.prefetch;
}

// The configurations the kernel is compiled for: each was the fastest of those tried on an
// H200 at n = 8, 32 or 64 on some shape (bench/results/2026-11-21-h200-skinny-wgmma.md). The
// second, third and sixth fit in shared memory at n ≤ 32 only (B's box of 32 rows). The eighth
// to tenth have tiles of 80, 112 and 224 rows: m / 128 for the Llama shapes with m = 10240, 14336
// and 28672, so that all but 4 of an H100's or H200's 132 SMs stream exactly one tile each; the
// last does the same with 48 rows for m = 6144 (Llama 3 8B's qkv), where 64-row tiles leave 36
// SMs without one. On an H100 at n = 32 it was the fastest gemmtune kernel (21.9 µs in the
// tuner's measurement against 22.9 for the next, Default 23.7; in the LLM benchmark 1.056× over
// Default where the bulk-copy kernel had 1.042×); at n = 64 Default stays ahead
// (bench/results/2026-11-25-h100-m6144.md).
inline constexpr SkinnyWgmmaConfig kSkinnyWgmmaConfigs[] = {
    {2, 2, 2, 8}, {2, 2, 2, 12}, {2, 2, 4, 6}, {4, 1, 2, 6},  {4, 2, 2, 6}, {4, 2, 2, 8},
    {8, 1, 1, 8}, {5, 2, 1, 10}, {7, 2, 1, 8}, {14, 1, 1, 6}, {3, 1, 2, 6}};

// Rows of B's box at n columns: n rounded up to 16, 32 or 64.
constexpr int skinny_wgmma_b_rows(int n) {
  return n <= 16 ? 16 : n <= 32 ? 32 : 64;
}

// Shared memory of the ring with B boxes of b_rows rows: 1024 bytes of alignment, the stages
// (k_boxes × (b_rows rows of B + 16·m_tiles rows of A) × 128 bytes each), what wgmma reads past the
// last stage's B box (it reads 64 rows), the warpgroups' partial sums.
constexpr int skinny_wgmma_ring_bytes(SkinnyWgmmaConfig config, int b_rows) {
  const int a_bytes = config.k_boxes * 16 * config.m_tiles * 128;
  const int stage = config.k_boxes * b_rows * 128 + a_bytes;
  const int overread = (64 - b_rows) * 128 > a_bytes ? (64 - b_rows) * 128 - a_bytes : 0;
  return 1024 + config.stages * stage + overread + config.groups / 2 * 8 * config.m_tiles * 128 * 4;
}

// Shared memory where the tile end stages a tile of C before storing it in 16-byte pieces: up to
// 64 columns of 16·m_tiles 16-bit elements, each column padded by 8 elements.
constexpr int skinny_wgmma_staging_bytes(SkinnyWgmmaConfig config) {
  return 64 * (16 * config.m_tiles + 8) * 2;
}

// Whether the configuration stages its tiles of C (wherever the staging area fits beside the ring
// with B boxes of b_rows rows); the others store each accumulator on its own, 2 bytes at a time.
// On an H200, on 14336 × 4096 at n = 64, the stores took 4.8 µs of the kernel's 35.0 one
// accumulator at a time and 2.1 staged (bench/results/2026-11-26-h200-wgmma-stores.md).
constexpr bool skinny_wgmma_stages_tiles(SkinnyWgmmaConfig config, int b_rows) {
  return skinny_wgmma_ring_bytes(config, b_rows) + skinny_wgmma_staging_bytes(config) <=
         kSkinnyBulkMaxSharedBytes;
}

// Dynamic shared memory the configuration takes with B boxes of b_rows rows.
constexpr int skinny_wgmma_shared_bytes(SkinnyWgmmaConfig config, int b_rows) {
  return skinny_wgmma_ring_bytes(config, b_rows) +
         (skinny_wgmma_stages_tiles(config, b_rows) ? skinny_wgmma_staging_bytes(config) : 0);
}

// Enqueues the GEMM (type BFloat16 or Float16) on a device of compute capability 9.0. Where a
// pointer, leading dimension or stride does not meet the TMA unit's 16-byte alignment, it runs
// the register-load tensor-core kernel instead (skinny_tc_kernel.hpp). cudaErrorInvalidValue for
// an n or configuration that is not compiled in.
cudaError_t launch_skinny_wgmma_tn(SkinnyType type, SkinnyWgmmaConfig config,
                                   const SkinnyArgs& args, cudaStream_t stream);

}  // namespace gemmtune::cuda

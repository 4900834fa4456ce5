// gemmtune's bulk-copy tensor-core kernel for skinny "tn" GEMMs (LLM decoding with 1 to 64
// tokens), bf16 and fp16 with fp32 accumulation, Hopper (sm_90) and later:
//
//   C[m×n] = alpha · Aᵀ·B + beta · C      A stored k×m (lda ≥ k), B stored k×n, n ≤ 64
//
// Why a second tensor-core kernel: skinny_tc_kernel loads A's fragments straight into registers
// (8 rows × 64 bytes per warp instruction), and on an H200 those loads alone stream A 15–29%
// slower than row-contiguous reads (bench/results/2026-11-21-h200-skinny-designs.md). Here one
// producer thread per block has the TMA unit copy 64-k × 16·m_tiles-row boxes of A (and the
// matching box of B) into a ring of shared-memory stages, and consumer warps multiply from there
// (ldmatrix + mma.sync m16n8k16), each stage signalled by mbarriers instead of block-wide
// barriers; an epilogue warp adds the consumers' partial sums and writes each tile. The kernel
// is persistent: a block streams the k chunks of all its tiles back to back. Copying one row per
// bulk copy instead (cp.async.bulk without a tensor map) measured
// slower than Default, up to 41×: the TMA unit took 25–40 ns per copy per SM, whatever its size
// (bench/results/2026-11-21-h200-skinny-bulk.md). Measured in the LLM benchmark on an H200 it
// wins 13–16 of the 64 decode problems (n = 8 and 32), by up to 1.28× over Default; at n = 64
// every block rereads all of B and cuBLASLt stays faster. Persistent blocks can leave the last
// tiles unevenly spread (up to 10% slower on 10240 × 8192).
//
// Kept free of gemmtune's other headers so that the .cu file compiles with nvcc alone.
#pragma once

#include "solutions/cuda/skinny_gemm_kernel.hpp"

namespace gemmtune::cuda {

inline constexpr int kSkinnyBulkMaxN = 64;

// When the producer of a TMA kernel (this one and the warpgroup kernel) has the TMA unit bring
// A's boxes into L2 ahead of the copies (skinny_bulk_kernel.cuh): `early`, the first 2 × Stages
// chunks before the wait for the previous kernel; `late`, the next Stages chunks once the ring's
// first copies are issued. Neither is faster everywhere: on an H100, late alone was 12% faster
// than early on 3072 × 8 × 2048 and 3–5% on other small decode GEMMs, and up to 5% slower on large
// ones (bench/results/2026-11-27-h100-prefetch-policy.md), so each configuration comes in both.
enum class SkinnyPrefetch { early, late };

struct SkinnyBulkConfig {
  int m_tiles = 1;  // 16-row tiles of Aᵀ per block tile
  int warps = 4;    // consumer warps, splitting k
  int k_boxes = 4;  // boxes of 64 k per stage
  int stages = 8;   // stages in the shared-memory ring (a multiple of warps)
  SkinnyPrefetch prefetch = SkinnyPrefetch::early;
};

constexpr bool operator==(SkinnyBulkConfig x, SkinnyBulkConfig y) {
  return x.m_tiles == y.m_tiles && x.warps == y.warps && x.k_boxes == y.k_boxes &&
         x.stages == y.stages && x.prefetch == y.prefetch;
}

// The configurations the kernel is compiled for. On an H200 (bench/results/
// 2026-11-21-h200-skinny-bulk.md), of the configurations tried, the first four were the best at
// n = 8 on some shape (fewer consumer warps or a shorter ring leave room for more blocks per SM),
// the next two at n = 32, the seventh and eighth at n = 64, where only rings of one box per
// stage fit (and where cuBLASLt stays faster: every block rereads all of B). Since every consumer
// warp has a slot of partial sums for the epilogue warp (see the kernel), the eighth one fits
// only up to n = 32. The ninth, stages of 8 boxes (1024 k) for two consumer warps, fits up to
// n = 16: on 2048 × 8192 at n = 8 (few rows, long k) it measured 5.6–5.8% faster than the best
// of the others in four runs on an H200, level on 2048 × 2048 and slower on the other shapes
// tried (bench/results/2026-11-21-h200-skinny-n32-n64-probes.md).
inline constexpr SkinnyBulkConfig kSkinnyBulkConfigs[] = {
    {1, 4, 4, 8}, {1, 4, 2, 12}, {1, 2, 4, 6},  {1, 4, 4, 4}, {2, 4, 2, 12},
    {4, 4, 2, 8}, {2, 4, 1, 16}, {4, 4, 1, 12}, {1, 2, 8, 6}};

// Hopper's largest dynamic shared memory per block (227 KiB).
inline constexpr int kSkinnyBulkMaxSharedBytes = 232448;

// Dynamic shared memory the configuration takes at n columns (n ≤ kSkinnyBulkMaxN).
constexpr int skinny_bulk_shared_bytes(SkinnyBulkConfig config, int n) {
  const int n_tiles = n <= 8 ? 1 : n <= 16 ? 2 : n <= 32 ? 4 : 8;
  const int stage = config.k_boxes * (16 * config.m_tiles + 8 * n_tiles) * 128;
  const int sums = config.warps * config.m_tiles * n_tiles * 4 * 32 * 4;  // a slot per warp
  return 1024 + config.stages * stage + sums;
}

// Enqueues the GEMM (type BFloat16 or Float16) on a device of compute capability 9.0 or later.
// Where a pointer, leading dimension or stride does not meet the TMA unit's 16-byte alignment,
// it runs skinny_tc_kernel instead (which itself falls back to element loads where needed).
// cudaErrorInvalidValue for an n or configuration that is not compiled in or does not fit.
cudaError_t launch_skinny_bulk_tn(SkinnyType type, SkinnyBulkConfig config, const SkinnyArgs& args,
                                  cudaStream_t stream);

}  // namespace gemmtune::cuda

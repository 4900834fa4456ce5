// gemmtune's tensor-core kernel for skinny "tn" GEMMs (the linear layers of LLM decoding with a
// few to 64 tokens), bf16 and fp16 with fp32 accumulation:
//
//   C[m×n] = alpha · Aᵀ·B + beta · C      A stored k×m (lda ≥ k), B stored k×n, n ≤ 64
//
// The CUDA-core kernel (skinny_gemm_kernel.hpp) is bound by instructions once n exceeds a few
// columns; here each warp runs mma.sync m16n8k16 over 16·m_tiles rows of Aᵀ and all n columns,
// reading A once with 16-byte loads. Since a dot product's terms may be summed in any order,
// each thread loads 8 consecutive k of its row (and of its B column) and feeds them to the
// fragment slots of two k-steps: the same permutation of k on both operands, so no shuffles or
// shared-memory staging are needed. The warps of a block split k and add their partial sums in
// shared memory in a fixed order (deterministic results). Its limit, measured on an H200: these
// loads (8 rows × 64 bytes per warp instruction) alone take about as long as the kernel, 15–29%
// longer than row-contiguous reads of A, and at n ≥ 32 every 16-row tile rereads all of B
// (bench/results/2026-11-21-h200-skinny-designs.md). skinny_bulk_kernel.hpp streams A through
// the TMA unit instead, on Hopper.
//
// Kept free of gemmtune's other headers so that the .cu file compiles with nvcc alone.
#pragma once

#include "solutions/cuda/skinny_gemm_kernel.hpp"

namespace gemmtune::cuda {

inline constexpr int kSkinnyTcMaxN = 64;

struct SkinnyTcConfig {
  int m_tiles = 1;  // 16-row tiles of Aᵀ per block
  int warps = 8;    // warps per block, splitting k
};

constexpr bool operator==(SkinnyTcConfig x, SkinnyTcConfig y) {
  return x.m_tiles == y.m_tiles && x.warps == y.warps;
}

inline constexpr SkinnyTcConfig kSkinnyTcConfigs[] = {{1, 4}, {1, 8}, {1, 16}, {2, 8}};

// Enqueues the GEMM (type BFloat16 or Float16). Where a pointer, k, a leading dimension or a
// stride does not allow 16-byte loads, it runs the CUDA-core kernel's element-load path on
// slices of at most kSkinnyMaxN columns instead: slower, but correct for every layout.
cudaError_t launch_skinny_tc_tn(SkinnyType type, SkinnyTcConfig config, const SkinnyArgs& args,
                                cudaStream_t stream);

}  // namespace gemmtune::cuda

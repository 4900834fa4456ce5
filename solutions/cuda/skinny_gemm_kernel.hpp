// gemmtune's own kernel for skinny "tn" GEMMs, the shape of a linear layer in LLM decoding:
//
//   C[m×n] = alpha · Aᵀ·B + beta · C      A stored k×m (column-major, lda ≥ k), B stored k×n,
//                                         n small (≤ kSkinnyMaxN), fp32 accumulation
//
// With n ≤ 16 such a GEMM is bound by reading A once, not by arithmetic: each of A's columns (a
// row of Aᵀ) is contiguous in k, so a block streams a few of them with 16-byte loads and reduces
// across its threads, on CUDA cores. cuBLAS's default on an H200 reaches 1.4–3 TB/s of its
// 4.8 TB/s on such shapes below ~100 MB of A (bench/results/2026-11-21-h200-run2.md), which is
// the gap this kernel exists for.
//
// Kept free of gemmtune's other headers so that the .cu file compiles with nvcc alone.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmtune::cuda {

inline constexpr int kSkinnyMaxN = 16;
inline constexpr int kSkinnyMaxBatch = 65535;  // grid.y

enum class SkinnyType { BFloat16, Float16, Float32 };

struct SkinnyArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // elements between batch matrices
  int m = 0, n = 0, k = 0, batch = 1;
  float alpha = 1, beta = 0;
};

// One configuration: how many rows of Aᵀ a block reads together (sharing each load of B), and
// how many threads split their k.
struct SkinnyConfig {
  int rows = 1;
  int threads = 256;
};

constexpr bool operator==(SkinnyConfig x, SkinnyConfig y) {
  return x.rows == y.rows && x.threads == y.threads;
}

// The configurations the kernel is compiled for.
inline constexpr SkinnyConfig kSkinnyConfigs[] = {{1, 128}, {1, 256}, {2, 128},
                                                  {2, 256}, {4, 128}, {4, 256}};

// Enqueues the GEMM; 16-byte vector loads where every pointer, leading dimension and stride
// allows them, element loads otherwise. cudaErrorInvalidValue for a configuration or n that is
// not compiled in.
cudaError_t launch_skinny_tn(SkinnyType type, SkinnyConfig config, const SkinnyArgs& args,
                             cudaStream_t stream);

}  // namespace gemmtune::cuda

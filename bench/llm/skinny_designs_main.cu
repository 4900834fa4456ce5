// gemmtune_skinny_designs: the production tensor-core skinny kernel, the CUDA-core n = 1 kernel
// and cuBLAS's Default against the alternative designs of skinny_designs.cuh and pure reads, on
// decode-shaped bf16 "tn" GEMMs (A k×m, B k×n). Prints a markdown table of µs per GEMM.
//
// Timing: back-to-back launches over rotating copies of A (512 MiB in all, far beyond the L2),
// the best of 3 runs of 200, after the device has been kept busy for a while (sustained clocks).
// Every design that computes is checked against Default (✗ when any output differs by > 0.25).
// Default's times on the smallest shapes can be bound by the host's rate of issuing cuBLAS calls.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/llm/skinny_designs.cuh"
#include "solutions/cuda/skinny_tc_kernel.hpp"

namespace gemmtune::bench::designs {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}

using Launch = void (*)(const SkinnyArgs&, cudaStream_t);

struct Design {
  const char* name;
  Launch launch;
  bool computes;  // false: reads A only
};

template <int NTiles, int Warps, int Split, bool LoadB, bool Multiply>
void launch_register_ring(const SkinnyArgs& args, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>((args.m + 15) / 16 * Split));
  config.blockDim = dim3(Warps * 32);
  config.stream = stream;
  cudaLaunchAttribute cluster[1];
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = Split;
  cluster[0].val.clusterDim.y = 1;
  cluster[0].val.clusterDim.z = 1;
  config.attrs = cluster;
  // Only a real split launches as a cluster: a cluster launch of 1 measured up to 20% slower.
  config.numAttrs = Split > 1 ? 1 : 0;
  check(cudaLaunchKernelEx(&config, register_ring<NTiles, Warps, Split, LoadB, Multiply>, args),
        "register_ring");
}

// Once per kernel, not per launch: the launchers run inside the timing loops.
// (A template on the kernel itself: each instantiation keeps its own flag.)
template <auto Kernel, int Bytes>
void allow_shared_bytes_once() {
  static const bool done = [] {
    check(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Bytes),
          "cudaFuncSetAttribute");
    return true;
  }();
  (void)done;
}

template <int NTiles, int Threads, int U, int Depth>
void launch_staged_ring(const SkinnyArgs& args, cudaStream_t stream) {
  constexpr int kBytes = staged_ring_smem_bytes<NTiles, Threads, U>();
  allow_shared_bytes_once<staged_ring<NTiles, Threads, U, Depth>, kBytes>();
  staged_ring<NTiles, Threads, U, Depth>
      <<<static_cast<unsigned>((args.m + 15) / 16), Threads, kBytes, stream>>>(args);
  check(cudaGetLastError(), "staged_ring");
}

template <int NTiles, int Warps, int KC, int Stages>
void launch_async_copy(const SkinnyArgs& args, cudaStream_t stream) {
  constexpr int kBytes = Stages * 16 * (KC * 2 + 64);
  allow_shared_bytes_once<async_copy<NTiles, Warps, KC, Stages>, kBytes>();
  async_copy<NTiles, Warps, KC, Stages>
      <<<static_cast<unsigned>((args.m + 15) / 16), Warps * 32, kBytes, stream>>>(args);
  check(cudaGetLastError(), "async_copy");
}

template <int Rows, int Threads, int U>
void launch_read_rows(const SkinnyArgs& args, cudaStream_t stream) {
  read_rows<Rows, Threads, U><<<static_cast<unsigned>((args.m + Rows - 1) / Rows), Threads, 0, stream>>>(args);
  check(cudaGetLastError(), "read_rows");
}

// n ≤ 8: where the load pattern decides.
const std::vector<Design> kNarrowDesigns = {
    {"read 1 row × 256 thr", launch_read_rows<1, 256, 2>, false},
    {"read 16 rows × 16 thr ×8", launch_read_rows<16, 256, 8>, false},
    {"read 16 rows × 32 thr ×4", launch_read_rows<16, 512, 4>, false},
    {"ring w8", launch_register_ring<1, 8, 1, true, true>, true},
    {"ring w8 A loads only", launch_register_ring<1, 8, 1, false, false>, false},
    {"ring w8 cluster 4", launch_register_ring<1, 8, 4, true, true>, true},
    {"staged 256×4 d1", launch_staged_ring<1, 256, 4, 1>, true},
    {"staged 256×4 d2", launch_staged_ring<1, 256, 4, 2>, true},
    {"staged 128×4 d4", launch_staged_ring<1, 128, 4, 4>, true},
    {"cp.async w8 k512 s4", launch_async_copy<1, 8, 512, 4>, true},
};
// n = 64: where B's traffic decides.
const std::vector<Design> kWideDesigns = {
    {"read 1 row × 256 thr", launch_read_rows<1, 256, 2>, false},
    {"ring w8", launch_register_ring<8, 8, 1, true, true>, true},
    {"ring w8 B constant", launch_register_ring<8, 8, 1, false, true>, false},
    {"ring w8 A loads only", launch_register_ring<8, 8, 1, false, false>, false},
};

__global__ void fill(Bf16* p, std::size_t count, unsigned seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    p[i] = __float2bfloat16((x & 0xffff) / 65536.f - 0.5f);
  }
}

struct Shape {
  int m, k, n;
};

struct Bench {
  static constexpr std::size_t kPoolBytes = std::size_t{512} << 20;
  static constexpr int kMaxN = 64, kMaxM = 28672, kIterations = 200;
  cublasHandle_t cublas{};
  cudaStream_t stream{};
  cudaEvent_t start{}, stop{};
  Bf16 *pool{}, *b{}, *c{}, *c_default{};

  Bench() {
    check(cublasCreate(&cublas), "cublasCreate");
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    check(cublasSetStream(cublas, stream), "cublasSetStream");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    check(cudaMalloc(&pool, kPoolBytes), "cudaMalloc");
    const std::size_t small = std::size_t{kMaxN} * kMaxM * sizeof(Bf16);
    check(cudaMalloc(&b, small), "cudaMalloc");
    check(cudaMalloc(&c, small), "cudaMalloc");
    check(cudaMalloc(&c_default, small), "cudaMalloc");
    fill<<<4096, 256>>>(pool, kPoolBytes / sizeof(Bf16), 1);
    fill<<<256, 256>>>(b, small / sizeof(Bf16), 7);
    check(cudaDeviceSynchronize(), "fill");
  }

  void run_default(const Shape& s, const void* a, Bf16* out) {
    const float one = 1, zero = 0;
    check(cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, s.m, s.n, s.k, &one, a, CUDA_R_16BF, s.k,
                       b, CUDA_R_16BF, s.k, &zero, out, CUDA_R_16BF, s.m, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }

  SkinnyArgs args(const Shape& s, const void* a) const {
    SkinnyArgs x;
    x.a = a;
    x.b = b;
    x.c = c;
    x.lda = x.ldb = s.k;
    x.ldc = s.m;
    x.m = s.m;
    x.n = s.n;
    x.k = s.k;
    return x;
  }

  // µs per GEMM: the best of 3 runs of kIterations, A rotating over the pool.
  template <typename Body>
  float time(const Shape& s, Body&& body) {
    const std::size_t a_bytes = std::size_t{1} * s.m * s.k * sizeof(Bf16);
    const std::size_t copies = std::max<std::size_t>(2, kPoolBytes / a_bytes);
    auto a_at = [&](int i) { return static_cast<const void*>(reinterpret_cast<const char*>(pool) + (i % copies) * a_bytes); };
    for (int i = 0; i < 20; ++i) body(a_at(i));
    float best = INFINITY;
    for (int run = 0; run < 3; ++run) {
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      for (int i = 0; i < kIterations; ++i) body(a_at(i));
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      best = std::min(best, ms * 1000 / kIterations);
    }
    return best;
  }

  // Largest |design − Default| over C, A = the pool's first copy.
  double deviation(const Shape& s, Launch launch) {
    const std::size_t count = std::size_t{1} * s.m * s.n;
    run_default(s, pool, c_default);
    check(cudaMemsetAsync(c, 0, count * sizeof(Bf16), stream), "cudaMemsetAsync");
    launch(args(s, pool), stream);
    std::vector<Bf16> want(count), got(count);
    check(cudaMemcpyAsync(want.data(), c_default, count * sizeof(Bf16), cudaMemcpyDeviceToHost, stream), "copy");
    check(cudaMemcpyAsync(got.data(), c, count * sizeof(Bf16), cudaMemcpyDeviceToHost, stream), "copy");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    double worst = 0;
    for (std::size_t i = 0; i < count; ++i) {
      worst = std::max(worst, std::fabs(double(__bfloat162float(want[i])) - __bfloat162float(got[i])));
    }
    return worst;
  }
};

void print_table(Bench& bench, const std::vector<Shape>& shapes, const std::vector<Design>& designs) {
  std::printf("\n| m × k, n | A MB | Default | production tc (best config) | CUDA-core kernel at n = 1 |");
  for (const Design& d : designs) std::printf(" %s |", d.name);
  std::printf("\n|---|--:|--:|--:|--:|");
  for (std::size_t i = 0; i < designs.size(); ++i) std::printf("--:|");
  std::printf("\n");
  for (const Shape& s : shapes) {
    const float t_default = bench.time(s, [&](const void* a) { bench.run_default(s, a, bench.c_default); });
    float t_production = INFINITY;
    cuda::SkinnyTcConfig best{};
    for (const cuda::SkinnyTcConfig& config : cuda::kSkinnyTcConfigs) {
      const float t = bench.time(s, [&](const void* a) {
        check(cuda::launch_skinny_tc_tn(cuda::SkinnyType::BFloat16, config, bench.args(s, a), bench.stream), "skinny tc");
      });
      if (t < t_production) {
        t_production = t;
        best = config;
      }
    }
    const Shape one_column{s.m, s.k, 1};
    const float t_n1 = bench.time(one_column, [&](const void* a) {
      check(cuda::launch_skinny_tn(cuda::SkinnyType::BFloat16, cuda::SkinnyConfig{1, 256}, bench.args(one_column, a), bench.stream), "skinny n=1");
    });
    std::printf("| %d × %d, %d | %.1f | %.2f | %.2f (m%d w%d) | %.2f |", s.m, s.k, s.n,
                2.0 * s.m * s.k / 1e6, t_default, t_production, best.m_tiles, best.warps, t_n1);
    for (const Design& d : designs) {
      const float t = bench.time(s, [&](const void* a) { d.launch(bench.args(s, a), bench.stream); });
      const bool wrong = d.computes && bench.deviation(s, d.launch) > 0.25;
      std::printf(" %.2f%s |", t, wrong ? " ✗" : "");
    }
    std::printf("\n");
    std::fflush(stdout);
  }
}

int run() {
  Bench bench;
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
  std::printf("device: %s; µs per GEMM, bf16 tn, best of 3 × %d back-to-back launches\n", props.name,
              Bench::kIterations);
  // Sustained clocks first: ~0.3 s of a large GEMM.
  const Shape warm{8192, 8192, 64};
  for (int i = 0; i < 2000; ++i) bench.run_default(warm, bench.pool, bench.c);
  check(cudaStreamSynchronize(bench.stream), "warm-up");
  print_table(bench,
              {{2048, 2048, 8}, {4096, 4096, 8}, {6144, 4096, 8}, {14336, 4096, 8}, {4096, 14336, 8},
               {10240, 8192, 8}, {8192, 8192, 8}, {28672, 8192, 8}, {8192, 28672, 8}},
              kNarrowDesigns);
  print_table(bench, {{4096, 4096, 64}, {14336, 4096, 64}, {28672, 8192, 64}}, kWideDesigns);
  return 0;
}

}  // namespace
}  // namespace gemmtune::bench::designs

int main() {
  try {
    return gemmtune::bench::designs::run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune_skinny_designs: %s\n", e.what());
    return 1;
  }
}

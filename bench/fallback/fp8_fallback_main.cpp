// What an fp8 ScaledGemm costs when cuBLASLt turns its operands down
// (solutions/cuda/default_with_fallback.hpp): the same `Default` solution timed on aligned
// operands (cuBLASLt's heuristic #0) and with A one byte past a 16-byte boundary (a slice of an
// fp8 tensor: Default runs cuBLASLt on an aligned copy of A), and gemmtune's plain fp8 kernel
// (the last resort) on the same operands, for a few LLM-like shapes.
//
// Timing: per shape, 3 warm-up calls, then 20 calls between one pair of CUDA events, 5 times; the
// median of the 5 per-call means. Operands are not rotated (both ways read the same bytes), so
// the ratio is what matters, not the absolute times.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/scaled_gemm_fallback.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
  }
}

class DeviceBytes {
 public:
  explicit DeviceBytes(std::size_t bytes) { check(cudaMalloc(&p_, bytes), "cudaMalloc"); }
  ~DeviceBytes() { cudaFree(p_); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  char* get() const { return static_cast<char*>(p_); }

 private:
  void* p_ = nullptr;
};

// Microseconds per call of `solution` on `ops`: the median of 5 blocks of 20 calls.
double time_us(gemmtune::Solution& solution, const gemmtune::Problem& p,
               const gemmtune::Operands& ops, cudaStream_t stream) {
  for (int i = 0; i < 3; ++i) {
    const auto status = solution.run(p, ops, stream);
    if (!status) throw std::runtime_error(status.error);
  }
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> blocks;
  for (int block = 0; block < 5; ++block) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < 20; ++i) solution.run(p, ops, stream);
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    blocks.push_back(ms * 1000.0 / 20);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(blocks.begin(), blocks.end());
  return blocks[2];
}

}  // namespace

int main() try {
  using namespace gemmtune;
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
  std::printf("device: %s\n\n", props.name);
  std::printf(
      "| problem | Default, aligned (cuBLASLt) us | Default, A +1 byte (aligned copy) us | "
      "ratio | fp8 kernel, A +1 byte us | ratio |\n");
  std::printf("|---|--:|--:|--:|--:|--:|\n");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  struct Shape {
    std::int64_t m, n, k;
  };
  for (const Shape s : {Shape{4096, 16, 4096}, Shape{8192, 64, 8192}, Shape{4096, 4096, 4096},
                        Shape{8192, 4096, 8192}}) {
    Problem p = Problem::make(OpKind::ScaledGemm, DType::Float8E4M3, Transpose::T, Transpose::N,
                              s.m, s.n, s.k);
    p.c_type = DType::BFloat16;
    DeviceBytes a(p.a_elements() + 256), b(p.b_elements() + 256), c(p.c_elements() * 2 + 256),
        scales(256), workspace(cuda::kDefaultLtWorkspaceBytes);
    check(cudaMemset(a.get(), 0x30, p.a_elements() + 256), "cudaMemset");  // 0.5 in e4m3
    check(cudaMemset(b.get(), 0x30, p.b_elements() + 256), "cudaMemset");
    const float one[2] = {1.0f, 1.0f};
    check(cudaMemcpy(scales.get(), one, sizeof one, cudaMemcpyHostToDevice), "cudaMemcpy");
    Operands ops;
    ops.a = a.get();
    ops.b = b.get();
    ops.c = c.get();
    ops.scale_a = reinterpret_cast<const float*>(scales.get());
    ops.scale_b = ops.scale_a;
    ops.workspace = workspace.get();
    ops.workspace_bytes = cuda::kDefaultLtWorkspaceBytes;
    auto solution = cuda::make_default_solution(p);
    const double aligned = time_us(*solution, p, ops, stream);
    ops.a = a.get() + 1;
    const double shifted = time_us(*solution, p, ops, stream);
    const double kernel = time_us(*cuda::make_scaled_gemm_fallback(p), p, ops, stream);
    std::printf("| `%s` | %.1f | %.1f | %.2f× | %.1f | %.1f× |\n", p.params_signature().c_str(),
                aligned, shifted, shifted / aligned, kernel, kernel / aligned);
  }
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}

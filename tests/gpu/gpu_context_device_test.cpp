// A Context for one device, used from a thread that is on another (needs two GPUs; skips
// otherwise): creating it, tuning through it and dispatching leave the thread on its own device,
// and the tuning and the dispatch run on the Context's.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "gemmtune/gemmtune.hpp"
#include "solutions/cuda/cuda_device.hpp"

namespace gemmtune {
namespace {

int current_device() {
  int device = -1;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  return device;
}

TEST(GpuContextDevice, AContextOnDevice1LeavesADevice0ThreadOnDevice0) {
  if (cuda_device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const auto dir = std::filesystem::temp_directory_path() / "gemmtune_gpu_context_device";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);

  Options options;
  options.backend = "cuda";
  options.device = 1;
  options.tuning = true;
  options.max_tuning_duration_ms = 5;
  options.filename = (dir / "results.csv").string();
  options.untuned_filename = (dir / "untuned.csv").string();
  Context ctx(options);
  EXPECT_EQ(current_device(), 0) << "creating the Context moved the thread to its device";

  // Operands on device 1: all ones, so that every element of C is k.
  const Problem p = parse_problem("GemmTunableOp_BFloat16_TN", "tn_1024_8_512_ld_512_512_1024");
  const std::vector<std::uint16_t> ones_a(p.m * p.k, 0x3f80), ones_b(p.k * p.n, 0x3f80);
  void *a = nullptr, *b = nullptr, *c = nullptr;
  cudaStream_t stream = nullptr;
  {
    const cuda::ScopedDevice on_1(1);
    ASSERT_EQ(cudaMalloc(&a, ones_a.size() * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&b, ones_b.size() * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&c, p.m * p.n * 2), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(a, ones_a.data(), ones_a.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(b, ones_b.data(), ones_b.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  }
  EXPECT_EQ(current_device(), 0);

  // The first call tunes the problem (on device 1) and runs the winner; the second dispatches it.
  for (int call = 0; call < 2; ++call) {
    const RunStatus status = ctx.gemm(p, a, b, c, 1.0, 0.0, stream);
    ASSERT_TRUE(status.ok) << status.error;
    EXPECT_EQ(current_device(), 0) << "call " << call;
  }
  const Lookup chosen = ctx.lookup(p);
  EXPECT_EQ(chosen.source, Source::Tuned) << chosen.solution;
  std::vector<std::uint16_t> out(p.m * p.n);
  {
    const cuda::ScopedDevice on_1(1);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(out.data(), c, out.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaStreamDestroy(stream);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  for (const std::uint16_t v : out) ASSERT_EQ(v, 0x4400) << "not 512 (bf16 0x4400)";  // k = 512
  fmt::print("tuned on device 1 from a device-0 thread: {}\n", chosen.solution);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gemmtune

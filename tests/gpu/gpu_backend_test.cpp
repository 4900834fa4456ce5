// CudaBackend on a real GPU: properties read from the device, validators, random fill in every
// type, copies, timers and cache flush.
#include <gtest/gtest.h>

#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>

#include "device_test.hpp"
#include "solutions/cuda/cuda_backend.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

// Every GPU test skips where no device is usable, and a broken driver looks like no device. On a
// machine that is meant to have one, GEMMTUNE_REQUIRE_GPU=1 turns that into this test's failure,
// with the runtime's reason, instead of a suite that passes by skipping everything.
TEST(CudaPresence, ARequiredGpuIsUsable) {
  const char* required = std::getenv("GEMMTUNE_REQUIRE_GPU");
  const bool must = required != nullptr && std::string(required) == "1";
  if (cuda_device_count() > 0) return;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  (void)cudaGetLastError();
  if (!must) GTEST_SKIP() << "no CUDA device (" << cudaGetErrorName(status) << ")";
  FAIL() << "GEMMTUNE_REQUIRE_GPU=1 but no CUDA device is usable: cudaGetDeviceCount returned "
         << cudaGetErrorName(status) << " (" << cudaGetErrorString(status) << ")";
}

class CudaBackendTest : public gpu_test::DeviceTest {};

TEST_F(CudaBackendTest, PropertiesComeFromTheDevice) {
  const DeviceProperties& p = backend_->properties();
  fmt::print("{} {} memory {} B, L2 {} B, {} SMs\n", p.name, p.architecture, p.memory_bytes,
             p.last_level_cache_bytes, p.compute_units);
  EXPECT_EQ(p.backend, "cuda");
  EXPECT_FALSE(p.name.empty());
  EXPECT_EQ(p.architecture.rfind("sm_", 0), 0u);
  EXPECT_GT(p.memory_bytes, std::size_t{1} << 30);
  EXPECT_GT(p.last_level_cache_bytes, std::size_t{1} << 20);
  EXPECT_GT(p.compute_units, 0);
}

// What the tuner plans its operands within: free memory, which an allocation takes from.
TEST_F(CudaBackendTest, AvailableMemoryIsWhatIsFree) {
  const std::size_t before = backend_->available_memory_bytes();
  EXPECT_GT(before, 0u);
  EXPECT_LE(before, backend_->properties().memory_bytes);
  constexpr std::size_t kGiB = std::size_t{1} << 30;
  const auto held = backend_->allocate(kGiB);
  EXPECT_LE(backend_->available_memory_bytes(), before - kGiB + (std::size_t{64} << 20));
}

TEST_F(CudaBackendTest, VersionsNameEverythingThatChangesAResult) {
  const Environment env = backend_->versions();
  for (const char* key :
       {"CUDA_RUNTIME_VERSION", "CUDA_DRIVER_VERSION", "CUBLAS_VERSION", "CUBLASLT_VERSION",
        "GPU_NAME", "GPU_COMPUTE_CAPABILITY", "GPU_SM_COUNT"}) {
    ASSERT_TRUE(env.contains(key)) << key;
    EXPECT_FALSE(env.get(key)->empty()) << key;
    fmt::print("{} = {}\n", key, *env.get(key));
  }
  // And each says what the device and the libraries say, read here independently.
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int runtime = 0, driver = 0, sms = 0, l2 = 0;
  ASSERT_EQ(cudaRuntimeGetVersion(&runtime), cudaSuccess);
  ASSERT_EQ(cudaDriverGetVersion(&driver), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), cudaSuccess);
  EXPECT_EQ(*env.get("CUDA_RUNTIME_VERSION"), std::to_string(runtime));
  EXPECT_EQ(*env.get("CUDA_DRIVER_VERSION"), std::to_string(driver));
  EXPECT_GE(driver, runtime);  // a runtime newer than the driver would not have started
  EXPECT_EQ(*env.get("CUBLASLT_VERSION"), std::to_string(cublasLtGetVersion()));
  EXPECT_EQ(std::stoi(std::string(*env.get("CUBLAS_VERSION"))) / 10000, CUBLAS_VER_MAJOR);
  EXPECT_EQ(*env.get("GPU_NAME"), prop.name);
  EXPECT_EQ(*env.get("GPU_COMPUTE_CAPABILITY"), fmt::format("{}.{}", prop.major, prop.minor));
  EXPECT_EQ(*env.get("GPU_SM_COUNT"), std::to_string(sms));
  EXPECT_EQ(backend_->properties().compute_units, sms);
  EXPECT_EQ(backend_->properties().last_level_cache_bytes, static_cast<std::size_t>(l2));
  EXPECT_EQ(backend_->properties().architecture, fmt::format("sm_{}{}", prop.major, prop.minor));
}

TEST_F(CudaBackendTest, RandomFillIsNonZeroBoundedAndReproducible) {
  constexpr std::int64_t n = 100003;
  for (DType d : {DType::Float32, DType::TF32, DType::Float64, DType::Float16, DType::BFloat16,
                  DType::Float8E4M3, DType::Float8E5M2, DType::ComplexFloat32}) {
    SCOPED_TRACE(std::string(info(d).cli_name));
    auto buffer = backend_->allocate(static_cast<std::size_t>(n) * element_bytes(d));
    backend_->fill_random(*buffer, d, n, 42);
    const auto values = backend_->read_as_double(*buffer, d, n);
    ASSERT_EQ(values.size(), static_cast<std::size_t>(n * (info(d).is_complex ? 2 : 1)));
    double sum = 0;
    int negative = 0;
    for (double v : values) {
      ASSERT_TRUE(std::isfinite(v));
      ASSERT_NE(v, 0.0);
      ASSERT_LE(std::abs(v), 1.0);
      sum += v;
      negative += v < 0;
    }
    EXPECT_LT(std::abs(sum / static_cast<double>(values.size())), 0.02);  // centred
    EXPECT_NEAR(negative / static_cast<double>(values.size()), 0.5, 0.02);
    backend_->fill_random(*buffer, d, n, 42);
    EXPECT_EQ(backend_->read_as_double(*buffer, d, n), values);
    backend_->fill_random(*buffer, d, n, 43);
    EXPECT_NE(backend_->read_as_double(*buffer, d, n), values);
  }
}

// The Context keeps a workspace per stream by this identity: cudaStreamPerThread names a stream
// of each thread (two threads' work on it runs in no order, so they must not share one), while
// the legacy default stream and a created stream are one stream for every thread.
TEST_F(CudaBackendTest, StreamIdentityTellsPerThreadStreamsApart) {
  void* per_thread = static_cast<void*>(cudaStreamPerThread);
  void* created = backend_->stream();
  const void* here = backend_->stream_identity(per_thread);
  const void *there = nullptr, *there_again = nullptr, *legacy_there = nullptr,
             *created_there = nullptr;
  std::thread([&] {
    there = backend_->stream_identity(per_thread);
    there_again = backend_->stream_identity(per_thread);
    legacy_there = backend_->stream_identity(nullptr);
    created_there = backend_->stream_identity(created);
  }).join();
  EXPECT_NE(here, there);
  EXPECT_EQ(there, there_again);
  EXPECT_EQ(backend_->stream_identity(per_thread), here);
  EXPECT_NE(here, per_thread);
  EXPECT_EQ(legacy_there, nullptr);
  EXPECT_EQ(created_there, created);
  // A thread that starts after another ended does not get its identity.
  const void* later = nullptr;
  std::thread([&] { later = backend_->stream_identity(per_thread); }).join();
  EXPECT_NE(later, there);
}

TEST_F(CudaBackendTest, FillBytesAndCopy) {
  auto a = backend_->allocate(4096);
  auto b = backend_->allocate(4096);
  backend_->fill_bytes(*a, 0);
  backend_->fill_random(*b, DType::Float32, 1024, 1);
  backend_->copy(*a, *b, 4096);
  EXPECT_EQ(backend_->read_as_double(*a, DType::Float32, 1024),
            backend_->read_as_double(*b, DType::Float32, 1024));
  backend_->fill_bytes(*a, 0xff);
  for (double v : backend_->read_as_double(*a, DType::BFloat16, 2048)) ASSERT_TRUE(std::isnan(v));
  EXPECT_THROW(backend_->copy(*a, *b, 8192), Error);
}

TEST_F(CudaBackendTest, TimerGivesOneSamplePerIteration) {
  auto timer = backend_->make_timer(TimingMode::Queued);
  auto buffer = backend_->allocate(64 << 20);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 5; ++i) {
      timer->begin_iteration();
      backend_->fill_bytes(*buffer, static_cast<unsigned char>(i));
      timer->end_iteration();
    }
    const auto samples = timer->collect_ms();
    ASSERT_EQ(samples.size(), 5u);
    for (double ms : samples) {
      EXPECT_GT(ms, 0.0);
      EXPECT_LT(ms, 1000.0);
    }
  }
  EXPECT_TRUE(timer->collect_ms().empty());
}

TEST_F(CudaBackendTest, FlushCacheRuns) {
  backend_->flush_cache();
  backend_->flush_cache();
  backend_->synchronize();
  EXPECT_FALSE(cuda_sticky_error());
}

}  // namespace
}  // namespace gemmtune

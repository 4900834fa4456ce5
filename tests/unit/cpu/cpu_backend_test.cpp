#include "solutions/cpu/cpu_backend.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "solutions/cpu/random_fill.hpp"

namespace gemmtune::cpu {
namespace {

TEST(CpuBackend, PropertiesComeFromTheSystem) {
  CpuBackend backend;
  const DeviceProperties& p = backend.properties();
  EXPECT_EQ(p.backend, "cpu");
  EXPECT_FALSE(p.name.empty());
  EXPECT_GT(p.last_level_cache_bytes, 0u);
  EXPECT_GT(p.memory_bytes, 0u);
  EXPECT_GT(p.compute_units, 0);
  EXPECT_GT(backend.available_memory_bytes(), 0u);
  EXPECT_LE(backend.available_memory_bytes(), p.memory_bytes);
}

TEST(CpuBackend, VersionsNameTheCpuAndOpenBlas) {
  const Environment env = CpuBackend().versions();
  EXPECT_TRUE(env.contains("CPU_MODEL"));
  EXPECT_TRUE(env.contains("CPU_CORES"));
  ASSERT_TRUE(env.contains("OPENBLAS_CONFIG"));
  EXPECT_NE(env.get("OPENBLAS_CONFIG")->find("OpenBLAS"), std::string_view::npos);
}

TEST(CpuBackend, RandomFillIsUniformNonZeroAndReproducible) {
  CpuBackend backend;
  for (const DTypeInfo& t : all_dtypes()) {
    constexpr std::int64_t n = 4096;
    auto buffer = backend.allocate(n * t.bytes);
    backend.fill_random(*buffer, t.dtype, n, 5);
    const std::vector<double> v = backend.read_as_double(*buffer, t.dtype, n);
    double sum = 0, lo = 2, hi = -2;
    for (double x : v) {
      ASSERT_NE(x, 0.0) << t.cli_name;
      ASSERT_TRUE(std::isfinite(x)) << t.cli_name;
      ASSERT_LE(std::fabs(x), 1.0) << t.cli_name;
      sum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    EXPECT_LT(std::fabs(sum / static_cast<double>(v.size())), 0.05) << t.cli_name;
    EXPECT_LT(lo, -0.9) << t.cli_name;
    EXPECT_GT(hi, 0.9) << t.cli_name;
    auto again = backend.allocate(n * t.bytes);
    backend.fill_random(*again, t.dtype, n, 5);
    EXPECT_EQ(backend.read_as_double(*again, t.dtype, n), v) << t.cli_name;
  }
}

TEST(CpuBackend, ALargeRandomFillIsTheSameWhateverItsSizeAndThreads) {
  // Filled in blocks on several threads, each block from its own generator: a fill's values depend
  // on the seed and the position alone, so a shorter fill is the start of a longer one, and the
  // blocks are not copies of one another.
  CpuBackend backend;
  for (const DType dtype :
       {DType::Float32, DType::Float16, DType::BFloat16, DType::ComplexFloat64}) {
    const std::int64_t n = 3 * kRandomFillBlock + 17;
    const std::size_t bytes = static_cast<std::size_t>(n) * element_bytes(dtype);
    auto whole = backend.allocate(bytes);
    backend.fill_random(*whole, dtype, n, 9);
    auto part = backend.allocate(bytes);
    backend.fill_random(*part, dtype, kRandomFillBlock + 5, 9);
    EXPECT_EQ(std::memcmp(whole->data(), part->data(),
                          static_cast<std::size_t>(kRandomFillBlock + 5) * element_bytes(dtype)),
              0)
        << info(dtype).cli_name;
    const auto* bytes_of = static_cast<const unsigned char*>(whole->data());
    const std::size_t block_bytes =
        static_cast<std::size_t>(kRandomFillBlock) * element_bytes(dtype);
    EXPECT_NE(std::memcmp(bytes_of, bytes_of + block_bytes, 64), 0) << info(dtype).cli_name;
    for (double x : backend.read_as_double(*whole, dtype, n)) {
      ASSERT_NE(x, 0.0) << info(dtype).cli_name;
      ASSERT_LE(std::fabs(x), 1.0) << info(dtype).cli_name;
    }
  }
}

TEST(CpuBackend, BuffersCopyAndPoison) {
  CpuBackend backend;
  auto a = backend.allocate(64 * sizeof(float));
  auto b = backend.allocate(64 * sizeof(float));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a->data()) % 64, 0u);
  backend.fill_random(*a, DType::Float32, 64, 1);
  backend.copy(*b, *a, a->bytes());
  EXPECT_EQ(backend.read_as_double(*a, DType::Float32, 64),
            backend.read_as_double(*b, DType::Float32, 64));
  backend.fill_bytes(*b, 0xFF);
  EXPECT_TRUE(std::isnan(backend.read_as_double(*b, DType::Float32, 1)[0]));
}

TEST(CpuBackend, TimerAndFlush) {
  CpuBackend backend;
  auto timer = backend.make_timer(TimingMode::Immediate);
  for (int i = 0; i < 3; ++i) {
    timer->begin_iteration();
    timer->end_iteration();
  }
  const auto samples = timer->collect_ms();
  ASSERT_EQ(samples.size(), 3u);
  for (double s : samples) EXPECT_GE(s, 0.0);
  EXPECT_TRUE(timer->collect_ms().empty());
  backend.flush_cache();  // must not crash; its effect is measured by benchmarks
}

}  // namespace
}  // namespace gemmtune::cpu

// micro_perf's metrics against values computed by hand (the expected numbers below are written
// out, not recomputed with the formulas under test).
#include "drivers/bench/bench_metrics.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "drivers/bench/bench_case.hpp"

namespace gemmtune::bench {
namespace {

DevicePeaks peaks(double bandwidth_gb_s, double tflops, const std::string& dtype) {
  DevicePeaks p;
  p.memory_bandwidth_gb_s = bandwidth_gb_s;
  p.dense_tflops_by_dtype.emplace(dtype, tflops);
  p.source = "test";
  return p;
}

// M = N = K = 256, float32, samples of 100, 110 and 120 µs.
TEST(BenchMetrics, Float32Cube256ByHand) {
  const GemmFootprint f = gemm_footprint(256, 256, 256, 4, 4, 4);
  EXPECT_DOUBLE_EQ(f.flops, 33554432.0);  // 2 * 256^3
  EXPECT_DOUBLE_EQ(f.bytes, 786432.0);    // 3 * 256^2 * 4
  const std::vector<double> us{120, 100, 110};
  const BenchMetrics m = compute_metrics(f, us, peaks(10, 1, "float32"), "float32");
  EXPECT_EQ(m.iterations, 3);
  EXPECT_DOUBLE_EQ(m.avg_latency_us, 110);
  EXPECT_DOUBLE_EQ(m.median_latency_us, 110);
  EXPECT_DOUBLE_EQ(m.min_latency_us, 100);
  EXPECT_DOUBLE_EQ(m.max_latency_us, 120);
  EXPECT_DOUBLE_EQ(m.stddev_latency_us, 10);
  // 33554432 / 110e-6 / 1e12
  EXPECT_NEAR(m.tflops, 0.305040290909091, 1e-14);
  EXPECT_DOUBLE_EQ(m.memory_mb, 0.786432);
  // 786432 / 110e-6 / 1e9
  EXPECT_NEAR(m.algo_bandwidth_gb_s, 7.14938181818182, 1e-12);
  ASSERT_TRUE(m.bandwidth_utilization_percent);
  EXPECT_NEAR(*m.bandwidth_utilization_percent, 71.4938181818182, 1e-10);  // of 10 GB/s
  ASSERT_TRUE(m.flops_utilization_percent);
  EXPECT_NEAR(*m.flops_utilization_percent, 30.5040290909091, 1e-10);  // of 1 TFLOPS
}

// The derived figures follow the average, not the median (micro_perf's rule).
TEST(BenchMetrics, ThroughputFollowsTheAverageLatency) {
  const GemmFootprint f = gemm_footprint(1000, 1000, 1000, 2, 2, 2);  // 2e9 FLOP, 6e6 bytes
  const std::vector<double> us{1000, 2000, 3000, 10000};              // avg 4000, median 2500
  const BenchMetrics m = compute_metrics(f, us, peaks(3000, 2, "bfloat16"), "bfloat16");
  EXPECT_DOUBLE_EQ(m.avg_latency_us, 4000);
  EXPECT_DOUBLE_EQ(m.median_latency_us, 2500);
  EXPECT_NEAR(m.tflops, 0.5, 1e-15);                           // 2e9 / 4e-3 / 1e12
  EXPECT_NEAR(m.memory_mb, 6, 1e-15);                          // 6e6 / 1e6
  EXPECT_NEAR(m.algo_bandwidth_gb_s, 1.5, 1e-15);              // 6e6 / 4e-3 / 1e9
  EXPECT_NEAR(*m.bandwidth_utilization_percent, 0.05, 1e-15);  // 1.5 of 3000 GB/s
  EXPECT_NEAR(*m.flops_utilization_percent, 25, 1e-12);        // 0.5 of 2 TFLOPS
}

TEST(BenchMetrics, ElementSizesOfEachOperand) {
  // bfloat16 M=128, K=64, N=32: (128*64 + 64*32 + 128*32) * 2 = 28672 bytes.
  EXPECT_DOUBLE_EQ(gemm_footprint(128, 64, 32, 2, 2, 2).bytes, 28672);
  // float8 A and B with a float32 C: 8192 + 2048 + 4096 * 4 = 26624.
  EXPECT_DOUBLE_EQ(gemm_footprint(128, 64, 32, 1, 1, 4).bytes, 26624);
  // The problem of a case gives the same figures as the case's sizes (m and n swap).
  BenchCase c;
  c.m = 128;
  c.k = 64;
  c.n = 32;
  c.gemm_dtype = DType::BFloat16;
  const GemmFootprint f = gemm_footprint(problem_for_case(c));
  EXPECT_DOUBLE_EQ(f.bytes, 28672);
  EXPECT_DOUBLE_EQ(f.flops, 524288);  // 2 * 128 * 64 * 32
}

TEST(BenchMetrics, UnknownPeaksAreAbsentNotZero) {
  const GemmFootprint f = gemm_footprint(256, 256, 256, 4, 4, 4);
  const std::vector<double> us{110};
  const BenchMetrics none = compute_metrics(f, us, DevicePeaks{}, "float32");
  EXPECT_FALSE(none.bandwidth_utilization_percent);
  EXPECT_FALSE(none.flops_utilization_percent);
  EXPECT_NEAR(none.tflops, 0.305040290909091, 1e-14);
  // A peak for another dtype only, and a zero peak, count as unknown.
  DevicePeaks other = peaks(0, 989.4, "bfloat16");
  other.dense_tflops_by_dtype.emplace("tf32", 0);
  EXPECT_FALSE(compute_metrics(f, us, other, "float32").flops_utilization_percent);
  EXPECT_FALSE(compute_metrics(f, us, other, "tf32").flops_utilization_percent);
  EXPECT_FALSE(compute_metrics(f, us, other, "float32").bandwidth_utilization_percent);
  EXPECT_DOUBLE_EQ(*other.dense_tflops("bfloat16"), 989.4);
}

}  // namespace
}  // namespace gemmtune::bench

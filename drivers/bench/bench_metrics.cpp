#include "drivers/bench/bench_metrics.hpp"

#include <vector>

#include "tuner/error.hpp"
#include "tuner/statistics.hpp"

namespace gemmtune::bench {

GemmFootprint gemm_footprint(std::int64_t m, std::int64_t k, std::int64_t n, std::size_t a_bytes,
                             std::size_t b_bytes, std::size_t c_bytes) {
  const auto md = static_cast<double>(m);
  const auto kd = static_cast<double>(k);
  const auto nd = static_cast<double>(n);
  return {2.0 * md * nd * kd, md * kd * static_cast<double>(a_bytes) +
                                  kd * nd * static_cast<double>(b_bytes) +
                                  md * nd * static_cast<double>(c_bytes)};
}

GemmFootprint gemm_footprint(const Problem& p) {
  return gemm_footprint(p.m, p.k, p.n, element_bytes(p.a_type), element_bytes(p.b_type),
                        element_bytes(p.c_type));
}

std::optional<double> DevicePeaks::dense_tflops(std::string_view dtype) const {
  auto it = dense_tflops_by_dtype.find(dtype);
  if (it == dense_tflops_by_dtype.end() || it->second <= 0) return std::nullopt;
  return it->second;
}

BenchMetrics compute_metrics(const GemmFootprint& footprint, std::span<const double> latencies_us,
                             const DevicePeaks& peaks, std::string_view dtype) {
  GEMMTUNE_EXPECT(!latencies_us.empty(), "metrics of no measurement");
  // summarize() is unit-agnostic: fed µs, its "_ms" fields hold µs.
  const Statistics s = summarize(latencies_us);
  BenchMetrics r;
  r.iterations = s.iterations;
  r.avg_latency_us = s.mean_ms;
  r.median_latency_us = s.median_ms;
  r.min_latency_us = s.min_ms;
  r.max_latency_us = s.max_ms;
  r.stddev_latency_us = s.stddev_ms;
  const double seconds = r.avg_latency_us * 1e-6;
  if (seconds > 0) {
    r.tflops = footprint.flops / seconds / 1e12;
    r.algo_bandwidth_gb_s = footprint.bytes / seconds / 1e9;
  }
  r.memory_mb = footprint.bytes / 1e6;
  if (peaks.memory_bandwidth_gb_s && *peaks.memory_bandwidth_gb_s > 0) {
    r.bandwidth_utilization_percent = r.algo_bandwidth_gb_s / *peaks.memory_bandwidth_gb_s * 100.0;
  }
  if (auto peak = peaks.dense_tflops(dtype)) r.flops_utilization_percent = r.tflops / *peak * 100.0;
  return r;
}

}  // namespace gemmtune::bench

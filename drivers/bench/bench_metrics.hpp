// Bench metrics: what `gemmtune bench` reports for one measured GEMM, as pure functions of the
// GEMM's size, the measured latencies and the device's peaks.
//
// Definitions (micro_perf's, in SI units: 1 MB = 1e6 bytes, 1 GB = 1e9 bytes, 1 TFLOPS = 1e12
// FLOP/s). micro_perf times a run of iterations and divides by their count, i.e. it reports the
// average latency, and derives its throughput figures from it; gemmtune does the same and reports
// the median beside it (the tuner picks winners by median, which one slow iteration cannot move).
//   avg latency (µs)          mean of the per-iteration samples
//   median latency (µs)       median of the samples
//   TFLOPS                    2·M·N·K / avg latency (s) / 1e12
//   memory (MB)               bytes of the inputs and the output, (M·K·a + K·N·b + M·N·c) / 1e6,
//                             a, b, c the element sizes of A, B and C (micro_perf's io_bytes; its
//                             pre-2025 "Memory Size(MB)" divided by 1024² instead)
//   algorithm bandwidth (GB/s) those bytes / avg latency (s) / 1e9 (micro_perf's mem_bw, formerly
//                             "Kernel bandwidth")
//   bandwidth utilisation (%) algorithm bandwidth / the device's memory bandwidth · 100
//   FLOPS utilisation (%)     TFLOPS / the device's dense peak for the dtype · 100
// A utilisation whose peak is unknown is absent (reported as n/a), never 0.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tuner/problem.hpp"

namespace gemmtune::bench {

// The units line every report states once.
inline constexpr std::string_view kUnitsNote =
    "latency in µs; TFLOPS = 2·M·N·K / average latency / 1e12; memory MB = bytes of A, B and C "
    "/ 1e6; GB/s = those bytes / average latency / 1e9 (1 GB = 1e9 bytes); utilisation % = "
    "achieved / peak · 100";

struct GemmFootprint {
  double flops = 0;  // 2·M·N·K
  double bytes = 0;  // A, B and C, once each
};

GemmFootprint gemm_footprint(std::int64_t m, std::int64_t k, std::int64_t n, std::size_t a_bytes,
                             std::size_t b_bytes, std::size_t c_bytes);
// The same for a non-batched Problem, with its storage types (m, n, k are symmetric here, so the
// column-major m=N, n=M gives the same figures).
GemmFootprint gemm_footprint(const Problem& problem);

// A device's theoretical peaks, from the device spec tables or the command line.
struct DevicePeaks {
  std::optional<double> memory_bandwidth_gb_s;
  std::map<std::string, double, std::less<>> dense_tflops_by_dtype;  // by gemmtune's dtype name
  std::string source;  // "NVIDIA H200 SXM spec", "--peak-tflops", "none"

  std::optional<double> dense_tflops(std::string_view dtype) const;
};

struct BenchMetrics {
  int iterations = 0;
  double avg_latency_us = 0;
  double median_latency_us = 0;
  double min_latency_us = 0;
  double max_latency_us = 0;
  double stddev_latency_us = 0;
  double tflops = 0;
  double memory_mb = 0;
  double algo_bandwidth_gb_s = 0;
  std::optional<double> bandwidth_utilization_percent;
  std::optional<double> flops_utilization_percent;
};

// `latencies_us` must not be empty; `dtype` (gemmtune's name: "bfloat16", "tf32", ...) picks the
// FLOPS peak.
BenchMetrics compute_metrics(const GemmFootprint& footprint, std::span<const double> latencies_us,
                             const DevicePeaks& peaks, std::string_view dtype);

}  // namespace gemmtune::bench

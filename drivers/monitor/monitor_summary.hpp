// What a run's monitor samples say, in a few figures: memory, power, clocks, temperature,
// utilisation, the clocks event reasons seen, clock drops — and whether the device was throttled
// while it was measuring, so that a slow measurement taken on a throttled GPU shows as such.
//
// Contract:
// - summarize() is a pure function of the samples. Its *scope* is the samples taken in
//   measurement windows where there are any, else every sample (the whole run); the summary says
//   which. Memory (peak and total) and the duration are over the whole run in any case.
// - Clock figures and drops count only busy samples: those of the scope whose reasons do not
//   include GpuIdle (a sample without reasons counts as busy). A clock drop is a busy sample whose
//   SM clock is below `drop_fraction` of the highest SM clock of the busy samples of the scope.
// - `throttled` is true when a slowdown reason (throttle_reasons.hpp) or a clock drop was seen in
//   the scope.
// - Units: W, MHz, °C, percent; memory in bytes, printed in GiB (2^30 bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drivers/monitor/monitor_sample.hpp"
#include "drivers/monitor/throttle_reasons.hpp"

namespace gemmtune::monitor {

struct SummaryOptions {
  double drop_fraction = 0.95;
};

struct ReasonSeen {
  ThrottleReason reason;
  int samples = 0;  // of the scope
};

struct MonitorSummary {
  std::string device;              // DeviceLimits::device
  double interval_ms = 0;          // set by GpuMonitor::summary
  std::size_t failed_samples = 0;  // readings that gave nothing (set by GpuMonitor::summary)
  int samples = 0;                 // all of the run
  int measuring_samples = 0;
  bool scope_is_measurements = false;  // false: the figures are over the whole run
  int scope_samples = 0;
  int busy_samples = 0;   // of the scope, without GpuIdle
  double duration_s = 0;  // first to last sample

  // Whole run.
  std::optional<std::uint64_t> memory_used_max_bytes;
  std::optional<std::uint64_t> memory_total_bytes;

  // Scope.
  std::optional<double> power_mean_w;
  std::optional<double> power_max_w;
  std::optional<double> power_limit_w;       // the device's enforced limit
  std::optional<unsigned> sm_clock_min_mhz;  // busy samples
  std::optional<double> sm_clock_mean_mhz;
  std::optional<unsigned> sm_clock_max_mhz;
  std::optional<unsigned> sm_clock_device_max_mhz;  // the device's highest SM clock
  std::optional<unsigned> mem_clock_min_mhz;        // busy samples
  std::optional<unsigned> mem_clock_max_mhz;
  std::optional<int> temperature_max_c;
  std::optional<double> gpu_util_mean_percent;
  std::optional<double> mem_util_mean_percent;

  double drop_fraction = 0.95;
  int clock_drop_samples = 0;
  std::optional<unsigned> clock_drop_lowest_mhz;
  int reason_samples = 0;           // samples of the scope that reported reasons
  std::vector<ReasonSeen> reasons;  // every reason seen in the scope, in bit order
  bool throttled = false;
};

MonitorSummary summarize(const std::vector<MonitorSample>& samples, const DeviceLimits& limits,
                         const SummaryOptions& options = {});

// A few human lines for terminals and report files, each ending in '\n', the first one
// "GPU monitor (...):" and the last one the verdict ("throttled during measurements: no").
std::string format_monitor_summary(const MonitorSummary& summary);

// The figures as flat key/value pairs, for CSV, JSONL and SQLite records: keys are stable,
// lower_snake_case with their unit (power_mean_w, memory_used_max_bytes); absent figures are
// left out. `numeric` says whether the value is a number (or a 0/1 flag) or text.
struct MonitorField {
  std::string key;
  std::string value;
  bool numeric = true;
};
std::vector<MonitorField> monitor_fields(const MonitorSummary& summary);
// "key=value" lines, each ending in '\n', keys prefixed with "monitor.".
std::string format_monitor_fields(const MonitorSummary& summary);
// One JSON object on one line: {"samples":120,"power_mean_w":612.4,...}.
std::string format_monitor_json(const MonitorSummary& summary);

}  // namespace gemmtune::monitor

// One reading of a GPU's state, as the monitor takes it every N ms: clocks, power, temperature,
// memory, utilisation and the reasons the driver gives for holding the clocks down. A field is
// empty where the device or driver did not answer (not supported, no permission, a failed call),
// so that a summary never mistakes "unknown" for zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gemmtune::monitor {

struct MonitorSample {
  double t_s = 0;          // seconds since the monitor started (set by the monitor)
  bool measuring = false;  // in a measurement window (set by the monitor; see gpu_monitor.hpp)

  std::optional<unsigned> sm_clock_mhz;
  std::optional<unsigned> mem_clock_mhz;
  std::optional<double> power_w;
  std::optional<int> temperature_c;
  std::optional<std::uint64_t> memory_used_bytes;  // the whole device's, every process's
  std::optional<std::uint64_t> memory_total_bytes;
  std::optional<unsigned> gpu_util_percent;  // of the driver's last sample period
  std::optional<unsigned> mem_util_percent;
  // Clocks event ("throttle") reasons, NVML's bitmask; throttle_reasons.hpp names the bits.
  std::optional<std::uint64_t> reasons;
  // The device's energy counter, mJ since the driver was loaded: the energy of a stretch of work
  // is the difference of two readings (the power reading is a mean over about a second).
  std::optional<std::uint64_t> energy_mj;
};

// What does not change while the monitor runs: which device, its limits.
struct DeviceLimits {
  std::string device;  // how the source found it: "NVML device 0000:3b:00.0"
  std::optional<unsigned> max_sm_clock_mhz;
  std::optional<unsigned> max_mem_clock_mhz;
  std::optional<double> power_limit_w;  // the enforced power limit
};

}  // namespace gemmtune::monitor

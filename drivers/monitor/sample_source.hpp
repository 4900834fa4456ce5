// SampleSource: where the monitor's readings come from — NVML on a real GPU (nvml_source.hpp),
// a scripted fake in tests. The monitor calls sample() from its own thread, one call at a time.
#pragma once

#include <optional>

#include "drivers/monitor/monitor_sample.hpp"

namespace gemmtune::monitor {

class SampleSource {
 public:
  virtual ~SampleSource() = default;
  // The device's state now, without t_s and measuring (the monitor sets them); nullopt when
  // nothing at all could be read this time. Should not throw; the monitor drops a sample that
  // does.
  virtual std::optional<MonitorSample> sample() = 0;
  // Read once, when the monitor starts.
  virtual DeviceLimits limits() const { return {}; }
};

}  // namespace gemmtune::monitor

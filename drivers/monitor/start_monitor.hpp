// Starting the GPU monitor for the device a run uses: the one call `gemmtune tune`, `mamf` and
// `bench` make.
//
// Contract:
// - A CUDA backend's device is watched through NVML, found by the PCI bus id the backend reports
//   (DeviceProperties::pci_bus_id), else by its ordinal as NVML index.
// - The monitor is off, with a null monitor, when the interval is 0 or the backend has no GPU
//   (the note is empty then: nothing to say), or when NVML cannot be used (no library, a missing
//   function, a failed init, no such device): the note then says "GPU monitor off: <why>", once,
//   for the caller to print. Nothing here throws for an unusable NVML.
// - Otherwise the note says what is watched ("GPU monitor: NVML device 0000:3b:00.0, every
//   100 ms").
#pragma once

#include <memory>
#include <string>

#include "drivers/monitor/gpu_monitor.hpp"
#include "drivers/monitor/nvml_api.hpp"
#include "tuner/backend.hpp"

namespace gemmtune::monitor {

inline constexpr int kDefaultIntervalMs = 100;

struct MonitorOptions {
  int interval_ms = kDefaultIntervalMs;  // 0: off
  std::string nvml_library = nvml::kDefaultLibrary;
};

struct MonitorStart {
  std::unique_ptr<GpuMonitor> monitor;  // null: off
  std::string note;
};

MonitorStart start_monitor_for(const Backend& backend, const MonitorOptions& options);

// The same for an NVML device named directly (bus id, else index when `index` >= 0).
MonitorStart start_nvml_monitor(const std::string& pci_bus_id, int index,
                                const MonitorOptions& options);

}  // namespace gemmtune::monitor

#include "drivers/monitor/start_monitor.hpp"

#include <fmt/format.h>

#include "drivers/monitor/nvml_source.hpp"

namespace gemmtune::monitor {

MonitorStart start_nvml_monitor(const std::string& pci_bus_id, int index,
                                const MonitorOptions& options) {
  MonitorStart start;
  if (options.interval_ms <= 0) return start;
  std::string why;
  auto library = nvml::NvmlLibrary::open(options.nvml_library, why);
  if (!library) {
    start.note = fmt::format("GPU monitor off: {}", why);
    return start;
  }
  auto source = NvmlSource::open(std::move(library), pci_bus_id, index, why);
  if (!source) {
    start.note = fmt::format("GPU monitor off: {}", why);
    return start;
  }
  const std::string device = source->limits().device;
  start.monitor = std::make_unique<GpuMonitor>(std::move(source),
                                               std::chrono::milliseconds(options.interval_ms));
  start.note = fmt::format("GPU monitor: {}, every {} ms", device, options.interval_ms);
  return start;
}

MonitorStart start_monitor_for(const Backend& backend, const MonitorOptions& options) {
  const DeviceProperties& props = backend.properties();
  if (props.backend != "cuda" || options.interval_ms <= 0) return {};
  return start_nvml_monitor(props.pci_bus_id, props.ordinal, options);
}

}  // namespace gemmtune::monitor

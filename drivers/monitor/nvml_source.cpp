#include "drivers/monitor/nvml_source.hpp"

#include <fmt/format.h>

namespace gemmtune::monitor {
namespace {

// Calls `f(args..., &value)` when the function exists; the value where it succeeded.
template <typename T, typename F, typename... Args>
std::optional<T> read(F* f, Args... args) {
  if (f == nullptr) return std::nullopt;
  T value{};
  if (f(args..., &value) != nvml::kSuccess) return std::nullopt;
  return value;
}

}  // namespace

std::unique_ptr<NvmlSource> NvmlSource::open(std::shared_ptr<nvml::NvmlLibrary> library,
                                             const std::string& pci_bus_id, int index,
                                             std::string& why) {
  const nvml::Functions& fn = library->fn();
  nvml::Device device = nullptr;
  std::string found_by;
  std::string bus_error;
  if (!pci_bus_id.empty()) {
    if (fn.device_get_handle_by_pci_bus_id_v2 == nullptr) {
      bus_error = "no nvmlDeviceGetHandleByPciBusId_v2";
    } else if (const nvml::Return r =
                   fn.device_get_handle_by_pci_bus_id_v2(pci_bus_id.c_str(), &device);
               r == nvml::kSuccess) {
      found_by = pci_bus_id;
    } else {
      bus_error = library->error_string(r);
      device = nullptr;
    }
  }
  if (device == nullptr) {
    if (index < 0) {
      why = fmt::format("no NVML device for PCI bus id {} ({})", pci_bus_id, bus_error);
      return nullptr;
    }
    const nvml::Return r = fn.device_get_handle_by_index_v2(static_cast<unsigned>(index), &device);
    if (r != nvml::kSuccess) {
      why = pci_bus_id.empty()
                ? fmt::format("no NVML device {}: {}", index, library->error_string(r))
                : fmt::format("no NVML device for PCI bus id {} ({}) nor index {} ({})", pci_bus_id,
                              bus_error, index, library->error_string(r));
      return nullptr;
    }
    found_by = pci_bus_id.empty() ? fmt::format("index {}", index)
                                  : fmt::format("index {}, as PCI bus id {} was not found: {}",
                                                index, pci_bus_id, bus_error);
  }
  DeviceLimits limits;
  limits.device = fmt::format("NVML device {}", found_by);
  limits.max_sm_clock_mhz = read<unsigned>(fn.device_get_max_clock_info, device, nvml::kClockSm);
  limits.max_mem_clock_mhz = read<unsigned>(fn.device_get_max_clock_info, device, nvml::kClockMem);
  if (auto mw = read<unsigned>(fn.device_get_enforced_power_limit, device)) {
    limits.power_limit_w = *mw / 1000.0;
  }
  return std::unique_ptr<NvmlSource>(new NvmlSource(std::move(library), device, std::move(limits)));
}

std::optional<MonitorSample> NvmlSource::sample() {
  const nvml::Functions& fn = library_->fn();
  MonitorSample s;
  s.sm_clock_mhz = read<unsigned>(fn.device_get_clock_info, device_, nvml::kClockSm);
  s.mem_clock_mhz = read<unsigned>(fn.device_get_clock_info, device_, nvml::kClockMem);
  if (auto mw = read<unsigned>(fn.device_get_power_usage, device_)) s.power_w = *mw / 1000.0;
  if (auto c = read<unsigned>(fn.device_get_temperature, device_, nvml::kTemperatureGpu)) {
    s.temperature_c = static_cast<int>(*c);
  }
  if (auto m = read<nvml::Memory>(fn.device_get_memory_info, device_)) {
    s.memory_used_bytes = m->used;
    s.memory_total_bytes = m->total;
  }
  if (auto u = read<nvml::Utilization>(fn.device_get_utilization_rates, device_)) {
    s.gpu_util_percent = u->gpu;
    s.mem_util_percent = u->memory;
  }
  if (auto r = read<unsigned long long>(fn.device_get_current_clocks_event_reasons, device_)) {
    s.reasons = *r;
  }
  if (auto mj = read<unsigned long long>(fn.device_get_total_energy_consumption, device_)) {
    s.energy_mj = *mj;
  }
  const bool any = s.sm_clock_mhz || s.mem_clock_mhz || s.power_w || s.temperature_c ||
                   s.memory_used_bytes || s.gpu_util_percent || s.reasons || s.energy_mj;
  if (!any) return std::nullopt;
  return s;
}

}  // namespace gemmtune::monitor

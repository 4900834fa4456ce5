#include "drivers/monitor/nvml_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

namespace gemmtune::nvml {
namespace {

template <typename F>
void resolve(void* handle, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(handle, name));
}

}  // namespace

std::shared_ptr<NvmlLibrary> NvmlLibrary::open(const std::string& library, std::string& why) {
  dlerror();
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    why = error != nullptr ? std::string(error) : library + ": cannot be loaded";
    return nullptr;
  }
  Functions fn;
  resolve(handle, "nvmlInit_v2", fn.init_v2);
  resolve(handle, "nvmlShutdown", fn.shutdown);
  resolve(handle, "nvmlErrorString", fn.error_string);
  resolve(handle, "nvmlDeviceGetHandleByIndex_v2", fn.device_get_handle_by_index_v2);
  resolve(handle, "nvmlDeviceGetHandleByPciBusId_v2", fn.device_get_handle_by_pci_bus_id_v2);
  resolve(handle, "nvmlDeviceGetClockInfo", fn.device_get_clock_info);
  resolve(handle, "nvmlDeviceGetMaxClockInfo", fn.device_get_max_clock_info);
  resolve(handle, "nvmlDeviceGetPowerUsage", fn.device_get_power_usage);
  resolve(handle, "nvmlDeviceGetEnforcedPowerLimit", fn.device_get_enforced_power_limit);
  resolve(handle, "nvmlDeviceGetTemperature", fn.device_get_temperature);
  resolve(handle, "nvmlDeviceGetMemoryInfo", fn.device_get_memory_info);
  resolve(handle, "nvmlDeviceGetUtilizationRates", fn.device_get_utilization_rates);
  resolve(handle, "nvmlDeviceGetCurrentClocksEventReasons",
          fn.device_get_current_clocks_event_reasons);
  if (fn.device_get_current_clocks_event_reasons == nullptr) {
    resolve(handle, "nvmlDeviceGetCurrentClocksThrottleReasons",
            fn.device_get_current_clocks_event_reasons);
  }
  resolve(handle, "nvmlDeviceGetTotalEnergyConsumption", fn.device_get_total_energy_consumption);

  const std::pair<const char*, bool> required[] = {
      {"nvmlInit_v2", fn.init_v2 != nullptr},
      {"nvmlShutdown", fn.shutdown != nullptr},
      {"nvmlErrorString", fn.error_string != nullptr},
      {"nvmlDeviceGetHandleByIndex_v2", fn.device_get_handle_by_index_v2 != nullptr},
  };
  for (const auto& [name, found] : required) {
    if (!found) {
      why = fmt::format("{}: missing function {}", library, name);
      dlclose(handle);
      return nullptr;
    }
  }
  const Return status = fn.init_v2();
  if (status != kSuccess) {
    const char* text = fn.error_string(status);
    why = fmt::format("nvmlInit_v2 failed: {}",
                      text != nullptr ? std::string(text) : fmt::format("NVML error {}", status));
    dlclose(handle);
    return nullptr;
  }
  return std::shared_ptr<NvmlLibrary>(new NvmlLibrary(handle, fn));
}

NvmlLibrary::~NvmlLibrary() {
  fn_.shutdown();
  dlclose(handle_);
}

std::string NvmlLibrary::error_string(Return code) const {
  const char* text = fn_.error_string(code);
  return text != nullptr ? std::string(text) : fmt::format("NVML error {}", code);
}

}  // namespace gemmtune::nvml

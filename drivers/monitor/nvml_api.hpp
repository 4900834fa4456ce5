// NVML, the NVIDIA Management Library, loaded at run time with dlopen — never linked — so that a
// gemmtune built on a machine without the driver runs everywhere, and where the library is
// missing the monitor is simply off.
//
// Contract:
// - Only the few C ABI items the monitor uses are declared here. They mirror nvml.h's stable ABI
//   (return codes are ints, devices opaque pointers, the two structs below laid out as nvml.h
//   lays them out); nvml.h itself is not needed to build.
// - NvmlLibrary::open loads the library, resolves the functions and calls nvmlInit_v2. A missing
//   library, a missing required function or a failed init is a null result and a reason, never an
//   exception. Optional functions may be missing: the readings they give are then absent.
// - The library stays loaded and initialised while any NvmlLibrary handle (shared_ptr) lives;
//   the last one calls nvmlShutdown and dlclose. NVML is thread-safe: a handle may be used from
//   the monitor's sampling thread.
#pragma once

#include <memory>
#include <string>

namespace gemmtune::nvml {

// nvmlReturn_t: NVML_SUCCESS is 0; every other value is an error nvmlErrorString explains.
using Return = int;
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorNotSupported = 3;

struct DeviceOpaque;
using Device = DeviceOpaque*;  // nvmlDevice_t

// nvmlMemory_t (the v1 struct of nvmlDeviceGetMemoryInfo), bytes.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlUtilization_t: percent of the last sample period the GPU (kernels) or its memory was busy.
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};

// nvmlClockType_t and nvmlTemperatureSensors_t values.
inline constexpr int kClockSm = 1;
inline constexpr int kClockMem = 2;
inline constexpr int kTemperatureGpu = 0;

// The functions, as pointers resolved from the library; optional ones may be null.
struct Functions {
  // Required.
  Return (*init_v2)() = nullptr;
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*device_get_handle_by_index_v2)(unsigned int, Device*) = nullptr;
  // Optional.
  Return (*device_get_handle_by_pci_bus_id_v2)(const char*, Device*) = nullptr;
  Return (*device_get_clock_info)(Device, int, unsigned int*) = nullptr;
  Return (*device_get_max_clock_info)(Device, int, unsigned int*) = nullptr;
  Return (*device_get_power_usage)(Device, unsigned int*) = nullptr;           // mW
  Return (*device_get_enforced_power_limit)(Device, unsigned int*) = nullptr;  // mW
  Return (*device_get_temperature)(Device, int, unsigned int*) = nullptr;      // °C
  Return (*device_get_memory_info)(Device, Memory*) = nullptr;
  Return (*device_get_utilization_rates)(Device, Utilization*) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons (drivers from 535), or where it is missing the older
  // name of the same call, nvmlDeviceGetCurrentClocksThrottleReasons.
  Return (*device_get_current_clocks_event_reasons)(Device, unsigned long long*) = nullptr;
  // nvmlDeviceGetTotalEnergyConsumption: mJ since the driver was loaded (Volta and later).
  Return (*device_get_total_energy_consumption)(Device, unsigned long long*) = nullptr;
};

// The NVML every GPU host has; tests name another library (or a path that does not exist).
inline constexpr const char* kDefaultLibrary = "libnvidia-ml.so.1";

class NvmlLibrary {
 public:
  // Loads and initialises NVML from `library` (a file name searched as dlopen searches, or a
  // path). On failure returns null and sets `why` ("libnvidia-ml.so.1: cannot open shared object
  // file ...", "nvmlInit_v2 failed: Driver Not Loaded", "missing function nvmlShutdown").
  static std::shared_ptr<NvmlLibrary> open(const std::string& library, std::string& why);

  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const Functions& fn() const { return fn_; }
  // nvmlErrorString's text, or "NVML error N" where it has none.
  std::string error_string(Return code) const;

 private:
  NvmlLibrary(void* handle, const Functions& fn) : handle_(handle), fn_(fn) {}

  void* handle_;
  Functions fn_;
};

}  // namespace gemmtune::nvml

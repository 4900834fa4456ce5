// A stand-in for libnvidia-ml.so.1, built as a loadable module so the monitor's dlopen path runs
// on machines without a GPU. It answers with fixed readings; compile definitions make variants:
//   FAKE_NVML_OLD        the pre-535 API: clocks *throttle* reasons, no lookup by PCI bus id, no
//                        power limit, no energy counter
//   FAKE_NVML_MISSING    lacks nvmlDeviceGetHandleByIndex_v2, a required function
//   FAKE_NVML_NO_DRIVER  nvmlInit_v2 fails as without a loaded driver
// Only the C ABI matters: ints for return codes and enums, an opaque pointer for the device.
#include <cstdio>

namespace {

int g_device = 0;  // its address is the one device's handle
int g_live_inits = 0;
int g_samples = 0;

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;
constexpr int kNotFound = 6;
constexpr int kDriverNotLoaded = 9;

bool is_device(void* device) {
  return device == &g_device;
}

}  // namespace

extern "C" {

struct FakeMemory {
  unsigned long long total, free, used;
};
struct FakeUtilization {
  unsigned int gpu, memory;
};

// Test hooks (not NVML): how many inits are not yet shut down, how many power readings were taken.
int fake_nvml_live_inits() {
  return g_live_inits;
}
int fake_nvml_samples() {
  return g_samples;
}

int nvmlInit_v2() {
#ifdef FAKE_NVML_NO_DRIVER
  return kDriverNotLoaded;
#else
  ++g_live_inits;
  return kSuccess;
#endif
}

int nvmlShutdown() {
  --g_live_inits;
  return kSuccess;
}

const char* nvmlErrorString(int code) {
  switch (code) {
    case kSuccess:
      return "Success";
    case kInvalidArgument:
      return "Invalid Argument";
    case kNotSupported:
      return "Not Supported";
    case kNotFound:
      return "Not Found";
    case kDriverNotLoaded:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

#ifndef FAKE_NVML_MISSING
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (index != 0) return kInvalidArgument;
  *device = &g_device;
  return kSuccess;
}
#endif

#ifndef FAKE_NVML_OLD
// Reads the id as numbers, as NVML does, so "0000:3b:00.0" (CUDA's form) and
// "00000000:3B:00.0" (NVML's own) name the same device: domain 0, bus 0x3b, device 0, function 0.
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  unsigned domain = 0, bus = 0, slot = 0, function = 0;
  if (std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &slot, &function) != 4) {
    return kInvalidArgument;
  }
  if (domain != 0 || bus != 0x3b || slot != 0 || function != 0) return kNotFound;
  *device = &g_device;
  return kSuccess;
}

int nvmlDeviceGetEnforcedPowerLimit(void* device, unsigned int* milliwatts) {
  if (!is_device(device)) return kInvalidArgument;
  *milliwatts = 700000;
  return kSuccess;
}

int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons) {
  if (!is_device(device)) return kInvalidArgument;
  *reasons = 0x4;  // SwPowerCap
  return kSuccess;
}

// A counter that moves: 2 J more at every reading.
int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* millijoules) {
  static unsigned long long counter = 1000000;
  if (!is_device(device)) return kInvalidArgument;
  counter += 2000;
  *millijoules = counter;
  return kSuccess;
}
#else
int nvmlDeviceGetCurrentClocksThrottleReasons(void* device, unsigned long long* reasons) {
  if (!is_device(device)) return kInvalidArgument;
  *reasons = 0x20;  // SwThermalSlowdown
  return kSuccess;
}
#endif

int nvmlDeviceGetClockInfo(void* device, int type, unsigned int* mhz) {
  if (!is_device(device)) return kInvalidArgument;
  if (type == 1)
    *mhz = 1755;  // SM
  else if (type == 2)
    *mhz = 2619;  // memory
  else
    return kNotSupported;
  return kSuccess;
}

int nvmlDeviceGetMaxClockInfo(void* device, int type, unsigned int* mhz) {
  if (!is_device(device)) return kInvalidArgument;
  if (type == 1)
    *mhz = 1980;
  else if (type == 2)
    *mhz = 2619;
  else
    return kNotSupported;
  return kSuccess;
}

int nvmlDeviceGetPowerUsage(void* device, unsigned int* milliwatts) {
  if (!is_device(device)) return kInvalidArgument;
  ++g_samples;
  *milliwatts = 512500;
  return kSuccess;
}

int nvmlDeviceGetTemperature(void* device, int sensor, unsigned int* celsius) {
  if (!is_device(device) || sensor != 0) return kInvalidArgument;
  *celsius = 61;
  return kSuccess;
}

int nvmlDeviceGetMemoryInfo(void* device, FakeMemory* memory) {
  if (!is_device(device)) return kInvalidArgument;
  memory->total = 80ull << 30;
  memory->used = 3ull << 30;
  memory->free = memory->total - memory->used;
  return kSuccess;
}

// Utilisation is "not supported" here, as on some devices: its fields stay empty.
int nvmlDeviceGetUtilizationRates(void*, FakeUtilization*) {
  return kNotSupported;
}

}  // extern "C"

// NvmlSource: the monitor's readings of one GPU through NVML (nvml_api.hpp).
//
// The device is found by its PCI bus id, which names the same GPU whatever CUDA_VISIBLE_DEVICES
// and CUDA's device order say; without a bus id, or where the lookup fails, by NVML index (which
// is the CUDA ordinal only when neither reorders the devices — the description says which was
// used). Each sample() calls NVML a few times (clocks, power, temperature, memory, utilisation,
// clocks event reasons); a call that fails leaves its field empty.
#pragma once

#include <memory>
#include <string>

#include "drivers/monitor/nvml_api.hpp"
#include "drivers/monitor/sample_source.hpp"

namespace gemmtune::monitor {

class NvmlSource final : public SampleSource {
 public:
  // Null, with `why`, when neither the bus id nor the index names a device.
  static std::unique_ptr<NvmlSource> open(std::shared_ptr<nvml::NvmlLibrary> library,
                                          const std::string& pci_bus_id, int index,
                                          std::string& why);

  std::optional<MonitorSample> sample() override;
  DeviceLimits limits() const override { return limits_; }

 private:
  NvmlSource(std::shared_ptr<nvml::NvmlLibrary> library, nvml::Device device, DeviceLimits limits)
      : library_(std::move(library)), device_(device), limits_(std::move(limits)) {}

  std::shared_ptr<nvml::NvmlLibrary> library_;
  nvml::Device device_;
  DeviceLimits limits_;
};

}  // namespace gemmtune::monitor

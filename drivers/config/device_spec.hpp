// DeviceSpec: a device's theoretical peaks — dense matrix TFLOPS per dtype, memory bandwidth — and
// a suggested MAMF sweep, read from the [device] table of a configuration (a device file of
// configs/devices/ laid over configs/default.toml), so that a MAMF result can be stated as a
// percentage of what the vendor promises.
//
// Contract:
// - A device file matches a device name when every `match` term occurs in it and no `exclude`
//   term does, case-insensitively ("NVIDIA H100 PCIe" matches H100 PCIe, not H100 SXM); choosing
//   among files (most match terms wins, ties match nothing) is config_files' job.
// - device_spec_from() reads what the table holds; absent keys keep their neutral defaults. A
//   value of the wrong kind is an InputError naming the key and the file it came from.
// - A peak of 0 (configs/default.toml's neutral value) means "unknown": peak_tflops() gives none.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/config/config_tree.hpp"

namespace gemmtune {

struct DeviceSpec {
  std::string name = "unknown";
  std::vector<std::string> match;
  std::vector<std::string> exclude;
  double memory_bandwidth_gb_s = 0;
  std::map<std::string, double> peak_dense_tflops;  // by the CLI's dtype name ("bfloat16", ...)
  // Suggested MAMF sweeps, START STOP STEP each (empty: none).
  std::vector<std::int64_t> mamf_m_range, mamf_n_range, mamf_k_range;
  std::string source;  // where the numbers come from
  std::string origin;  // the file `name` came from

  bool matches(std::string_view device_name) const;
  // The peak for a dtype (CLI name), if the table gives a positive one.
  std::optional<double> peak_tflops(std::string_view dtype) const;
  // "--m_range 0 20480 256 --n_range 0 20480 256 --k_range 0 20480 256", for reports and docs.
  std::string suggested_mamf() const;
};

// The [device] table of `config`; none when it names no device ("unknown" or empty).
std::optional<DeviceSpec> device_spec_from(const ConfigTree& config);

}  // namespace gemmtune

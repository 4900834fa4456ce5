// DeviceSpec: a device's theoretical peaks — dense matrix TFLOPS per dtype and memory bandwidth —
// read from the spec tables under configs/devices/ (one JSON file per device), so that a MAMF
// result can be stated as a percentage of what the vendor promises.
//
// Contract:
// - A spec matches a device name when every `match` term occurs in it and no `exclude` term does,
//   case-insensitively ("NVIDIA H100 PCIe" matches H100 PCIe, not H100 SXM). Where several specs
//   match, the one with the most `match` terms wins; equal counts are ambiguous and match nothing.
// - The tables are compiled into the binary (builtin_device_specs), so a copied executable still
//   knows them; load_device_specs(dir) reads a directory of such files instead.
// - A malformed file is an InputError naming the file and the field.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gemmtune::mamf {

struct DeviceSpec {
  std::string name;
  std::vector<std::string> match;
  std::vector<std::string> exclude;
  double memory_bandwidth_gb_s = 0;
  std::map<std::string, double> peak_dense_tflops;  // by the CLI's dtype name ("bfloat16", ...)
  std::string suggested_mamf;                        // a suggested sweep, for reports
  std::string source;                                // where the numbers come from

  bool matches(std::string_view device_name) const;
  // The peak for a dtype (CLI name), if the table lists one.
  std::optional<double> peak_tflops(std::string_view dtype) const;
};

// Parses one spec; `origin` names the file for messages.
DeviceSpec parse_device_spec(std::string_view json_text, std::string_view origin);

// The tables compiled in from configs/devices/.
const std::vector<DeviceSpec>& builtin_device_specs();
// Every *.json file of `dir`, in name order.
std::vector<DeviceSpec> load_device_specs(const std::filesystem::path& dir);

// The spec for `device_name`, or none (unknown or ambiguous device).
std::optional<DeviceSpec> find_device_spec(const std::vector<DeviceSpec>& specs,
                                           std::string_view device_name);

}  // namespace gemmtune::mamf
